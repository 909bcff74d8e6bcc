#!/usr/bin/env bash
# bench/apps/test/cleanup-test.sh [--jdk DIR]: an interrupted bench/apps run
# leaves nothing behind. Two quick runs (--quick --allow-busy), each stopped in
# the middle of a measured run:
#   1. the peak part, by SIGINT to the runner's process group, as a terminal's
#      Ctrl-C sends it (Jetty under perf and wrk running);
#   2. the db part, by SIGTERM to the runner alone (mariadbd and the database
#      client under perf running).
# Then no process the run started (bench/apps/run.sh logs each in
# processes.log) is alive, no process names the run's work or temporary
# directory, the temporary directory (mktemp under TMPDIR) is gone, and no port
# the run used (session.env) is listening. Prints PASS/FAIL lines and a count;
# exits non-zero on a failure. Run by tools/test/run-frontend-tests.sh when
# wrk, mariadbd, perf and Temurin 25 are there.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../../.." && pwd)
jdk=/usr/lib/jvm/temurin-25-jdk-amd64
[ "${1:-}" = --jdk ] && jdk=${2:?--jdk needs a directory}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
passed=0 failed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

# with_default_sigint CMD...: exec CMD with SIGINT at its default action. A shell
# started with SIGINT ignored (nohup, a background job of a script) passes that on,
# and bash cannot trap a signal ignored on entry; a terminal's shell does not.
# Called in a background subshell, it execs, so that $! is the runner itself.
with_default_sigint() {
  exec python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}

# interrupt_case NAME PARTS READY_REGEX SIGNAL group|runner EXPECTED_RC
interrupt_case() {
  local name=$1 parts=$2 ready=$3 sig=$4 target=$5 want_rc=$6
  local work=$scratch/$name-work tmp=$scratch/$name-tmp log=$scratch/$name.log pid rc i raw
  mkdir -p "$tmp"
  # job control: the runner gets a process group of its own (pgid = pid) and, unlike a
  # plain background job, does not start with SIGINT ignored
  set -m
  TMPDIR=$tmp ET_BENCH_LOCK=$scratch/lock with_default_sigint "$TOP/bench/apps/run.sh" --jdk "$jdk" --quick --allow-busy \
    --parts "$parts" --endpoints plaintext --peak-connections 100 --db-tx update --db-modes direct \
    --work "$work" --out "$scratch/$name.md" >"$log" 2>&1 &
  pid=$!
  set +m
  # wait until the run is in the middle of a measured window
  for ((i = 0; i < 1800; i++)); do
    grep -Eq "$ready" "$work"/runs/*/processes.log 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if ! grep -Eq "$ready" "$work"/runs/*/processes.log 2>/dev/null || ! kill -0 "$pid" 2>/dev/null; then
    fail "$name: the run never reached '$ready'; its output:"; sed 's/^/    /' "$log"
    kill -KILL -- -"$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    return
  fi
  # signal at once: the measured window is short in --quick, and a loaded machine
  # could otherwise see the run end before the signal
  if [ "$target" = group ]; then kill -"$sig" -- -"$pid"; else kill -"$sig" "$pid"; fi
  for ((i = 0; i < 900; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    fail "$name: the runner did not exit within 90 s of SIG$sig"; kill -KILL -- -"$pid" 2>/dev/null
  fi
  wait "$pid"; rc=$?
  raw=$(ls -d "$work"/runs/*/ | head -1)
  [ "$rc" = "$want_rc" ] && grep -q "stopping every process this run started" "$log" &&
    pass "$name: SIG$sig to the $target: the runner exits $rc and says so" ||
    { fail "$name: exit $rc (expected $want_rc) or no message; output:"; sed 's/^/    /' "$log"; }

  local alive="" p what
  while read -r _ p what; do
    kill -0 "$p" 2>/dev/null && alive+=" $p ($what: $(tr '\0' ' ' </proc/"$p"/cmdline 2>/dev/null | cut -c1-80))"
  done <"$raw/processes.log"
  [ -z "$alive" ] && pass "$name: every process it started is gone ($(wc -l <"$raw/processes.log") started: $(awk '{ $1 = $2 = ""; print }' "$raw/processes.log" | sort -u | paste -sd, | tr -s ' '))" ||
    fail "$name: still alive:$alive"
  local left
  left=$(pgrep -af -- "$work|$tmp" | grep -v "pgrep" || true)
  [ -z "$left" ] && pass "$name: no mariadbd, java or wrk process names its work or temporary directory" ||
    fail "$name: processes left: $left"
  local tmpdir
  tmpdir=$(sed -n 's/^tmp_root=//p' "$raw/session.env")
  [[ -n $tmpdir && $tmpdir == "$tmp"/* && ! -e $tmpdir && -z $(ls -A "$tmp") ]] &&
    pass "$name: its temporary directory ${tmpdir#"$scratch"/} is removed" ||
    fail "$name: temporary directory '$tmpdir' left, or $tmp not empty: $(ls -A "$tmp")"
  local ports listening=""
  ports=$(sed -n 's/^\(server\|admin\|db\)_port=//p' "$raw/session.env")
  for p in $ports; do
    [ -z "$(ss -Htln "sport = :$p" 2>/dev/null)" ] || listening+=" $p"
  done
  [ -n "$ports" ] && [ -z "$listening" ] && pass "$name: no port it used is listening ($(echo $ports))" ||
    fail "$name: ports still listening:$listening (ports used: $ports)"
  [ ! -e "$scratch/$name.md" ] && pass "$name: no page written" || fail "$name: an interrupted run wrote $scratch/$name.md"
  local cg
  cg=$(sed -n 's/^cgroup=//p' "$raw/session.env")
  if [ -n "$cg" ]; then
    [ ! -e "$cg" ] && pass "$name: its cgroup ${cg##*/} is removed" || fail "$name: cgroup $cg left"
  fi
}

interrupt_case peak-sigint peak ' wrk$' INT group 130
interrupt_case db-sigterm db ' database client \(java under perf\)$' TERM runner 143
if [ -w /sys/fs/cgroup/cpu ] || { [ -w /sys/fs/cgroup ] && grep -qw cpu /sys/fs/cgroup/cgroup.controllers 2>/dev/null; }; then
  interrupt_case rate-sigint rate ' open-model load generator$' INT group 130
else
  echo "SKIP: rate-sigint (no writable cgroup CPU controller for the rate part's cap)"
fi

echo "bench/apps cleanup tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
