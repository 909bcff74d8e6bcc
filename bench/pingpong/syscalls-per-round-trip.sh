#!/usr/bin/env bash
# syscalls-per-round-trip.sh: syscalls, context switches and CPU per round trip
# under perf stat, for JVM-option variants (ONESHOT, ET, ...) alternating
# A B A B in pairs. Two cells:
#  - ping-pong (default): PingPong.java, N virtual-thread clients doing 1-byte
#    blocking round trips against a one-thread Selector echo server in the
#    same JVM (or, with --echo-peer process, in a JVM of its own); the whole
#    client process counted, or, with --warmup-round-trips, its timed round
#    trips only.
#  - waiting client (--waiting-client, or waiting-client.sh): the JVM under
#    test on one CPU, N virtual-thread clients against DelayPeer.java in its
#    own process on the other CPU, which answers after a fixed delay; perf
#    counts the client JVM over the measured window only.
#  - compute (--compute): ComputeTasks.java, fork/join trees of CPU-bound
#    virtual threads and no I/O at all; perf counts the measured window only.
#  - bulk (--bulk): the JVM under test on one CPU, N virtual threads reading
#    what BulkPeer.java streams to them from its own process on the other CPU;
#    counts per MiB read, over the measured window only.
# Old usage still works: syscalls-per-round-trip.sh JDK [pairs] [clients]
# [roundTripsPerClient] [extra JVM options...]. --help lists the options.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
# shellcheck source=../lib/guard.sh
. "$TOP/bench/lib/guard.sh"
EVENTS=task-clock,context-switches,syscalls:sys_enter_epoll_ctl,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_read,syscalls:sys_enter_recvmsg,syscalls:sys_enter_write,raw_syscalls:sys_enter
ME=${ET_PINGPONG_NAME:-syscalls-per-round-trip.sh}
die() { printf '%s\n' "$ME: error: $*" >&2; exit 1; }
say() { printf '%s\n' "$ME: $*" >&2; }

usage() {
  cat <<'EOF'
Usage: bench/pingpong/syscalls-per-round-trip.sh [options] JDK [pairs] [clients] [roundTripsPerClient] [JVM options...]
       bench/pingpong/syscalls-per-round-trip.sh --jdk DIR [options]
       bench/pingpong/waiting-client.sh --jdk DIR [options]    (= --waiting-client)
       bench/pingpong/syscalls-per-round-trip.sh --compute --jdk DIR [options]
       bench/pingpong/syscalls-per-round-trip.sh --bulk --jdk DIR [options]

Options (defaults in brackets):
  --jdk DIR              JDK under test (or the first positional argument)
  --variant NAME='OPTS'  a variant: its name and JVM options; repeatable. The first
                         is the baseline of the ratios. [ONESHOT='-Djdk.pollerEdgeTriggered=false'
                         ET='-Djdk.pollerEdgeTriggered=true']
  --variant-jdk NAME=DIR run variant NAME with the JDK in DIR instead of --jdk
                         (e.g. a pristine upstream build as the baseline)
  --pairs N              runs of every variant, alternating A B A B [5]
  --clients N            virtual-thread clients [100]
  --round-trips N        ping-pong: round trips per client [10000]
  --warmup-round-trips N ping-pong: untimed round trips per client first; perf
                         then counts the timed round trips only, started by all
                         clients together (steady state: no JVM start-up, no
                         connects, less JIT) [0: the whole process from its start]
  --echo-peer WHERE      ping-pong: the echo server runs in the JVM under test
                         (jvm), or in a process of its own on --peer-jdk, on any
                         CPU, so that perf counts the clients' JVM only (process),
                         or so and pinned to --peer-cpu with the clients' JVM on
                         --client-cpu, as in a 1-CPU container (pinned) [jvm]
  --jvm-args "OPTS"      JVM options for every variant (also: positional after the counts)
  --out FILE.md          also write a Markdown page and FILE.csv beside it
  --allow-busy           run even if the load guard finds the machine busy; every
                         table is then stamped "measured on a busy machine"
  --waiting-client       the waiting-client cell instead of ping-pong:
    --delay-us US        the peer's reply delay [50]
    --delay-dist D       fixed, or exp: each delay drawn from the exponential
                         distribution of mean --delay-us, so that replies to many
                         clients do not come in waves [fixed]
    --size N             request bytes (reply: 1 byte) [1]
    --read-buffer N      the client reads through a BufferedInputStream of N
                         bytes, as client libraries do (its reads of the reply
                         are then short); 0: one-byte reads [0]; in the bulk
                         cell: the size of every read [8192]
    --warmup S           seconds before counting [3]
    --duration S         counted seconds [10]
    --peer-jdk DIR       JDK for DelayPeer, and for the echo server of
                         --echo-peer process [/usr/lib/jvm/temurin-25-jdk-amd64]
    --client-cpu C       CPU of the JVM under test [0]
    --peer-cpu C         CPU of the peer [1]
  --compute              the no-I/O cell: fork/join trees of CPU-bound virtual
                         threads (set the parallelism with --jvm-args
                         "-Djdk.virtualThreadScheduler.parallelism=N"); with
                         --warmup and --duration, and:
    --roots N            trees run at the same time [4]
    --depth N            tree depth: 2^N leaf tasks per tree [10]
    --leaf-iters N       hash steps per leaf task [5000]
  --bulk                 the bulk cell: --clients virtual threads [1 here], each
                         with its own java.net.Socket, read with --read-buffer-byte
                         reads what the peer (BulkPeer.java) streams; with
                         --warmup, --duration, --peer-jdk, --client-cpu,
                         --peer-cpu, and:
    --chunk N            bytes of each of the peer's writes [1024]
    --rate MIBS          the peer writes at MIBS MiB/s per connection, so that a
                         reader that keeps up finds the socket drained after every
                         read; 0: as fast as the connection takes them [0]
  -h, --help             this text

Raw runs (perf CSV, program output) go to build/bench/pingpong/<UTC timestamp>/.
The load guard (bench/README.md) runs before the first run and between runs.
EOF
}

