# bench/lib/guard.sh: load guard and run metadata shared by every benchmark
# runner (bench/micro/run.sh, bench/pingpong/*.sh, bench/e2e/run.sh,
# bench/apps/run.sh). Sourced.
# The rule it enforces is documented in bench/README.md ("Load guard").
# shellcheck shell=bash

# Thresholds (environment overrides):
#   ET_BENCH_MAX_LOAD          1-min load average allowed at the start [0.5]
#   ET_BENCH_MAX_LOAD_BETWEEN  ... between runs [nproc + ET_BENCH_MAX_LOAD]: the
#                              previous run's own JVM still counts in load1; a
#                              runner that calls guard_run_ended also allows
#                              the load1 its last run ended with + ET_BENCH_MAX_LOAD
#   ET_BENCH_MAX_PROC_PCT      CPU one other process may use, % of a core [10]
#   ET_BENCH_SAMPLE_S          length of the process CPU sample, s [2]
#   ET_BENCH_WAIT_S            how long to wait between runs for quiet, s [300]
#   ET_BENCH_START_WAIT_S      how long to wait at the start when only load1 is
#                              high (it decays slowly after a previous run) [180]
#   ET_BENCH_IGNORE_PROCS      extended regex of command names never counted []
#   ET_BENCH_LOCK              lock file a measuring run holds [/tmp/et-bench.lock]
# Test hooks: ET_BENCH_LOADAVG_FILE (a /proc/loadavg), ET_BENCH_PRESSURE_FILE
# (a /proc/pressure/cpu), ET_BENCH_PROC_SAMPLE_FILE (lines "PCT PID COMM"
# replacing the live sample).

GUARD_NAME=${GUARD_NAME:-bench}
GUARD_ALLOW_BUSY=0
GUARD_BUSY_SEEN=0       # 1 once any check found the machine busy (--allow-busy)
GUARD_BUSY_NOTES=""     # what was busy (first 3 checks), for the report
GUARD_BUSY_COUNT=0
GUARD_LOCK_HELD=0
GUARD_LOAD1="" GUARD_PSI10="" GUARD_OTHERS="" GUARD_BUSY=0 GUARD_REASON=""
GUARD_LOAD1_RUN_END=""  # load1 when the last run ended (guard_run_ended)
GUARD_LOG="" GUARD_LOG_PENDING=""   # every check, one line each, for the raw data

_guard_die() { printf '%s\n' "$GUARD_NAME: error: $*" >&2; exit 1; }
_guard_say() { printf '%s\n' "$GUARD_NAME: $*" >&2; }

# guard_init NAME ALLOW_BUSY(0|1)
guard_init() {
  GUARD_NAME=$1 GUARD_ALLOW_BUSY=$2
  local v
  for v in "${ET_BENCH_MAX_LOAD:-0.5}" "${ET_BENCH_MAX_PROC_PCT:-10}" "${ET_BENCH_SAMPLE_S:-2}" \
           "${ET_BENCH_WAIT_S:-300}" "${ET_BENCH_MAX_LOAD_BETWEEN:-0}"; do
    [[ $v =~ ^[0-9]+([.][0-9]+)?$ ]] || _guard_die "ET_BENCH_* thresholds must be numbers, got '$v' (see bench/README.md)"
  done
}

# guard_load1: the 1-minute load average
guard_load1() { cut -d' ' -f1 "${ET_BENCH_LOADAVG_FILE:-/proc/loadavg}"; }
guard_loadavg() { cut -d' ' -f1-3 "${ET_BENCH_LOADAVG_FILE:-/proc/loadavg}"; }
# guard_psi10: CPU pressure "some avg10" in %, or n/a
guard_psi10() {
  local f=${ET_BENCH_PRESSURE_FILE:-/proc/pressure/cpu} v
  v=$(awk '/^some/ { for (i = 2; i <= NF; i++) if ($i ~ /^avg10=/) { sub("avg10=", "", $i); print $i } }' "$f" 2>/dev/null || true)
  printf '%s\n' "${v:-n/a}"
}
# guard_psi_total: cumulative CPU pressure "some" in microseconds, or empty
guard_psi_total() {
  awk '/^some/ { for (i = 2; i <= NF; i++) if ($i ~ /^total=/) { sub("total=", "", $i); print $i } }' \
    "${ET_BENCH_PRESSURE_FILE:-/proc/pressure/cpu}" 2>/dev/null || true
}

