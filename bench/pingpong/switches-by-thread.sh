#!/usr/bin/env bash
# Where the context switches of the ping-pong go: PingPong.java (N virtual-thread
# clients, the Selector echo server on a platform thread) under
# perf record -e sched:sched_switch; each switch-out of a JVM thread is counted by
# the thread's role (carrier, echo server, poller thread, other JVM threads) and
# kind (slept: it blocked; preempted: it was runnable), per round trip. Variants
# alternate A B A B; whole process, as syscalls-per-round-trip.sh counts it
# (with --echo-peer process, the echo server runs in a JVM of its own, not recorded).
# With --sites, also where the carriers sleep and what wakes them: every sleep and
# wakeup of a carrier with its call stack (frame pointers, the JIT's perf map, and
# uprobes on libjvm's Unsafe_Park and Unsafe_Unpark, removed at exit), by site; with
# --placement (or --sites), where wakeups put the threads and whether another CPU idled.
set -euo pipefail
ME=${0##*/}
HERE=$(cd "$(dirname "$0")" && pwd)

usage() {
  cat <<EOF
Usage: bench/pingpong/$ME --jdk DIR [options]

Options (defaults in brackets):
  --jdk DIR              JDK under test
  --variant NAME='OPTS'  a variant and its JVM options; repeatable [UPSTREAM=''
                         MODE4='-Djdk.pollerMode=4']
  --pairs N              runs of every variant, alternating [3]
  --clients N            virtual-thread clients [100]
  --round-trips N        round trips per client [10000]
  --jvm-args "OPTS"      JVM options for every variant
                         [-Djdk.virtualThreadScheduler.parallelism=2]
  --echo-peer WHERE      the echo server in the JVM under test (jvm) or in a JVM
                         of its own on --peer-jdk, not recorded (process), or so
                         on CPU 1 with the JVM under test on CPU 0 (pinned) [jvm]
  --peer-jdk DIR         JDK for --echo-peer process or pinned [/usr/lib/jvm/temurin-25-jdk-amd64]
  --warmup-round-trips N untimed round trips per client first; perf then records
                         the timed round trips only [0: the whole run]
  --sites                also count the carriers' sleeps and wakeups by site (a
                         second table). The JVM then runs with frame pointers, a
                         perf map and ForkJoinPool's carrier-polling methods not
                         inlined (so that a site names its caller): counts by site,
                         not a run to time; the table also gives --placement's rows
  --placement            also record sched_wakeup, and every CPU's switches (no call
                         stacks; only the JVM's threads are counted), and count where
                         the wakeups of carriers, the echo server and poller threads
                         put them (onto the waker's CPU or another, with another CPU
                         idle or not), and their preemptions (another CPU idle or not)
  --allow-busy           run even if the machine is busy (the output says so)
  -h, --help             this text
EOF
}

jdk="" pairs=3 clients=100 rt=10000 allow_busy=${ALLOW_BUSY:-0} echo_peer=jvm peer_jdk=/usr/lib/jvm/temurin-25-jdk-amd64
warmup_rt=0 by_site=0 by_place=0
names=() opts=() common=(-Djdk.virtualThreadScheduler.parallelism=2)
need() { [[ $# -ge 2 && -n $2 ]] || { echo "$ME: error: option $1 needs a value (see --help)" >&2; exit 1; }; }
die() { echo "$ME: error: $*" >&2; exit 1; }
while (( $# )); do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --jdk) need "$@"; jdk=$2; shift 2 ;;
    --variant) need "$@"; [[ $2 == *=* ]] || die "--variant needs NAME='JVM options', got '$2'"
               names+=("${2%%=*}"); opts+=("${2#*=}"); shift 2 ;;
    --pairs) need "$@"; pairs=$2; shift 2 ;;
    --clients) need "$@"; clients=$2; shift 2 ;;
    --round-trips) need "$@"; rt=$2; shift 2 ;;
    --jvm-args) need "$@"; read -r -a common <<<"$2"; shift 2 ;;
    --allow-busy) allow_busy=1; shift ;;
    --echo-peer) need "$@"; echo_peer=$2; shift 2 ;;
    --peer-jdk) need "$@"; peer_jdk=$2; shift 2 ;;
    --warmup-round-trips) need "$@"; warmup_rt=$2; shift 2 ;;
    --sites) by_site=1; shift ;;
    --placement) by_place=1; shift ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ -n $jdk ]] || { usage >&2; die "the JDK under test is required (--jdk DIR)"; }
