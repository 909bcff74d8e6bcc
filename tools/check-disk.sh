#!/usr/bin/env bash
# check-disk.sh CONF_DIR TARGET: before 'make images' or 'make jdk', check there is
# room for it. A first build of the release images takes 7.3 GiB (27+34,
# measured 2026-11-25 with du); a rebuild adds little.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
conf_dir=$1 target=${2:-images}
built=$conf_dir/images/jdk/bin/java
[ "$target" = jdk ] && built=$conf_dir/jdk/bin/java
if [ -x "$built" ]; then
  require_free_space "$conf_dir" 1 "make $target (a rebuild)"
else
  require_free_space "$conf_dir" 9 "make $target (a first build)"
fi
