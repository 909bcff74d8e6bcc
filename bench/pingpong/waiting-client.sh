#!/usr/bin/env bash
# waiting-client.sh: the waiting-client cell of syscalls-per-round-trip.sh
# (same options; see its --help).
set -euo pipefail
ET_PINGPONG_NAME=waiting-client.sh exec "$(dirname "${BASH_SOURCE[0]}")/syscalls-per-round-trip.sh" --waiting-client "$@"
