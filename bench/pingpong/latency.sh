#!/usr/bin/env bash
# Single-connection latency: Latency.java (1 virtual-thread client, 1 byte) against
# PingPong's Selector echo server in the same JVM; variants alternate A B C A B C;
# per run the percentiles, and, from perf stat, context switches and CPU per round
# trip (with --count-syscalls also read, write, epoll_ctl, epoll_wait and futex calls,
# in extra columns at the end), and in a '# timed' line how long the timed round trips
# took and the CPU the JIT compiler and GC threads used meanwhile; then medians
# [min-max] and per-pair ratios to the first variant.
set -euo pipefail
ME=${0##*/}
HERE=$(cd "$(dirname "$0")" && pwd)

usage() {
  cat <<EOF
Usage: bench/pingpong/$ME --jdk DIR [options]
       bench/pingpong/$ME JDK [pairs] [roundTrips] [--variant NAME='OPTS' ...] [-- JVM options]

Options (defaults in brackets):
  --jdk DIR              JDK under test
  --variant NAME='OPTS'  a variant: its name and JVM options; repeatable; the first is
                         the baseline of the ratios [ONESHOT='-Djdk.pollerEdgeTriggered=false'
                         ET='-Djdk.pollerEdgeTriggered=true']
  --variant-jdk NAME=DIR run variant NAME with the JDK in DIR (e.g. pristine upstream)
  --variant-c NAME=MODE  a variant that runs the same exchange in C, no JVM (floor.c;
                         MODE epoll, read or spin): the machine's floor; needs gcc
  --pairs N              runs of every variant, alternating [5]
  --round-trips N        timed round trips per run [200000]
  --timed-s S            time the round trips of at least S seconds instead (whole
                         batches of 1,000, so up to one batch more), however many that
                         is: a fixed count times a fast variant over a fraction of a
                         second of a CPU whose speed drifts; not with --round-trips or
                         --variant-c [0: off]
  --warmup N             untimed round trips before them [50000]
  --warmup-s S           and go on warming up until S seconds have passed since the
                         client connected, so that every variant's timed round trips
                         start as long after its JVM did (a variant whose round trips
                         are fast does its N while the JIT still compiles) [0]
  --jvm-args "OPTS"      JVM options for every variant (also: after --)
  --busy-task-us US      keep the carriers busy meanwhile: a steady stream of
                         virtual threads spinning US µs each, 2 x parallelism + 2
                         in flight (the busy-carriers cell) [0: none]
  --idle-connections N   N more connections open meanwhile, each with a virtual
                         thread parked in a read, as in a server with many
                         connections (more registered than carriers) [0]
  --long-task-us US      a second connection's reader runs US µs of CPU for every
                         byte, sent every --long-task-every-ms: a carrier that polls
                         it runs that task while the client's replies arrive (the
                         long-task cell) [0: none]
  --long-task-every-ms MS  the pace of those bytes [50]
  --count-syscalls       also count read, write, epoll_ctl, epoll_wait and futex
                         calls per round trip (whole process, syscall tracepoints;
                         exact counts: a run's p50 is then no result of its own)
  --max-cause            after every JVM run, say whether its slowest round trips
                         (3) overlap a VM pause: the JVM logs its safepoints
                         (-Xlog:safepoint) and max-in-pause.py sets them beside
                         each other; the lines start with '# max'
  --allow-busy           run even if the machine is busy (the output says so)
  -h, --help             this text
EOF
}

jdk="" pairs=5 rt=200000 rt_given=0 timed_s=0 warmup=50000 warmup_s=0 busy_us=0 idle_conns=0 long_us=0 long_every_ms=50 count_syscalls=0 max_cause=0 allow_busy=${ALLOW_BUSY:-0}
names=() opts=() common=()
declare -A vjdk=() vc=()
need() { [[ $# -ge 2 && -n $2 ]] || { echo "$ME: error: option $1 needs a value (see --help)" >&2; exit 1; }; }
die() { echo "$ME: error: $*" >&2; exit 1; }
positional=0
while (( $# )); do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --jdk) need "$@"; jdk=$2; shift 2 ;;
    --variant) need "$@"; [[ $2 == *=* ]] || die "--variant needs NAME='JVM options', got '$2'"
               names+=("${2%%=*}"); opts+=("${2#*=}"); shift 2 ;;
    --variant-jdk) need "$@"; [[ $2 =~ ^[A-Za-z][A-Za-z0-9_-]*=. ]] || die "--variant-jdk needs NAME=DIR, got '$2'"
                   vjdk[${2%%=*}]=${2#*=}; shift 2 ;;
    --variant-c) need "$@"; [[ $2 =~ ^[A-Za-z][A-Za-z0-9_-]*=(epoll|read|spin)$ ]] ||
                   die "--variant-c needs NAME=epoll|read|spin, got '$2'"
                 names+=("${2%%=*}"); opts+=(""); vc[${2%%=*}]=${2#*=}; shift 2 ;;
    --pairs) need "$@"; pairs=$2; shift 2 ;;
    --round-trips) need "$@"; rt=$2; rt_given=1; shift 2 ;;
    --timed-s) need "$@"; timed_s=$2; shift 2 ;;
    --warmup) need "$@"; warmup=$2; shift 2 ;;
    --warmup-s) need "$@"; warmup_s=$2; shift 2 ;;
    --busy-task-us) need "$@"; busy_us=$2; shift 2 ;;
    --idle-connections) need "$@"; idle_conns=$2; shift 2 ;;
    --long-task-us) need "$@"; long_us=$2; shift 2 ;;
    --long-task-every-ms) need "$@"; long_every_ms=$2; shift 2 ;;
    --jvm-args) need "$@"; read -r -a extra <<<"$2"; common+=("${extra[@]}"); shift 2 ;;
    --count-syscalls) count_syscalls=1; shift ;;
    --max-cause) max_cause=1; shift ;;
    --allow-busy) allow_busy=1; shift ;;
    --) shift; common+=("$@"); break ;;
    --*) die "unknown option '$1' (see --help)" ;;
    *) # the old positional form: JDK [pairs] [roundTrips]
       case $positional in
         0) jdk=$1 ;; 1) pairs=$1 ;; 2) rt=$1; rt_given=1 ;; *) die "unexpected argument '$1' (see --help)" ;;
       esac
       positional=$((positional + 1)); shift ;;
  esac