# _guard_snapshot: "pid ppid ticks comm" of every process (comm may hold blanks)
_guard_snapshot() {
  cat /proc/[0-9]*/stat 2>/dev/null | awk '{
    s = $0; o = index(s, "("); p = 0
    while ((k = index(substr(s, p + 1), ")")) > 0) p += k
    comm = substr(s, o + 1, p - o - 1); gsub(/[ \t]/, "_", comm)
    n = split(substr(s, p + 2), f, " ")
    if (n >= 13) print $1, f[2], f[12] + f[13], comm
  }'
}

# guard_sample: prints "PCT PID COMM" of the processes other than this runner,
# its ancestors and its descendants that used CPU during the sample, busiest first
guard_sample() {
  if [[ -n ${ET_BENCH_PROC_SAMPLE_FILE:-} ]]; then
    sort -k1,1nr "$ET_BENCH_PROC_SAMPLE_FILE"; return
  fi
  local a b t0 t1
  a=$(_guard_snapshot); t0=$(date +%s.%N)
  sleep "${ET_BENCH_SAMPLE_S:-2}"
  b=$(_guard_snapshot); t1=$(date +%s.%N)
  awk -v self="$$" -v clk="$(getconf CLK_TCK)" -v dt="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
      -v ign="${ET_BENCH_IGNORE_PROCS:-}" '
    FNR == NR { before[$1] = $3; next }
    { pid[NR] = $1; par[$1] = $2; ticks[$1] = $3; comm[$1] = $4 }
    END {
      # ancestors of the runner
      for (p = self; p != "" && p != 0 && !(p in skip); p = par[p]) skip[p] = 1
      for (i in pid) {
        q = pid[i]; mine = 0
        for (p = q; p != "" && p != 0; p = par[p]) { if (p == self) { mine = 1; break } if (++guard > 10000) break }
        guard = 0
        if (mine || (q in skip)) continue
        if (ign != "" && comm[q] ~ ign) continue
        d = ticks[q] - ((q in before) ? before[q] : 0)
        pct = d / clk / dt * 100
        if (pct >= 0.5) printf "%.0f %s %s\n", pct, q, comm[q]
      }
    }' <(printf '%s\n' "$a") <(printf '%s\n' "$b") | sort -k1,1nr
}

# _guard_lock_owner: pid of a live process other than us holding the lock
_guard_lock_owner() {
  local f=${ET_BENCH_LOCK:-/tmp/et-bench.lock} p
  [[ -f $f ]] || return 0
  p=$(head -1 "$f" 2>/dev/null | cut -d" " -f1 | tr -dc 0-9)
  if [[ -n $p && $p != "$$" ]] && kill -0 "$p" 2>/dev/null; then echo "$p"; fi
}

# _guard_measure start|between: sets GUARD_LOAD1 GUARD_PSI10 GUARD_OTHERS
# GUARD_BUSY GUARD_REASON
_guard_measure() {
  local when=$1 max_load sample max_pct owner nproc_
  nproc_=$(nproc)
  max_pct=${ET_BENCH_MAX_PROC_PCT:-10}
  if [[ $when == start ]]; then
    max_load=${ET_BENCH_MAX_LOAD:-0.5}
  else
    max_load=${ET_BENCH_MAX_LOAD_BETWEEN:-$(awk -v n="$nproc_" -v m="${ET_BENCH_MAX_LOAD:-0.5}" 'BEGIN { print n + m }')}
    if [[ -n $GUARD_LOAD1_RUN_END ]]; then
      # load1 only decays after a run: up to what the run itself left is its own load
      max_load=$(awk -v a="$max_load" -v e="$GUARD_LOAD1_RUN_END" -v m="${ET_BENCH_MAX_LOAD:-0.5}" \
        'BEGIN { b = e + m; print (b > a) ? b : a }')
    fi
  fi
  GUARD_LOAD1=$(guard_load1); GUARD_PSI10=$(guard_psi10)
  sample=$(guard_sample)
  GUARD_OTHERS=$(awk -v m="$max_pct" '$1 > m { printf "%s%s (pid %s) %s%%", sep, $3, $2, $1; sep = ", " }' <<<"$sample")
  GUARD_BUSY=0 GUARD_REASON=""
  if awk -v l="$GUARD_LOAD1" -v m="$max_load" 'BEGIN { exit !(l > m) }'; then
    GUARD_BUSY=1 GUARD_REASON="1-minute load average $GUARD_LOAD1 > $max_load"
  fi
  if [[ -n $GUARD_OTHERS ]]; then
    GUARD_BUSY=1
    GUARD_REASON+="${GUARD_REASON:+; }other processes using > $max_pct% of a core: $GUARD_OTHERS"
  fi
  owner=$(_guard_lock_owner)
  if [[ -n $owner ]]; then
    GUARD_BUSY=1
    GUARD_REASON+="${GUARD_REASON:+; }another benchmark (pid $owner) holds ${ET_BENCH_LOCK:-/tmp/et-bench.lock}"
  fi
  if [[ $GUARD_BUSY == 0 ]]; then
    local top
    top=$(head -3 <<<"$sample" | awk '{ printf "%s%s %s%%", sep, $3, $1; sep = ", " }')
    GUARD_REASON="quiet: load1 $GUARD_LOAD1, CPU pressure avg10 $GUARD_PSI10%${top:+, top others: $top}"
  fi
}