jdk="" pairs=5 clients=100 rt=10000 warmup_rt=0 jvm_args=() out="" allow_busy=0 waiting=0 compute=0 bulk=0 echo_peer=jvm
clients_given=0 read_buffer_given=0 chunk=1024 chunk_given=0 rate=0 rate_given=0
roots=4 depth=10 leaf_iters=5000
delay_us=50 delay_dist=fixed size=1 read_buffer=0 warmup=3 duration=10 peer_jdk=/usr/lib/jvm/temurin-25-jdk-amd64 client_cpu=0 peer_cpu=1
vnames=() vopts=()
declare -A vjdk=()
orig_args=("$@")
# waiting-client.sh adds --waiting-client: record the command as typed
[[ $ME == waiting-client.sh && ${1:-} == --waiting-client ]] && orig_args=("${@:2}")
need() { [[ $# -ge 2 && -n $2 ]] || die "option $1 needs a value (see --help)"; }
while [[ $# -gt 0 ]]; do
  case $1 in
    --jdk) need "$@"; jdk=$2; shift 2 ;;
    --variant)
      need "$@"
      [[ $2 =~ ^[A-Za-z][A-Za-z0-9_-]*= ]] || die "--variant needs NAME='JVM options' (a name of letters, digits, _ or -), got '$2'"
      vnames+=("${2%%=*}"); vopts+=("${2#*=}"); shift 2 ;;
    --variant-jdk)
      need "$@"
      [[ $2 =~ ^[A-Za-z][A-Za-z0-9_-]*=. ]] || die "--variant-jdk needs NAME=DIR, got '$2'"
      vjdk[${2%%=*}]=${2#*=}; shift 2 ;;
    --pairs) need "$@"; pairs=$2; shift 2 ;;
    --clients) need "$@"; clients=$2; clients_given=1; shift 2 ;;
    --round-trips) need "$@"; rt=$2; shift 2 ;;
    --warmup-round-trips) need "$@"; warmup_rt=$2; shift 2 ;;
    --echo-peer) need "$@"; echo_peer=$2; shift 2 ;;
    --jvm-args) need "$@"; read -r -a extra <<<"$2"; jvm_args+=("${extra[@]}"); shift 2 ;;
    --out) need "$@"; out=$2; shift 2 ;;
    --allow-busy) allow_busy=1; shift ;;
    --waiting-client) waiting=1; shift ;;
    --compute) compute=1; shift ;;
    --bulk) bulk=1; shift ;;
    --roots) need "$@"; roots=$2; shift 2 ;;
    --depth) need "$@"; depth=$2; shift 2 ;;
    --leaf-iters) need "$@"; leaf_iters=$2; shift 2 ;;
    --delay-us) need "$@"; delay_us=$2; shift 2 ;;
    --delay-dist) need "$@"; delay_dist=$2; shift 2 ;;
    --size) need "$@"; size=$2; shift 2 ;;
    --read-buffer) need "$@"; read_buffer=$2; read_buffer_given=1; shift 2 ;;
    --chunk) need "$@"; chunk=$2; chunk_given=1; shift 2 ;;
    --rate) need "$@"; rate=$2; rate_given=1; shift 2 ;;
    --warmup) need "$@"; warmup=$2; shift 2 ;;
    --duration) need "$@"; duration=$2; shift 2 ;;
    --peer-jdk) need "$@"; peer_jdk=$2; shift 2 ;;
    --client-cpu) need "$@"; client_cpu=$2; shift 2 ;;
    --peer-cpu) need "$@"; peer_cpu=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    --*) die "unknown option '$1' (see --help)" ;;
    *) break ;;
  esac