[[ -x $jdk/bin/java && -x $jdk/bin/javac ]] || die "--jdk $jdk is not a JDK (bin/java and bin/javac are needed)"
for n in "$pairs" "$clients" "$rt"; do
  [[ $n =~ ^[0-9]+$ && $n -ge 1 ]] || die "--pairs, --clients and --round-trips must be whole numbers >= 1, got '$n'"
done
[[ $warmup_rt =~ ^[0-9]+$ ]] || die "--warmup-round-trips must be a whole number >= 0, got '$warmup_rt'"
[[ $echo_peer == jvm || $echo_peer == process || $echo_peer == pinned ]] \
  || die "--echo-peer must be jvm, process or pinned, got '$echo_peer'"
[[ $echo_peer != pinned ]] || { taskset -c 0 true 2>/dev/null && taskset -c 1 true 2>/dev/null; } \
  || die "--echo-peer pinned needs taskset (util-linux) and CPUs 0 and 1"

[[ $echo_peer == jvm || -x $peer_jdk/bin/java ]] || die "--peer-jdk $peer_jdk has no bin/java (install Temurin 25 or pass --peer-jdk)"
if (( ${#names[@]} == 0 )); then names=(UPSTREAM MODE4); opts=("" "-Djdk.pollerMode=4"); fi
command -v perf >/dev/null || die "perf is missing: apt-get install linux-perf"
[[ $(perf list 'sched:sched_switch' 2>/dev/null) == *sched_switch* ]] ||
  die "perf cannot see the tracepoint sched:sched_switch (run as root, or lower /proc/sys/kernel/perf_event_paranoid)"
events=(-e sched:sched_switch) site_opts=() libjvm=""
if (( by_site )); then
  [[ -f $jdk/lib/server/libjvm.so ]] || die "--jdk $jdk has no lib/server/libjvm.so (--sites probes it)"
  libjvm=$(readlink -f "$jdk/lib/server/libjvm.so")
  [[ $(nm "$libjvm" 2>/dev/null | grep -c ' Unsafe_Unpark$') -ge 1 ]] ||
    die "$libjvm has no symbol Unsafe_Unpark (--sites needs a libjvm with its symbol table; binutils' nm reads it)"
  events+=(-a -e sched:sched_wakeup -e probe_libjvm:etjdk_park -e probe_libjvm:etjdk_unpark --call-graph fp)
  site_opts=(-XX:+PreserveFramePointer -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit -XX:CompileCommand=quiet)
  for m in ::signalWork ::signalIdleWorker ::awaitIO ::awaitWork ::deactivate ::carrierPoll ::tryCompensate \
           ::poolSubmit '$WorkQueue::pollIO' '$WorkQueue::push'; do
    site_opts+=("-XX:CompileCommand=dontinline,java.util.concurrent.ForkJoinPool$m")
  done
elif (( by_place )); then
  events+=(-a -e sched:sched_wakeup)  # every CPU: whether one is idle needs its switches
fi
GUARD_NAME=$ME
. "$HERE/../lib/guard.sh"
guard_init "$ME" "$allow_busy"
guard_check start "the first run"
guard_lock
probes_added=0
remove_probes() { (( probes_added )) && perf probe -q -d 'probe_libjvm:etjdk_*' 2>/dev/null; probes_added=0; }
# the JIT's perf map of this run's JVM (-XX:+DumpPerfMapAtExit, --sites only): PingPong prints its pid first
remove_perf_map() {
  local pid; pid=$(awk '/^pid: [0-9]+$/ {print $2; exit}' "$work/run" 2>/dev/null)
  [[ -z $pid ]] || rm -f "/tmp/perf-$pid.map"
}
work=$(mktemp -d); trap 'bench_stop_peer; remove_probes; remove_perf_map; rm -rf "$work"; guard_unlock' EXIT
if (( by_site )); then
  perf probe -q -d 'probe_libjvm:etjdk_*' 2>/dev/null || true   # left by a killed run
  perf probe -q -x "$libjvm" -a etjdk_park=Unsafe_Park -a etjdk_unpark=Unsafe_Unpark ||
    die "perf probe could not put uprobes on $libjvm (run as root, with tracefs mounted and a kernel with CONFIG_UPROBE_EVENTS)"
  probes_added=1
fi
"$jdk/bin/javac" -nowarn -d "$work/classes" "$HERE/PingPong.java" "$HERE/WaitingClient.java"
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $ME: jdk=$jdk pairs=$pairs clients=$clients round_trips=$rt warmup_round_trips=$warmup_rt jvm_args=${common[*]} echo_peer=$echo_peer sites=$by_site placement=$by_place"
bench_cpu_speed_line before
first=1
for i in $(seq 1 "$pairs"); do
  for v in "${!names[@]}"; do
    if (( first )); then first=0; else guard_check between "${names[$v]}, pair $i"; fi
    load0=$(cut -d' ' -f1 /proc/loadavg)
    peer_args=() peer_pin=() pin=()
    [[ $echo_peer != pinned ]] || { peer_pin=(taskset -c 1); pin=(taskset -c 0); }
    if [[ $echo_peer != jvm ]]; then
      bench_start_peer "$work/peer.log" "${peer_pin[@]}" "$peer_jdk/bin/java" -XX:+UseSerialGC \
        "$HERE/PingPong.java" --serve
      peer_args=(--port "$BENCH_PEER_PORT")
    fi
    window=()  # with a warm-up, perf records the timed round trips only
    if (( warmup_rt > 0 )); then
      rm -f "$work/ctl" "$work/ack"; mkfifo "$work/ctl" "$work/ack"
      window=(-D -1 --control "fifo:$work/ctl,$work/ack")
      peer_args+=(--warmup "$warmup_rt" --perf-ctl "$work/ctl" --perf-ack "$work/ack")
    fi
    # shellcheck disable=SC2206
    perf record -q -o "$work/perf.data" "${events[@]}" "${window[@]}" -- \
      "${pin[@]}" "$jdk/bin/java" ${opts[$v]} "${common[@]}" "${site_opts[@]}" -cp "$work/classes" PingPong "$clients" "$rt" \
      "${peer_args[@]}" > "$work/run" 2>&1 || { cat "$work/run" >&2; die "${names[$v]}, pair $i failed"; }
    bench_stop_peer
    total=$(awk '/^round trips:/ {print $3}' "$work/run")
    [[ -n $total ]] || { cat "$work/run" >&2; die "${names[$v]}, pair $i printed no round-trip count"; }
    jvm=$(awk '/^pid: [0-9]+$/ {print $2; exit}' "$work/run")
    [[ -n $jvm ]] || { cat "$work/run" >&2; die "${names[$v]}, pair $i printed no pid (PingPong.java prints it first)"; }
    # the JVM's own switch-outs (a system-wide recording has every process's)
    perf script -i "$work/perf.data" --pid "$jvm" -F trace 2>/dev/null |
      python3 "$HERE/switches-by-thread.py" --label "${names[$v]} $i $total $load0 $(cut -d' ' -f1 /proc/loadavg)" |
      tee -a "$work/all"
    if (( by_site )); then
      perf script -i "$work/perf.data" -F comm,pid,tid,cpu,time,event,trace,ip,sym,dso 2>/dev/null |
        python3 "$HERE/switches-by-thread.py" --sites-label "${names[$v]} $i $total $jvm" >> "$work/sites"
      remove_perf_map   # read by perf script just now
    elif (( by_place )); then
      perf script -i "$work/perf.data" -F comm,pid,tid,cpu,time,event,trace 2>/dev/null |
        python3 "$HERE/switches-by-thread.py" --placement-label "${names[$v]} $i $total $jvm" >> "$work/sites"
    fi
  done
done
bench_cpu_speed_line after
[[ $GUARD_BUSY_SEEN == 1 ]] && echo "MEASURED ON A BUSY MACHINE (--allow-busy): $GUARD_BUSY_NOTES"
python3 "$HERE/switches-by-thread.py" --summary "${names[0]}" < "$work/all"
if (( by_site || by_place )); then
  echo
  if (( by_site )); then
    echo "Carriers' sleeps and wakeups by site, wakeup placement and preemptions, per round trip (medians [min–max] over the runs):"
  else
    echo "Wakeup placement and preemptions, per round trip (medians [min–max] over the runs):"
  fi
  python3 "$HERE/switches-by-thread.py" --sites-summary < "$work/sites"
fi