_guard_log() {
  local line
  line="$(date -u +%H:%M:%S) $1 busy=$GUARD_BUSY load1=$GUARD_LOAD1 psi10=$GUARD_PSI10: $GUARD_REASON"
  if [[ -n $GUARD_LOG ]]; then echo "$line" >>"$GUARD_LOG"; else GUARD_LOG_PENDING+="$line"$'\n'; fi
}
# guard_log_to FILE: write every check (those made so far too) to FILE
guard_log_to() { GUARD_LOG=$1; printf '%s' "$GUARD_LOG_PENDING" >>"$GUARD_LOG"; GUARD_LOG_PENDING=""; }

_guard_busy_ok() {
  GUARD_BUSY_SEEN=1 GUARD_BUSY_COUNT=$((GUARD_BUSY_COUNT + 1))
  (( GUARD_BUSY_COUNT > 3 )) || GUARD_BUSY_NOTES+="${GUARD_BUSY_NOTES:+ | }$1: $GUARD_REASON"
  _guard_say "warning: the machine is busy ($GUARD_REASON); going on because of --allow-busy: the report will say 'measured on a busy machine'"
}

# guard_check start|between LABEL: returns when the runner may go on; exits
# (non-zero, naming what is busy) otherwise. "guard_check 0|1" is a start check
# with that --allow-busy value.
guard_check() {
  # short form "guard_check 0|1": a start check with that --allow-busy value
  if [[ $1 == [01] ]]; then GUARD_ALLOW_BUSY=$1; set -- start "the first run"; fi
  local when=$1 label=${2:-} waited=0 wait_s=${ET_BENCH_WAIT_S:-300}
  _guard_measure "$when"
  _guard_log "$when ${label:-}"
  if [[ $GUARD_BUSY == 1 && $when == start && $GUARD_ALLOW_BUSY != 1 ]]; then
    # only the load average is high and nothing else runs: a previous benchmark's
    # load is decaying (1-minute average); wait for it
    local start_wait=${ET_BENCH_START_WAIT_S:-180} w=0
    while [[ $GUARD_BUSY == 1 && $GUARD_REASON == "1-minute load average "*" > "+([0-9.]) ]] &&
          awk -v w="$w" -v m="$start_wait" 'BEGIN { exit !(w < m) }'; do
      (( w > 0 )) || _guard_say "$GUARD_REASON, and no other process uses the CPU: waiting up to ${start_wait}s for the load average to decay"
      sleep 5; w=$((w + 5 + ${ET_BENCH_SAMPLE_S:-2}))
      _guard_measure start
      _guard_log "start (waiting for the load average)"
    done
  fi
  if [[ $GUARD_BUSY == 1 ]]; then
    if [[ $GUARD_ALLOW_BUSY == 1 ]]; then _guard_busy_ok "${label:-$when}"; return 0; fi
    if [[ $when == start ]]; then
      _guard_die "the machine is busy: $GUARD_REASON.
  Benchmarks need a quiet machine (bench/README.md, 'Load guard'). Wait until it is quiet
  (or stop what is running), or pass --allow-busy to measure anyway (every table is then
  stamped 'measured on a busy machine')."
    fi
    _guard_say "the machine became busy before $label ($GUARD_REASON); waiting up to ${wait_s}s for it to become quiet"
    while [[ $GUARD_BUSY == 1 ]]; do
      if awk -v w="$waited" -v m="$wait_s" 'BEGIN { exit !(w >= m) }'; then
        _guard_die "the machine stayed busy for ${wait_s}s before $label: $GUARD_REASON.
  Aborted; no report was written. Re-run on a quiet machine, raise ET_BENCH_WAIT_S,
  or pass --allow-busy (the report is then stamped 'measured on a busy machine')."
      fi
      sleep 5; waited=$((waited + 5 + ${ET_BENCH_SAMPLE_S:-2}))
      _guard_measure "$when"
      _guard_log "$when $label (waiting)"
    done
    _guard_say "quiet again after about ${waited}s"
  fi
  return 0
}

