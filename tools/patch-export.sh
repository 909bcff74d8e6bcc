#!/usr/bin/env bash
# Export build/src to the repo: the commits after 'ET-JDK: new files' become
# patches/*.patch + patches/series; files added since upstream are copied to
# their paths under src/ test/ make/. Deterministic, so a second export of the
# same commits changes nothing.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/patch-lib.sh"

tree=$ET_JDK_TOP/build/src
[ -d "$tree/.git" ] || die "no working tree; run: bash configure"
if [ -d "$tree/.git/rebase-merge" ] || [ -d "$tree/.git/rebase-apply" ]; then
  die "build/src is in the middle of a rebase; finish it (git -C build/src rebase --continue) or abort it (git -C build/src rebase --abort) first"
fi
if [ -n "$(git -C "$tree" status --porcelain)" ]; then
  die "build/src has uncommitted changes; commit them first:
$(git -C "$tree" status --porcelain | head -n 10 | sed 's/^/  /')"
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export_tree "$tree" "$out" || die "export failed"

# Never overwrite a new file edited in the repo since configure copied it.
stale=$(cd "$ET_JDK_TOP" && new_files . | while read -r f; do
  if [ -e "$out/$f" ] && ! cmp -s "$out/$f" "$f"; then echo "$f"; fi
  if [ ! -e "$out/$f" ] && ! git -C "$tree" cat-file -e "et-jdk/applied:$f" 2>/dev/null; then echo "$f"; fi
done | while read -r f; do
  if git -C "$tree" diff --quiet et-jdk/applied HEAD -- "$f" 2>/dev/null; then echo "$f"; fi
done)
[ -z "$stale" ] || die "these files changed in the repo since build/src was made; run 'bash configure' to take them into build/src first:
$(printf '%s\n' "$stale" | sed 's/^/  /')"

cd "$ET_JDK_TOP"
# New files: replace ours under src/ test/ make/ with the tree's.
new_files . | while read -r f; do [ -e "$out/$f" ] || { rm -f "$f"; echo "removed $f"; }; done
(cd "$out" && find src test make -type f 2>/dev/null || true) | while read -r f; do
  if ! cmp -s "$out/$f" "$f"; then
    mkdir -p "$(dirname "$f")"; cp -p "$out/$f" "$f"; echo "wrote $f"
  fi
done
# Patches.
for p in patches/*.patch; do
  [ -e "$p" ] || continue
  [ -e "$out/$p" ] || { rm -f "$p"; echo "removed $p"; }
done
mkdir -p patches
for p in "$out"/patches/*; do
  [ -e "$p" ] || continue
  n=patches/$(basename "$p")
  cmp -s "$p" "$n" || { cp "$p" "$n"; echo "wrote $n"; }
done
git -C "$tree" tag -f et-jdk/applied > /dev/null
say "exported $(grep -c . patches/series || true) patches; now run: make patch-check"