done
[[ -n $jdk ]] || { usage >&2; die "the JDK under test is required (--jdk DIR)"; }
[[ $pairs =~ ^[0-9]+$ && $pairs -ge 1 ]] || die "--pairs must be a whole number >= 1, got '$pairs'"
[[ $rt =~ ^[0-9]+$ && $rt -ge 100 ]] || die "--round-trips must be a whole number >= 100, got '$rt'"
[[ $warmup =~ ^[0-9]+$ ]] || die "--warmup must be a whole number of round trips, got '$warmup'"
# millis OPTION S: S seconds (up to 300) in whole milliseconds, rounded
millis() {
  [[ $2 =~ ^[0-9]+([.][0-9]+)?$ ]] && awk -v s="$2" 'BEGIN { exit !(s <= 300) }' ||
    die "$1 must be a number of seconds up to 300, got '$2'"
  awk -v s="$2" 'BEGIN { printf "%.0f", s * 1000 }'
}
warmup_ms=$(millis --warmup-s "$warmup_s") || exit 1
timed_ms=$(millis --timed-s "$timed_s") || exit 1
(( timed_ms == 0 || ! rt_given )) || die "--timed-s and --round-trips both set the timed part: give one of them"
[[ $timed_s =~ ^0*([.]0*)?$ ]] || (( timed_ms > 0 )) || die "--timed-s $timed_s is under a millisecond"
[[ $busy_us =~ ^[0-9]+$ ]] || die "--busy-task-us must be a whole number of microseconds, got '$busy_us'"
[[ $idle_conns =~ ^[0-9]+$ ]] || die "--idle-connections must be a whole number, got '$idle_conns'"
[[ $long_us =~ ^[0-9]+$ ]] || die "--long-task-us must be a whole number of microseconds, got '$long_us'"
[[ $long_every_ms =~ ^[0-9]+$ && $long_every_ms -ge 1 ]] || die "--long-task-every-ms must be a whole number of milliseconds >= 1, got '$long_every_ms'"
[[ -x $jdk/bin/java && -x $jdk/bin/javac ]] || die "--jdk $jdk is not a JDK (bin/java and bin/javac are needed)"
if (( ${#names[@]} == 0 )); then
  names=(ONESHOT ET); opts=("-Djdk.pollerEdgeTriggered=false" "-Djdk.pollerEdgeTriggered=true")
fi
GUARD_NAME=$ME
. "$HERE/../lib/guard.sh"
bench_check_variants vjdk "${names[@]}"
command -v perf >/dev/null || die "perf is missing: apt-get install linux-perf"
counted=""  # the calls counted per round trip (--count-syscalls)
(( count_syscalls )) && counted="read write epoll_ctl epoll_wait futex"
events=task-clock,context-switches
for c in $counted; do events+=,syscalls:sys_enter_$c; done
[[ -z $counted ]] || perf stat -x, -e "syscalls:sys_enter_read" -- true >/dev/null 2>&1 ||
  die "--count-syscalls: perf cannot open the syscall tracepoints (run as root or lower /proc/sys/kernel/perf_event_paranoid, and mount tracefs: mount -t tracefs nodev /sys/kernel/tracing)"
(( ${#vc[@]} == 0 || busy_us + long_us + idle_conns == 0 )) || die "--variant-c runs no carriers: drop --busy-task-us, --idle-connections, --long-task-us or the C variant"
(( ${#vc[@]} == 0 || timed_ms == 0 )) || die "--variant-c (floor.c) times a count of round trips: drop --timed-s or the C variant"
(( ${#vc[@]} == 0 )) || command -v gcc >/dev/null || die "--variant-c needs gcc: apt-get install gcc"
(( pairs >= 5 )) || echo "$ME: warning: --pairs $pairs is below the 5 pairs the method asks for" >&2

guard_init "$ME" "$allow_busy"
guard_check start "the first run"
guard_lock
work=$(mktemp -d); trap 'rm -rf "$work"; guard_unlock' EXIT
: >"$work/max-in-pause"; : >"$work/max-runs"
"$jdk/bin/javac" -nowarn -d "$work/classes" "$HERE/PingPong.java" "$HERE/Latency.java" "$HERE/WaitingClient.java"
(( ${#vc[@]} == 0 )) || gcc -O2 -Wall -pthread -o "$work/floor" "$HERE/floor.c"
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $ME: jdk=$jdk pairs=$pairs round_trips=$( (( timed_ms )) && echo "as-many-as-fit" || echo "$rt") timed_s=$timed_s warmup=$warmup warmup_s=$warmup_s busy_task_us=$busy_us idle_connections=$idle_conns long_task_us=$long_us long_task_every_ms=$long_every_ms jvm_args=${common[*]:-}"
bench_cpu_speed_line before
for n in "${!vjdk[@]}"; do echo "# variant $n runs $(cd "${vjdk[$n]}" && pwd)"; done
for n in "${!vc[@]}"; do echo "# variant $n runs bench/pingpong/floor.c ${vc[$n]} (C, no JVM)"; done
header="variant run p50_us p90_us p99_us p99.9_us max_us cs_per_rt cpu_us_per_rt load1_before load1_after"
for c in $counted; do header+=" ${c}_per_rt"; done
echo "$header"
first=1
for i in $(seq 1 "$pairs"); do
  for v in "${!names[@]}"; do
    if (( first )); then first=0; else guard_check between "${names[$v]}, pair $i"; fi
    java=${vjdk[${names[$v]}]:-$jdk}/bin/java
    load0=$(cut -d' ' -f1 /proc/loadavg)
    rm -f "$work/ctl" "$work/ack"; mkfifo "$work/ctl" "$work/ack"
    # perf counts the timed round trips only (Latency enables it after the warm-up)
    if [[ -n ${vc[${names[$v]}]:-} ]]; then
      cmd=("$work/floor" "${vc[${names[$v]}]}" "$rt" "$warmup" "$work/ctl" "$work/ack")
    else
      # shellcheck disable=SC2206
      diag=("-DLatency.warmupMillis=$warmup_ms" "-DLatency.timedMillis=$timed_ms" "-DLatency.idleConnections=$idle_conns")
      (( max_cause )) && diag+=(-DLatency.slowest=3 "-Xlog:safepoint:file=$work/safepoint.log:timenanos:filecount=0")
      rm -f "$work/safepoint.log"
      cmd=("$java" ${opts[$v]} "${common[@]}" "${diag[@]}" -cp "$work/classes" Latency "$rt" "$warmup" "$work/ctl" "$work/ack" "$busy_us" "$long_us" "$long_every_ms")
    fi
    perf stat -x, -o "$work/perf.csv" -e "$events" -D -1 \
      --control "fifo:$work/ctl,$work/ack" -- "${cmd[@]}" \
      > "$work/run" 2>&1 || { cat "$work/run" >&2; die "${names[$v]}, pair $i failed"; }
    # per round trip: the count the program made (with --timed-s it varies per run)
    awk -v v="${names[$v]}" -v i="$i" -v rt="$rt" -v l0="$load0" -v l1="$(cut -d' ' -f1 /proc/loadavg)" \
        -v perf="$work/perf.csv" -v syscalls="$counted" '
      /^round trips:/ {rt=$3}
      /^p50 us:/ {a=$3} /^p90 us:/ {b=$3} /^p99 us:/ {c=$3} /^p99.9 us:/ {d=$3} /^max us:/ {e=$3}
      END {
        FS=","
        while ((getline line < perf) > 0) {
          split(line, f, ",")
          if (f[3] == "task-clock") cpu = f[1]          # ms
          if (f[3] == "context-switches") cs = f[1]
          if (f[3] ~ /^syscalls:sys_enter_/) { sub(/^syscalls:sys_enter_/, "", f[3]); calls[f[3]] = f[1] }
        }
        printf "%s %d %s %s %s %s %s %.3f %.2f %s %s", v, i, a, b, c, d, e, cs / rt, cpu * 1000 / rt, l0, l1
        n = split(syscalls, names, " ")
        for (k = 1; k <= n; k++) printf " %.3f", calls[names[k]] / rt
        printf "\n"
      }' "$work/run" | tee -a "$work/all"
    # what else used the CPUs while the timed round trips ran (not for the C variant)
    awk -v v="${names[$v]}" -v i="$i" '
      /^round trips:/ {r=$3} /^warmup round trips:/ {n=$4} /^warmup ms:/ {w=$3} /^timed ms:/ {t=$3}
      /^compiler cpu ms in timed:/ {c=$6} /^gc cpu ms in timed:/ {g=$6}
      /^idle connections still read:/ {ic=$5}
      END { if (t != "") printf "# timed %s run %d: %s round trips in %s ms, after %s warm-up round trips in %s ms; JIT compiler threads %s ms on a CPU meanwhile, GC threads %s ms\n", v, i, r, t, n, w, c, g
            if (ic != "") printf "# idle connections %s run %d: %s still in their reads at the end\n", v, i, ic }' "$work/run"
    if (( max_cause )) && [[ -z ${vc[${names[$v]}]:-} ]]; then
      python3 "$HERE/max-in-pause.py" "$work/run" "$work/safepoint.log" > "$work/cause" ||
        die "${names[$v]}, pair $i: max-in-pause.py failed"
      sed "s/^/# max ${names[$v]} run $i: /" "$work/cause"
      head -n 1 "$work/cause" | grep -q ': in safepoint' && echo "${names[$v]}" >> "$work/max-in-pause"
      echo "${names[$v]}" >> "$work/max-runs"
    fi
  done
done
bench_cpu_speed_line after
if (( max_cause )); then
  for n in "${names[@]}"; do
    [[ -n ${vc[$n]:-} ]] && continue
    echo "# max in a VM pause: $n $(grep -cx "$n" "$work/max-in-pause" || true) of $(grep -cx "$n" "$work/max-runs") runs"
  done
fi
[[ $GUARD_BUSY_SEEN == 1 ]] && echo "MEASURED ON A BUSY MACHINE (--allow-busy): $GUARD_BUSY_NOTES"
python3 - "$work/all" "${names[0]}" "$counted" <<'PY'
import sys, statistics as st
rows = [l.split() for l in open(sys.argv[1]) if not l.startswith(('variant', '#'))]
base = sys.argv[2]
cols = ['p50 µs', 'p90 µs', 'p99 µs', 'p99.9 µs', 'max µs', 'cs/rt', 'CPU µs/rt']
cols += [c + '/rt' for c in sys.argv[3].split()]  # --count-syscalls, after the load columns
by = {}
for r in rows:
    by.setdefault(r[0], {})[int(r[1])] = [float(x) for x in r[2:9] + r[11:]]
print('\n| variant | ' + ' | '.join(cols) + ' |')
print('|---' * (len(cols) + 1) + '|')
for v, runs in by.items():
    print('| %s | ' % v + ' | '.join(('%.3f [%.3f–%.3f]' if k >= 7 else '%.2f [%.2f–%.2f]')
                                   % (st.median(x), min(x), max(x))
                                   for k, x in enumerate(zip(*runs.values()))) + ' |')
for v, runs in by.items():
    if v == base:
        continue
    rat = [[a / b if b else float('nan') for a, b in zip(runs[i], by[base][i])] for i in runs if i in by[base]]
    print('| **%s ÷ %s** (per pair) | ' % (v, base) + ' | '.join(
        '%.3f [%.3f–%.3f]' % (st.median(x), min(x), max(x)) for x in zip(*rat)) + ' |')
PY