# guard_run_ended: call when a run's processes have exited; the next between-run
# check then also allows the load average this run left (plus ET_BENCH_MAX_LOAD),
# as a benchmark with many threads of its own (e.g. a database server) leaves
# load1 far above nproc, and it decays for minutes
guard_run_ended() { GUARD_LOAD1_RUN_END=$(guard_load1); }

# guard_lock / guard_unlock: a measuring run (not --allow-busy) holds the lock
# file so that other work can see a benchmark is running
guard_lock() {
  [[ $GUARD_ALLOW_BUSY == 1 ]] && return 0
  local f=${ET_BENCH_LOCK:-/tmp/et-bench.lock}
  echo "$$ $GUARD_NAME" >"$f" 2>/dev/null || { _guard_say "warning: cannot write $f"; return 0; }
  GUARD_LOCK_HELD=1
}
guard_unlock() {
  local f=${ET_BENCH_LOCK:-/tmp/et-bench.lock}
  if [[ $GUARD_LOCK_HELD == 1 ]] && [[ "$(head -1 "$f" 2>/dev/null | cut -d" " -f1)" == "$$" ]]; then
    rm -f "$f"
  fi
  GUARD_LOCK_HELD=0
}

# bench_shell_words ARGS...: one shell command line, quoted where needed
bench_shell_words() {
  local w sep=""
  for w in "$@"; do
    if [[ $w =~ ^[A-Za-z0-9_./=:,@%+-]+$ ]]; then printf '%s%s' "$sep" "$w"
    else printf "%s'%s'" "$sep" "${w//\'/\'\\\'\'}"; fi
    sep=" "
  done
  echo
}

# _bench_cpu_loop_ms CPU: the fixed awk loop pinned to CPU, in ms; fails
# without taskset or that CPU
_bench_cpu_loop_ms() {
  local t0 t1
  command -v taskset >/dev/null || return 1
  t0=$(date +%s%N)
  taskset -c "$1" awk 'BEGIN { for (i = 0; i < 1000000; i++) x += i % 7 }' 2>/dev/null || return 1
  t1=$(date +%s%N)
  echo $(( (t1 - t0) / 1000000 ))
}

# bench_cpu_speed: the loop timed 3 times on each CPU (the first 8), as
# "MIN-MAX ms"; a VM whose CPUs change speed shows it as a spread that the
# load average does not. "n/a" without taskset or a CPU to pin to.
bench_cpu_speed() {
  local n c r ms=() m
  n=$(nproc); (( n > 8 )) && n=8
  for r in 1 2 3; do
    for ((c = 0; c < n; c++)); do
      m=$(_bench_cpu_loop_ms "$c") || { echo "n/a"; return 0; }
      ms+=("$m")
    done
  done
  printf '%s\n' "${ms[@]}" | sort -n | awk 'NR == 1 { min = $1 } { max = $1 } END { printf "%d-%d ms\n", min, max }'
}

# bench_cpu_speed_ms: the loop once on each CPU (the first 8), in ms, as
# "CPU0/CPU1/..." (e.g. "45/61"): a look at each CPU's speed beside a run,
# cheap enough to take before every one; "n/a" without taskset or a CPU to
# pin to
bench_cpu_speed_ms() {
  local n c m out=""
  n=$(nproc); (( n > 8 )) && n=8
  for ((c = 0; c < n; c++)); do
    m=$(_bench_cpu_loop_ms "$c") || { echo "n/a"; return 0; }
    out+="${out:+/}$m"
  done
  echo "$out"
}

