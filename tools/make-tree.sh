#!/usr/bin/env bash
# make-tree.sh UPSTREAM(TARBALL|DIR) GTEST-TARBALL RECREATE(true|false)
#
# Makes build/src, the working tree: a git repository whose history is
#   et-jdk/upstream   pristine upstream source
#   et-jdk/new-files  our new files (src/ test/ make/ of this repo)
#   one commit per entry of patches/series     (HEAD, tagged et-jdk/applied)
# googletest/ and build/ are kept out of git.
#
# Nothing is half-done: a new tree is made in build/src.tmp and renamed; an
# existing tree is brought up to date in a scratch worktree and then checked
# out, which rewrites only the files that change (no needless rebuild). A tree
# holding work that is not exported is never touched.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/patch-lib.sh"

upstream=$1 gtest=$2 recreate=$3
tree=$ET_JDK_TOP/build/src

# Deterministic identity for the commits the front end makes.
export GIT_AUTHOR_NAME="ET-JDK front end" GIT_AUTHOR_EMAIL="et-jdk@localhost"
export GIT_COMMITTER_NAME="ET-JDK front end" GIT_COMMITTER_EMAIL="et-jdk@localhost"
export GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"

# inputs_fingerprint: changes whenever upstream, the series or a new file does.
inputs_fingerprint() {
  {
    if [ -f "$upstream" ]; then echo "$UPSTREAM_TARBALL_SHA256"; else echo "dir:$upstream"; fi
    cd "$ET_JDK_TOP"
    sha256sum patches/series $(series_patches "$ET_JDK_TOP") 2>/dev/null
    new_files "$ET_JDK_TOP" | while read -r f; do sha256sum "$f"; done
  } | sha256sum | cut -d' ' -f1
}

# apply_ours DIR: commit our new files on top of et-jdk/upstream, then the series.
apply_ours() {
  local dir=$1 f p
  new_files "$ET_JDK_TOP" | while read -r f; do
    if git -C "$dir" cat-file -e "et-jdk/upstream:$f" 2>/dev/null; then
      echo "$f" > "$dir/.shadowed"
    fi
    mkdir -p "$dir/$(dirname "$f")"
    cp -p "$ET_JDK_TOP/$f" "$dir/$f"
  done
  if [ -f "$dir/.shadowed" ]; then
    f=$(cat "$dir/.shadowed"); rm -f "$dir/.shadowed"
    echo "new file $f shadows an upstream file; change upstream files with a patch instead" > "$dir/.failed"
    return 1
  fi
  git -C "$dir" add -A . &&
    git -C "$dir" commit -q --allow-empty -m "ET-JDK: new files" &&
    git -C "$dir" tag -f et-jdk/new-files > /dev/null || return 1
  for p in $(series_patches "$ET_JDK_TOP"); do
    if ! git -C "$dir" am -k -q "$ET_JDK_TOP/$p" > "$dir/.am.log" 2>&1; then
      { echo "patch ${p#patches/} does not apply:"; grep -E '^(error|Patch failed|Applying)' "$dir/.am.log" | sed 's/^/  /'; } > "$dir/.failed"
      git -C "$dir" am --abort > /dev/null 2>&1 || true
      return 1
    fi
  done
  rm -f "$dir/.am.log"
  git -C "$dir" tag -f et-jdk/applied > /dev/null
}

fingerprint=$(inputs_fingerprint)

if [ -d "$tree/.git" ] && [ "$recreate" != true ]; then
  stored=$(cat "$tree/.git/et-jdk-inputs" 2>/dev/null || true)
  if [ "$stored" = "$fingerprint" ]; then
    say "build/src is up to date"
    exit 0
  fi
fi

if [ -d "$tree/.git" ]; then
  # Refuse to touch work that exists only in the tree.
  if [ -n "$(git -C "$tree" status --porcelain)" ]; then
    die "build/src has uncommitted changes:
$(git -C "$tree" status --porcelain | head -n 10 | sed 's/^/  /')
  Commit them and run 'make patch-export', or discard them (git -C build/src reset --hard; git -C build/src clean -fd), then run configure again."
  fi
  if unexported=$(tree_unexported "$ET_JDK_TOP") && [ -z "$unexported" ] && [ "$recreate" != true ]; then
    # The tree holds exactly what the repo holds (e.g. just exported).
    git -C "$tree" tag -f et-jdk/applied > /dev/null
    echo "$fingerprint" > "$tree/.git/et-jdk-inputs"
    say "build/src matches the repo"
    exit 0
  fi
  if [ "$(git -C "$tree" rev-parse HEAD)" != "$(git -C "$tree" rev-parse et-jdk/applied 2>/dev/null)" ]; then
    die "build/src has commits that are not exported:
$(printf '%s\n' "$unexported" | head -n 10 | sed 's/^/  /')
  Run 'make patch-export' (or drop them: git -C build/src reset --hard et-jdk/applied), then run configure again."
  fi
fi

if [ -d "$tree/.git" ] && [ "$recreate" != true ]; then
  say "updating build/src to the current patches"
  staging=$ET_JDK_TOP/build/src-staging
  git -C "$tree" worktree remove --force "$staging" > /dev/null 2>&1 || rm -rf "$staging"
  git -C "$tree" worktree prune
  git -C "$tree" worktree add -q --detach "$staging" et-jdk/upstream
  if ! apply_ours "$staging"; then
    msg=$(cat "$staging/.failed")
    git -C "$tree" worktree remove --force "$staging"
    die "$msg
  build/src was left as it was."
  fi
  head=$(git -C "$staging" rev-parse HEAD)
  git -C "$tree" worktree remove --force "$staging"
  git -C "$tree" checkout -q -B main "$head"
  git -C "$tree" tag -f et-jdk/new-files "$(git -C "$tree" rev-list --reverse et-jdk/upstream..HEAD | head -n 1)" > /dev/null
  git -C "$tree" tag -f et-jdk/applied > /dev/null
  echo "$fingerprint" > "$tree/.git/et-jdk-inputs"
  exit 0
fi

say "creating build/src from $(basename "$upstream")"
tmp=$ET_JDK_TOP/build/src.tmp
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
if [ -f "$upstream" ]; then
  tar -C "$tmp" --strip-components=1 -xf "$upstream" || die "cannot unpack $upstream"
else
  cp -a "$upstream/." "$tmp/"
  rm -rf "$tmp/.git" "$tmp/build"
fi
mkdir -p "$tmp/googletest"
tar -C "$tmp/googletest" --strip-components=1 -xf "$gtest" || die "cannot unpack $gtest"
git -C "$tmp" init -q -b main
printf '/build/\n/googletest/\n' >> "$tmp/.git/info/exclude"
git -C "$tmp" config core.autocrlf false
git -C "$tmp" config gc.auto 0
git -C "$tmp" add -A
git -C "$tmp" commit -q -m "OpenJDK $UPSTREAM_VERSION (pristine, from $(basename "$upstream"))"
git -C "$tmp" tag et-jdk/upstream
if ! apply_ours "$tmp"; then
  die "$(cat "$tmp/.failed")"
fi
echo "$fingerprint" > "$tmp/.git/et-jdk-inputs"
if [ -d "$tree" ]; then
  # --recreate-tree: the old tree held nothing unexported (checked above);
  # keep its build output.
  [ -d "$tree/build" ] && mv "$tree/build" "$tmp/build"
  rm -rf "$tree"
fi
mv "$tmp" "$tree"
trap - EXIT
say "build/src created: $(git -C "$tree" rev-list --count et-jdk/new-files..HEAD) patches applied"
