#!/usr/bin/env bash
# How long the single connection's threads wait for a CPU: Latency.java (one
# virtual-thread client, 1-byte round trips, the Selector echo server on a
# platform thread; --busy-task-us keeps the carriers busy meanwhile) under a
# system-wide perf record of sched:sched_wakeup and sched:sched_switch over the
# timed round trips; per role of the JVM's threads, the wait from wakeup to
# running and the preemptions per round trip, and per run the share of the echo
# server's wakeups onto the waker's CPU beside the run's p50 (wakeup-delay.py). Variants
# alternate A B A B. The trace slows the round trips: read the waits, not the
# latencies, from it.
set -euo pipefail
ME=${0##*/}
HERE=$(cd "$(dirname "$0")" && pwd)

usage() {
  cat <<EOF
Usage: bench/pingpong/$ME --jdk DIR [options]

Options (defaults in brackets):
  --jdk DIR              JDK under test
  --variant NAME='OPTS'  a variant and its JVM options; repeatable; the first is
                         the baseline [UPSTREAM='' MODE4='-Djdk.pollerMode=4']
  --pairs N              runs of every variant, alternating [5]
  --round-trips N        traced round trips per run [50000]
  --warmup N             untraced round trips before them [50000]
  --busy-task-us US      keep the carriers busy with US-µs virtual-thread tasks [100]
  --jvm-args "OPTS"      JVM options for every variant
                         [-Djdk.virtualThreadScheduler.parallelism=2]
  --allow-busy           run even if the machine is busy (the output says so)
  -h, --help             this text
EOF
}

jdk="" pairs=5 rt=50000 warmup=50000 busy_us=100 allow_busy=${ALLOW_BUSY:-0}
names=() opts=() common=(-Djdk.virtualThreadScheduler.parallelism=2)
need() { [[ $# -ge 2 && -n $2 ]] || { echo "$ME: error: option $1 needs a value (see --help)" >&2; exit 1; }; }
die() { echo "$ME: error: $*" >&2; exit 1; }
while (( $# )); do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --jdk) need "$@"; jdk=$2; shift 2 ;;
    --variant) need "$@"; [[ $2 =~ ^[A-Za-z][A-Za-z0-9_]*= ]] || die "--variant needs NAME='JVM options', got '$2'"
               names+=("${2%%=*}"); opts+=("${2#*=}"); shift 2 ;;
    --pairs) need "$@"; pairs=$2; shift 2 ;;
    --round-trips) need "$@"; rt=$2; shift 2 ;;
    --warmup) need "$@"; warmup=$2; shift 2 ;;
    --busy-task-us) need "$@"; busy_us=$2; shift 2 ;;
    --jvm-args) need "$@"; read -r -a common <<<"$2"; shift 2 ;;
    --allow-busy) allow_busy=1; shift ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ -n $jdk ]] || { usage >&2; die "the JDK under test is required (--jdk DIR)"; }
[[ -x $jdk/bin/java && -x $jdk/bin/javac ]] || die "--jdk $jdk is not a JDK (bin/java and bin/javac are needed)"
for n in "$pairs" "$rt"; do
  [[ $n =~ ^[0-9]+$ && $n -ge 1 ]] || die "--pairs and --round-trips must be whole numbers >= 1, got '$n'"
done
for n in "$warmup" "$busy_us"; do
  [[ $n =~ ^[0-9]+$ ]] || die "--warmup and --busy-task-us must be whole numbers, got '$n'"
done
if (( ${#names[@]} == 0 )); then names=(UPSTREAM MODE4); opts=("" "-Djdk.pollerMode=4"); fi
command -v perf >/dev/null || die "perf is missing: apt-get install linux-perf"
[[ $(perf list 'sched:sched_wakeup' 2>/dev/null) == *sched_wakeup* ]] ||
  die "perf cannot see the tracepoint sched:sched_wakeup (run as root, or lower /proc/sys/kernel/perf_event_paranoid)"
(( pairs >= 5 )) || echo "$ME: warning: --pairs $pairs is below the 5 pairs the method asks for" >&2
GUARD_NAME=$ME
. "$HERE/../lib/guard.sh"
guard_init "$ME" "$allow_busy"
guard_check start "the first run"
guard_lock
work=$(mktemp -d); trap 'rm -rf "$work"; guard_unlock' EXIT
"$jdk/bin/javac" -nowarn -d "$work/classes" "$HERE/PingPong.java" "$HERE/Latency.java" "$HERE/WaitingClient.java"
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $ME: jdk=$jdk pairs=$pairs round_trips=$rt warmup=$warmup busy_task_us=$busy_us jvm_args=${common[*]}"
bench_cpu_speed_line before
first=1
for i in $(seq 1 "$pairs"); do
  for v in "${!names[@]}"; do
    if (( first )); then first=0; else guard_check between "${names[$v]}, pair $i"; fi
    load0=$(cut -d' ' -f1 /proc/loadavg)
    rm -f "$work/ctl" "$work/ack"; mkfifo "$work/ctl" "$work/ack"
    # Latency enables the record after its warm-up and disables it after the last round trip
    # shellcheck disable=SC2206
    perf record -q -a -o "$work/perf.data" -e sched:sched_wakeup,sched:sched_switch -D -1 \
      --control "fifo:$work/ctl,$work/ack" -- \
      "$jdk/bin/java" ${opts[$v]} "${common[@]}" -cp "$work/classes" Latency "$rt" "$warmup" \
      "$work/ctl" "$work/ack" "$busy_us" > "$work/run" 2>&1 ||
      { cat "$work/run" >&2; die "${names[$v]}, pair $i failed"; }
    grep -q "^round trips: $rt\$" "$work/run" || { cat "$work/run" >&2; die "${names[$v]}, pair $i did not report its round trips"; }
    p50=$(awk '/^p50 us:/ {print $3}' "$work/run")
    perf script -i "$work/perf.data" --ns -F pid,tid,cpu,time,event,trace 2>/dev/null |
      python3 "$HERE/wakeup-delay.py" --label "${names[$v]} $i $rt $load0 $(cut -d' ' -f1 /proc/loadavg)" --p50 "${p50:-nan}" |
      tee -a "$work/all"
  done
done
bench_cpu_speed_line after
[[ $GUARD_BUSY_SEEN == 1 ]] && echo "MEASURED ON A BUSY MACHINE (--allow-busy): $GUARD_BUSY_NOTES"
python3 "$HERE/wakeup-delay.py" --summary "${names[0]}" < "$work/all"