# bench_cpu_speed_line before|after: bench_cpu_speed as a "#" line, for the
# runners that print their results instead of writing a page; "after" adds a
# warning when the slowest loop of both took over 1.5 x the fastest (as
# report.py's pages do)
BENCH_CPU_SPEED_BEFORE=""
bench_cpu_speed_line() {
  local v; v=$(bench_cpu_speed)
  echo "# CPU speed $1 (a fixed awk loop pinned to each CPU, 3 times, ms per loop): $v"
  if [[ $1 == before ]]; then BENCH_CPU_SPEED_BEFORE=$v; return 0; fi
  awk -v t="$BENCH_CPU_SPEED_BEFORE $v" 'BEGIN {
    n = split(t, f, /[^0-9]+/)
    for (i = 1; i <= n; i++) if (f[i] != "") { x = f[i] + 0; if (min == "" || x < min) min = x; if (x > max) max = x }
    if (min > 0 && max > 1.5 * min)
      printf "# THE CPUS CHANGED SPEED: the same loop took up to %.1f x as long in one run as in another; times and rates vary with it, counts do not\n", max / min
  }'
}

# bench_start_peer LOG COMMAND...: run a peer process of a benchmark (an echo
# server, DelayPeer) in the background and wait up to 30 s for its "READY <port>"
# line; sets BENCH_PEER_PID and BENCH_PEER_PORT. bench_stop_peer ends it, and
# does nothing if no peer runs (call it from the runner's EXIT trap too).
BENCH_PEER_PID="" BENCH_PEER_PORT=""
bench_start_peer() {
  local log=$1; shift
  "$@" >"$log" 2>&1 &
  BENCH_PEER_PID=$!
  for _ in $(seq 300); do grep -q '^READY ' "$log" && break
    kill -0 "$BENCH_PEER_PID" 2>/dev/null || { cat "$log" >&2; _guard_die "the peer exited (log: $log)"; }
    sleep 0.1; done
  BENCH_PEER_PORT=$(awk '/^READY/ {print $2; exit}' "$log")
  [[ -n $BENCH_PEER_PORT ]] || _guard_die "the peer did not start within 30 s (log: $log)"
}
bench_stop_peer() {
  [[ -z $BENCH_PEER_PID ]] || { kill "$BENCH_PEER_PID" 2>/dev/null || true; wait "$BENCH_PEER_PID" 2>/dev/null || true; }
  BENCH_PEER_PID=""
}

# bench_meta_start FILE JAVA COMMAND...: machine, JDK and command for the report
bench_meta_start() {
  local f=$1 java=$2; shift 2
  {
    echo "command=$(bench_shell_words "$@")"
    echo "date_start=$(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "nproc=$(nproc)"
    echo "cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
    echo "kernel=$(uname -srm)"
    echo "memory=$(awk '/^MemTotal:/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
    echo "load_start=$(guard_loadavg)"
    echo "psi_start=$(guard_psi10)"
    echo "cpu_speed_start=$(bench_cpu_speed)"
    echo "java_version=$("$java" -version 2>&1 | head -1)"
    echo "java_runtime=$("$java" -version 2>&1 | sed -n 2p)"
    echo "git=$(git -C "$(dirname "${BASH_SOURCE[0]}")" rev-parse --short HEAD 2>/dev/null || echo none)"
    echo "allow_busy=$GUARD_ALLOW_BUSY"
  } >"$f"
}
# bench_meta_end FILE: load after, and whether any check found the machine busy
bench_meta_end() {
  {
    echo "date_end=$(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "load_end=$(guard_loadavg)"
    echo "psi_end=$(guard_psi10)"
    echo "cpu_speed_end=$(bench_cpu_speed)"
    echo "machine_busy=$GUARD_BUSY_SEEN"
    echo "busy_checks=$GUARD_BUSY_COUNT"
    echo "busy_notes=$GUARD_BUSY_NOTES$( (( GUARD_BUSY_COUNT > 3 )) && echo " | ... busy at $((GUARD_BUSY_COUNT - 3)) more checks")"
  } >>"$1"
}

# bench_check_variants VJDK NAME...: each variant is named once, and each entry
# of the associative array VJDK (variant -> JDK dir, from --variant-jdk) names a
# variant and a JDK with bin/java. Dies otherwise.
bench_check_variants() {
  local -n _vjdk=$1; shift
  local -A seen=(); local n
  for n in "$@"; do [[ -z ${seen[$n]:-} ]] || _guard_die "--variant $n given twice"; seen[$n]=1; done
  for n in "${!_vjdk[@]}"; do
    [[ -n ${seen[$n]:-} ]] || _guard_die "--variant-jdk $n: no --variant named $n"
    [[ -x ${_vjdk[$n]}/bin/java ]] || _guard_die "--variant-jdk $n=${_vjdk[$n]}: no bin/java there (build it, or fix the path)"
  done
}