done
# the old positional usage: JDK [pairs] [clients] [roundTripsPerClient] [JVM options...]
if [[ $# -gt 0 && -z $jdk && $1 != -* ]]; then jdk=$1; shift; fi
for v in pairs clients rt; do
  if [[ $# -gt 0 && $1 != -* ]]; then printf -v "$v" '%s' "$1"; shift; else break; fi
done
jvm_args+=("$@")

[[ -n $jdk ]] || { usage >&2; die "the JDK under test is required (--jdk DIR or the first argument)"; }
isint() { [[ $1 =~ ^[0-9]+$ ]]; }
isnum() { [[ $1 =~ ^[0-9]+([.][0-9]+)?$ ]]; }
for v in pairs clients rt delay_us size read_buffer chunk client_cpu peer_cpu roots depth leaf_iters; do
  isint "${!v}" || die "${v//_/-} must be a whole number, got '${!v}'"
done
isint "$warmup_rt" || die "--warmup-round-trips must be a whole number of round trips per client, got '$warmup_rt'"
warmup_rt=$((10#$warmup_rt))
(( warmup_rt == 0 )) || (( !waiting && !compute && !bulk )) || die "--warmup-round-trips is an option of the ping-pong cell (the others take --warmup S)"
[[ $delay_dist == fixed || $delay_dist == exp ]] || die "--delay-dist must be fixed or exp, got '$delay_dist'"
isnum "$rate" || die "--rate must be a number of MiB/s per connection (0: unpaced), got '$rate'"
for v in warmup duration; do isnum "${!v}" || die "--$v must be a number of seconds, got '${!v}'"; done
(( pairs >= 1 && clients >= 1 && rt >= 1 && size >= 1 && roots >= 1 && leaf_iters >= 1 )) \
  || die "--pairs, --clients, --round-trips, --size, --roots and --leaf-iters must be at least 1"
(( depth <= 20 )) || die "--depth must be at most 20 (2^depth leaf tasks per tree), got $depth"
(( waiting + compute + bulk <= 1 )) || die "--waiting-client, --compute and --bulk are three cells: choose one"
[[ $echo_peer == jvm || $echo_peer == process || $echo_peer == pinned ]] \
  || die "--echo-peer must be jvm, process or pinned, got '$echo_peer'"
[[ $echo_peer == jvm ]] || (( !waiting && !compute && !bulk )) || die "--echo-peer is an option of the ping-pong cell only"
(( read_buffer == 0 )) || (( waiting || bulk )) || die "--read-buffer is an option of the waiting-client and bulk cells only"
(( !chunk_given )) || (( bulk )) || die "--chunk is an option of the bulk cell only"
(( !rate_given )) || (( bulk )) || die "--rate is an option of the bulk cell only"
if (( bulk )); then
  (( clients_given )) || clients=1
  (( read_buffer_given )) || read_buffer=8192
  (( read_buffer >= 1 && chunk >= 1 )) || die "--read-buffer and --chunk must be at least 1 in the bulk cell"
fi
(( pairs >= 5 )) || say "warning: --pairs $pairs is below the 5 pairs the method asks for (../shared/perf/method.md)"
if (( ${#vnames[@]} == 0 )); then
  vnames=(ONESHOT ET); vopts=("-Djdk.pollerEdgeTriggered=false" "-Djdk.pollerEdgeTriggered=true")
fi
declare -A seen=()
for n in "${vnames[@]}"; do [[ -z ${seen[$n]:-} ]] || die "--variant $n given twice"; seen[$n]=1; done
for n in "${!vjdk[@]}"; do
  [[ -n ${seen[$n]:-} ]] || die "--variant-jdk $n: no --variant named $n"
  [[ -x ${vjdk[$n]}/bin/java ]] || die "--variant-jdk $n=${vjdk[$n]}: no bin/java there (build it, or fix the path)"
  vjdk[$n]=$(cd "${vjdk[$n]}" && pwd)
done
if [[ -n $out ]]; then
  [[ $out == *.md ]] || die "--out must name a .md file, got '$out'"
  case $out in /*) ;; *) out=$PWD/$out ;; esac
fi

# cheap preflight, then the guard, then anything that writes
[[ -x $jdk/bin/java && -x $jdk/bin/javac ]] || die "--jdk $jdk is not a JDK (bin/java and bin/javac are needed)"
jdk=$(cd "$jdk" && pwd)
command -v perf >/dev/null || die "perf is missing: apt-get install linux-perf"
command -v python3 >/dev/null || die "python3 is missing (needed for the summary)"
if (( waiting || bulk )) || [[ $echo_peer != jvm ]]; then
  [[ -x $peer_jdk/bin/java ]] || die "--peer-jdk $peer_jdk has no bin/java (install Temurin 25 or pass --peer-jdk)"
fi
if (( waiting || bulk )) || [[ $echo_peer == pinned ]]; then
  command -v taskset >/dev/null || die "taskset not found (Debian package util-linux)"
  [[ $client_cpu != "$peer_cpu" ]] || die "--client-cpu and --peer-cpu must differ"
  for c in "$client_cpu" "$peer_cpu"; do
    taskset -c "$c" true 2>/dev/null || die "CPU $c is not available (nproc=$(nproc)); choose --client-cpu/--peer-cpu"
  done
fi

guard_init "$ME" "$allow_busy"
guard_check start "the first run"
guard_lock
trap 'guard_unlock' EXIT

cell=pingpong; (( waiting )) && cell=waiting-client; (( compute )) && cell=compute; (( bulk )) && cell=bulk
raw=$TOP/build/bench/pingpong/$(date -u +%Y%m%dT%H%M%SZ)-$cell
mkdir -p "$raw/classes" "$raw/runs"
guard_log_to "$raw/guard.log"
say "raw runs: $raw"
perf stat -x, -o "$raw/perf-check.csv" -e "$EVENTS" -- true 2>"$raw/perf-check.err" \
  || { cat "$raw/perf-check.err" >&2; die "perf stat cannot count $EVENTS: run as root or lower /proc/sys/kernel/perf_event_paranoid"; }
if (( waiting )); then
  "$jdk/bin/javac" -nowarn -d "$raw/classes" "$HERE/WaitingClient.java" || die "javac WaitingClient.java failed"
elif (( compute )); then
  "$jdk/bin/javac" -nowarn -d "$raw/classes" "$HERE/ComputeTasks.java" "$HERE/WaitingClient.java" \
    || die "javac ComputeTasks.java failed"
elif (( bulk )); then
  "$jdk/bin/javac" -nowarn -d "$raw/classes" "$HERE/BulkReader.java" "$HERE/WaitingClient.java" \
    || die "javac BulkReader.java failed"
else
  "$jdk/bin/javac" -nowarn -d "$raw/classes" "$HERE/PingPong.java" "$HERE/WaitingClient.java" || die "javac PingPong.java failed"
fi

bench_meta_start "$raw/meta.env" "$jdk/bin/java" "bench/pingpong/${ME}" "${orig_args[@]}"
{
  echo "cell=$cell"; echo "jdk=$jdk"; echo "pairs=$pairs"; echo "clients=$clients"
  echo "jvm_args=${jvm_args[*]:-}"; echo "events=$EVENTS"
  if (( waiting )); then
    echo "delay_us=$delay_us"; echo "delay_dist=$delay_dist"; echo "size=$size"; echo "read_buffer=$read_buffer"; echo "warmup=$warmup"; echo "duration=$duration"
    echo "peer_jdk=$peer_jdk"; echo "peer_version=$("$peer_jdk/bin/java" -version 2>&1 | head -1)"
    echo "client_cpu=$client_cpu"; echo "peer_cpu=$peer_cpu"
  elif (( compute )); then
    echo "roots=$roots"; echo "depth=$depth"; echo "leaf_iters=$leaf_iters"
    echo "warmup=$warmup"; echo "duration=$duration"
  elif (( bulk )); then
    echo "read_buffer=$read_buffer"; echo "chunk=$chunk"; echo "rate=$rate"; echo "warmup=$warmup"; echo "duration=$duration"
    echo "peer_jdk=$peer_jdk"; echo "peer_version=$("$peer_jdk/bin/java" -version 2>&1 | head -1)"
    echo "client_cpu=$client_cpu"; echo "peer_cpu=$peer_cpu"
  else
    echo "round_trips=$rt"; echo "warmup_round_trips=$warmup_rt"; echo "echo_peer=$echo_peer"
    [[ $echo_peer == jvm ]] || echo "peer_version=$("$peer_jdk/bin/java" -version 2>&1 | head -1)"
    [[ $echo_peer != pinned ]] || { echo "client_cpu=$client_cpu"; echo "peer_cpu=$peer_cpu"; }
  fi
  for n in "${!vjdk[@]}"; do
    echo "variant_jdk_$n=${vjdk[$n]}"; echo "variant_jdk_version_$n=$("${vjdk[$n]}/bin/java" -version 2>&1 | head -1)"
  done
} >"$raw/config.env"
printf 'name\topts\n' >"$raw/variants.tsv"
for i in "${!vnames[@]}"; do printf '%s\t%s\n' "${vnames[$i]}" "${vopts[$i]}" >>"$raw/variants.tsv"; done
printf 'pair\tvariant\tdir\tload1_before\tpsi10_before\tbusy_before\tload1_after\tpsi_run_pct\tcpu_speed_ms\n' >"$raw/runs.tsv"

trap 'bench_stop_peer; guard_unlock' EXIT

# run_one PAIR INDEX: one JVM of one variant
run_one() {
  local pair=$1 i=$2 name=${vnames[$2]} dir psi0 psi1 t0 t1 rc=0 speed
  local java=${vjdk[${vnames[$2]}]:-$jdk}/bin/java
  local -a opts
  read -r -a opts <<<"${vopts[$i]}"
  dir=$raw/runs/$(printf 'p%02d-%s' "$pair" "$name")
  mkdir -p "$dir"
  speed=$(bench_cpu_speed_ms)
  psi0=$(guard_psi_total); t0=$(date +%s.%N)
  if (( waiting )); then
    bench_start_peer "$dir/peer.log" taskset -c "$peer_cpu" "$peer_jdk/bin/java" -XX:+UseSerialGC "$HERE/DelayPeer.java" \
      --delay-us "$delay_us" --delay-dist "$delay_dist" --size "$size"
    mkfifo "$dir/perf-ctl" "$dir/perf-ack"
    taskset -c "$client_cpu" perf stat -x, -o "$dir/perf.csv" -e "$EVENTS" -D -1 \
      --control "fifo:$dir/perf-ctl,$dir/perf-ack" -- \
      "$java" "${opts[@]}" "${jvm_args[@]}" -cp "$raw/classes" WaitingClient --port "$BENCH_PEER_PORT" \
      --clients "$clients" --size "$size" --read-buffer "$read_buffer" --warmup-s "$warmup" --duration-s "$duration" \
      --perf-ctl "$dir/perf-ctl" --perf-ack "$dir/perf-ack" >"$dir/out.log" 2>&1 || rc=$?
    bench_stop_peer
    rm -f "$dir/perf-ctl" "$dir/perf-ack"
  elif (( bulk )); then
    bench_start_peer "$dir/peer.log" taskset -c "$peer_cpu" "$peer_jdk/bin/java" -XX:+UseSerialGC "$HERE/BulkPeer.java" \
      --chunk "$chunk" --rate "$rate"
    mkfifo "$dir/perf-ctl" "$dir/perf-ack"
    taskset -c "$client_cpu" perf stat -x, -o "$dir/perf.csv" -e "$EVENTS" -D -1 \
      --control "fifo:$dir/perf-ctl,$dir/perf-ack" -- \
      "$java" "${opts[@]}" "${jvm_args[@]}" -cp "$raw/classes" BulkReader --port "$BENCH_PEER_PORT" \
      --readers "$clients" --read-buffer "$read_buffer" --warmup-s "$warmup" --duration-s "$duration" \
      --perf-ctl "$dir/perf-ctl" --perf-ack "$dir/perf-ack" >"$dir/out.log" 2>&1 || rc=$?
    bench_stop_peer
    rm -f "$dir/perf-ctl" "$dir/perf-ack"
  elif (( compute )); then
    mkfifo "$dir/perf-ctl" "$dir/perf-ack"
    perf stat -x, -o "$dir/perf.csv" -e "$EVENTS" -D -1 \
      --control "fifo:$dir/perf-ctl,$dir/perf-ack" -- \
      "$java" "${opts[@]}" "${jvm_args[@]}" -cp "$raw/classes" ComputeTasks --roots "$roots" \
      --depth "$depth" --leaf-iters "$leaf_iters" --warmup-s "$warmup" --duration-s "$duration" \
      --perf-ctl "$dir/perf-ctl" --perf-ack "$dir/perf-ack" >"$dir/out.log" 2>&1 || rc=$?
    rm -f "$dir/perf-ctl" "$dir/perf-ack"
  else
    local -a client_args=() pin=()
    if [[ $echo_peer != jvm ]]; then
      local -a peer_pin=()
      [[ $echo_peer != pinned ]] || { peer_pin=(taskset -c "$peer_cpu"); pin=(taskset -c "$client_cpu"); }
      # the source launcher compiles WaitingClient.java beside it too (JDK 22 or later)
      bench_start_peer "$dir/peer.log" "${peer_pin[@]}" "$peer_jdk/bin/java" -XX:+UseSerialGC \
        "$HERE/PingPong.java" --serve
      client_args=(--port "$BENCH_PEER_PORT")
    fi
    local -a window=()  # with a warm-up, perf counts the timed round trips only
    if (( warmup_rt > 0 )); then
      mkfifo "$dir/perf-ctl" "$dir/perf-ack"
      window=(-D -1 --control "fifo:$dir/perf-ctl,$dir/perf-ack")
      client_args+=(--warmup "$warmup_rt" --perf-ctl "$dir/perf-ctl" --perf-ack "$dir/perf-ack")
    fi
    "${pin[@]}" perf stat -x, -o "$dir/perf.csv" -e "$EVENTS" "${window[@]}" -- "$java" "${opts[@]}" "${jvm_args[@]}" \
      -cp "$raw/classes" PingPong "$clients" "$rt" "${client_args[@]}" >"$dir/out.log" 2>&1 || rc=$?
    bench_stop_peer
    rm -f "$dir/perf-ctl" "$dir/perf-ack"
  fi
  t1=$(date +%s.%N); psi1=$(guard_psi_total)
  (( rc == 0 )) || { tail -20 "$dir/out.log" >&2; die "$name, pair $pair failed (exit $rc; log: $dir/out.log)"; }
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$pair" "$name" "runs/${dir##*/}" "$GUARD_LOAD1" "$GUARD_PSI10" "$GUARD_BUSY" \
    "$(guard_load1)" "$(awk -v a="${psi0:-}" -v b="${psi1:-}" -v t0="$t0" -v t1="$t1" \
        'BEGIN { if (a == "" || b == "") print "n/a"; else printf "%.1f", (b - a) / 1e4 / (t1 - t0) }')" \
    "$speed" >>"$raw/runs.tsv"
  python3 "$HERE/report.py" line "$raw" "$dir" || die "could not read the results in $dir"
}

first=1
for pair in $(seq 1 "$pairs"); do
  for i in "${!vnames[@]}"; do
    if (( first )); then first=0; else guard_check between "${vnames[$i]}, pair $pair"; fi
    run_one "$pair" "$i"
  done
done
bench_meta_end "$raw/meta.env"
python3 "$HERE/report.py" summary "$raw" ${out:+"$out"} || die "the summary could not be written (raw runs kept in $raw)"
[[ -z $out ]] || say "wrote $out and ${out%.md}.csv (raw runs: $raw)"
