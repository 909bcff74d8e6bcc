#!/usr/bin/env bash
# What build/src holds that the repo does not (quick; for a pre-stop check).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/patch-lib.sh"

tree=$ET_JDK_TOP/build/src
[ -d "$tree/.git" ] || { echo "no working tree (nothing to export)"; exit 0; }
dirty=$(git -C "$tree" status --porcelain)
[ -z "$dirty" ] || printf 'uncommitted in build/src:\n%s\n' "$(printf '%s\n' "$dirty" | sed 's/^/  /')"
unexported=$(tree_unexported "$ET_JDK_TOP")
behind=$(printf '%s\n' "$unexported" | grep ': not in the tree$' || true)
ahead=$(printf '%s\n' "$unexported" | grep -v ': not in the tree$' | grep . || true)
[ -z "$ahead" ] || printf 'in build/src but not exported (run make patch-export):\n%s\n' "$(printf '%s\n' "$ahead" | sed 's/^/  /')"
[ -z "$behind" ] || printf 'in the repo but not yet in build/src (run bash configure):\n%s\n' "$(printf '%s\n' "$behind" | sed 's/^/  /')"
if [ -z "$dirty" ] && [ -z "$unexported" ]; then
  echo "build/src and the repo agree"
else
  exit 1
fi
