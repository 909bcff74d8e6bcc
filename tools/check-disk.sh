#!/usr/bin/env bash
# check-disk.sh CONF_DIR: before 'make images', check there is room for it.
# A first build of the release configuration takes 7.3 GiB (27+34, measured
# 2026-11-25 with du); a rebuild adds little.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
conf_dir=$1
if [ -x "$conf_dir/images/jdk/bin/java" ]; then
  require_free_space "$conf_dir" 1 "make images (a rebuild)"
else
  require_free_space "$conf_dir" 9 "make images (a first build)"
fi
