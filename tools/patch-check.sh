#!/usr/bin/env bash
# Validate patches/: the series lists exactly the patch files; every patch has
# Subject:, Why: and Upstream-Status: headers and changes only upstream files;
# every patch applies cleanly, in order, to pristine upstream; and a re-export
# reproduces every committed patch byte for byte. Reports all problems found.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/patch-lib.sh"

cd "$ET_JDK_TOP"
problems=0
problem() { printf 'patch-check: %s\n' "$*" >&2; problems=$((problems + 1)); }

[ -f patches/series ] || die "patches/series is missing"
mapfile -t series < <(series_patches .)

# 1. series <-> files
declare -A listed=()
for p in ${series[@]+"${series[@]}"}; do
  [ -z "${listed[$p]:-}" ] || problem "${p#patches/} is listed twice in patches/series"
  listed[$p]=1
  [ -f "$p" ] || problem "${p#patches/} is listed in patches/series but does not exist"
  case ${p#patches/} in [0-9][0-9][0-9][0-9]-*) problem "${p#patches/}: no number prefixes in patch names" ;; esac
done
for p in patches/*.patch; do
  [ -e "$p" ] || continue
  [ -n "${listed[$p]:-}" ] || problem "${p#patches/} is not listed in patches/series"
done

# 2. headers, and only upstream files touched
for p in ${series[@]+"${series[@]}"}; do
  [ -f "$p" ] || continue
  head=$(sed '/^---$/q' "$p")
  grep -q '^Subject: [^[:space:]]' <<< "$head" || problem "${p#patches/}: no 'Subject:' header"
  grep -q '^Why: [^[:space:]]' <<< "$head" || problem "${p#patches/}: no 'Why:' line before the diff"
  grep -Eq '^Upstream-Status: (Pending|Submitted [^[:space:]]+|Accepted|Backport|Inappropriate \[.+\])' <<< "$head" ||
    problem "${p#patches/}: no valid 'Upstream-Status:' (Pending | Submitted <url> | Inappropriate [reason])"
  if grep -q '^new file mode' "$p"; then
    problem "${p#patches/}: adds files ($(grep -B3 '^new file mode' "$p" | sed -n 's|^diff --git a/\([^ ]*\) .*|\1|p' | tr '\n' ' ')); new files live in src/ test/ make/ of this repo"
  fi
done

if [ "$problems" -eq 0 ] && [ "${#series[@]}" -gt 0 ]; then
  # 3. apply to pristine upstream: a scratch repo holding the touched files.
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  mapfile -t files < <(sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "${series[@]}" | sort -u)
  mkdir -p "$scratch/repo"
  if [ -d build/src/.git ] && git -C build/src rev-parse -q --verify et-jdk/upstream > /dev/null; then
    git -C build/src archive et-jdk/upstream -- "${files[@]}" | tar -C "$scratch/repo" -xf - ||
      problem "a patch names a file that is not in upstream"
  else
    tarball=$(fetch_pinned "$UPSTREAM_TARBALL" "$UPSTREAM_TARBALL_SHA256" source "$UPSTREAM_PKG" "$UPSTREAM_PKG_VERSION")
    prefix=$( (tar -tf "$tarball" || true) | head -n 1); prefix=${prefix%%/*}
    tar -C "$scratch/repo" --strip-components=1 -xf "$tarball" "${files[@]/#/$prefix/}" 2> "$scratch/tar.log" ||
      problem "a patch names a file that is not in upstream: $(grep -o "$prefix/[^:]*" "$scratch/tar.log" | head -n 3 | tr '\n' ' ')"
  fi
  export GIT_COMMITTER_NAME=patch-check GIT_COMMITTER_EMAIL=patch-check@localhost
  export GIT_AUTHOR_NAME=patch-check GIT_AUTHOR_EMAIL=patch-check@localhost
  git -C "$scratch/repo" init -q -b main
  git -C "$scratch/repo" add -A
  git -C "$scratch/repo" commit -q -m pristine --allow-empty
  applied=true
  for p in "${series[@]}"; do
    if ! git -C "$scratch/repo" am -k -q "$ET_JDK_TOP/$p" > "$scratch/am.log" 2>&1; then
      problem "${p#patches/} does not apply to pristine upstream $UPSTREAM_VERSION (after the patches before it):
$(grep -E '^(error|Patch failed)' "$scratch/am.log" | sed 's/^/  /')"
      applied=false
      break
    fi
  done
  # 4. re-export round trip
  if $applied; then
    git -C "$scratch/repo" format-patch -q "${FORMAT_PATCH_FLAGS[@]}" -o "$scratch/out" HEAD~"${#series[@]}"..HEAD
    i=0
    for f in "$scratch"/out/*.patch; do
      p=${series[$i]}
      cmp -s "$f" "$p" || problem "${p#patches/}: a re-export differs from the committed file (run make patch-export):
$(diff "$p" "$f" | head -n 8 | sed 's/^/  /')"
      i=$((i + 1))
    done
  fi
fi

if [ "$problems" -gt 0 ]; then
  die "$problems problem(s) in patches/"
fi
echo "patch-check: ${#series[@]} patches OK (series complete, headers present, apply cleanly to $UPSTREAM_VERSION, re-export identical)"
