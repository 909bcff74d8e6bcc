# Patch-series helpers shared by make-tree.sh and the patch-* scripts. Sourced.
# shellcheck shell=bash

# Flags that make 'git format-patch' output depend only on the commits.
FORMAT_PATCH_FLAGS=(--zero-commit --no-signature --full-index --no-stat --keep-subject)

# series_patches REPO: patches/<name> for each entry of patches/series.
series_patches() {
  [ -f "$1/patches/series" ] || return 0
  sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' -e 's|^|patches/|' "$1/patches/series"
}

# new_files REPO: our new files (tracked or not yet added), relative paths.
new_files() {
  git -C "$1" ls-files --cached --others --exclude-standard -- src test make |
    while read -r f; do [ -f "$1/$f" ] && echo "$f"; done | sort -u
}

# export_tree TREE OUT: write what TREE holds beyond pristine upstream to OUT:
# OUT/patches/{series,*.patch} and the new files under OUT/{src,test,make}.
export_tree() {
  local tree=$1 out=$2 base f name
  base=$(git -C "$tree" rev-list --reverse et-jdk/upstream..HEAD | head -n 1)
  [ -n "$base" ] || { echo "build/src has no 'new files' commit above et-jdk/upstream" >&2; return 1; }
  mkdir -p "$out/patches"
  local added=() excludes=()
  mapfile -t added < <(git -C "$tree" diff --name-only --diff-filter=A et-jdk/upstream HEAD -- src test make)
  for f in ${added[@]+"${added[@]}"}; do
    mkdir -p "$out/$(dirname "$f")"
    git -C "$tree" show "HEAD:$f" > "$out/$f"
    [ -x "$tree/$f" ] && chmod +x "$out/$f"
    excludes+=(":(exclude)$f")
  done
  local tmp
  tmp=$(mktemp -d)
  git -C "$tree" format-patch -q "${FORMAT_PATCH_FLAGS[@]}" -o "$tmp" "$base..HEAD" -- . ${excludes[@]+"${excludes[@]}"}
  : > "$out/patches/series"
  for f in "$tmp"/*.patch; do
    [ -e "$f" ] || continue
    name=$(basename "$f" | sed 's/^[0-9]\{4\}-//')
    if [ -e "$out/patches/$name" ]; then
      echo "two commits export to the same patch name $name; reword one subject" >&2
      rm -rf "$tmp"; return 1
    fi
    mv "$f" "$out/patches/$name"
    echo "$name" >> "$out/patches/series"
  done
  rm -rf "$tmp"
}

# tree_unexported REPO: prints what build/src holds that REPO does not
# (nothing when they agree); fails when there is no tree.
tree_unexported() {
  local repo=$1 tree=$1/build/src tmp rc=0
  [ -d "$tree/.git" ] || { echo "no working tree (run: bash configure)" >&2; return 1; }
  tmp=$(mktemp -d)
  export_tree "$tree" "$tmp" || { rm -rf "$tmp"; return 1; }
  (
    cd "$repo"
    mkdir -p "$tmp/src" "$tmp/test" "$tmp/make"
    diff -q patches/series "$tmp/patches/series" > /dev/null 2>&1 || echo "patches/series differs"
    for f in "$tmp"/patches/*.patch; do
      [ -e "$f" ] || continue
      n=patches/$(basename "$f")
      cmp -s "$f" "$n" || echo "$n: not exported"
    done
    for n in patches/*.patch; do
      [ -e "$n" ] || continue
      [ -e "$tmp/$n" ] || echo "$n: not in the tree"
    done
    (cd "$tmp" && find src test make -type f) | while read -r f; do
      cmp -s "$tmp/$f" "$f" || echo "$f: not exported"
    done
    new_files . | while read -r f; do
      [ -e "$tmp/$f" ] || echo "$f: not in the tree"
    done
  ) || rc=$?
  rm -rf "$tmp"
  return $rc
}
