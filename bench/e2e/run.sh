#!/usr/bin/env bash
# ET-JDK end-to-end benchmark runner (issue 5). See bench/e2e/README.md.
#
#   bench/e2e/run.sh --jdk <JDK image dir> [--out doc/results/e2e.md] [options]
#
# Server (JDK under test, one CPU) <-HTTP/1.1 keep-alive- load generator
# (Temurin 25, other CPU); server -> pooled blocking sockets -> mock backend
# (Temurin 25, other CPU). The variants (--variants: poller options of the
# server) alternate A B C A B C ...; perf stat counts the server's CPU time and
# syscalls over the measured window; the report is written to --out.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
CACHE=${ET_JDK_CACHE:-$HOME/.cache/et-jdk}
ORIG_ARGS=("$@")
# shellcheck source=../lib/guard.sh
. "$TOP/bench/lib/guard.sh"

HDR_GAV=org.hdrhistogram:HdrHistogram:2.2.2
HDR_SHA256=22d1d4316c4ec13a68b559e98c8256d69071593731da96136640f864fa14fad8
PERF_EVENTS=task-clock,context-switches,syscalls:sys_enter_epoll_ctl,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_read,syscalls:sys_enter_write,raw_syscalls:sys_enter

# ---- defaults (documented in README.md) ----
JDK=""
LOAD_JDK=/usr/lib/jvm/temurin-25-jdk-amd64
OUT=$TOP/doc/results/e2e.md
WORK=$TOP/build/bench/e2e
PAIRS=5
ALLOW_BUSY=0
CAPACITY=0
CAP_START=2000
CAP_FACTOR=1.25
CAP_MAX=200000
CAP_WARMUP=5
CAP_DURATION=10
CAP_PCTS="50 75 90"
MAX_LAG_MS=1
CAP_MAX_P99_MS=100
QUOTA=""
QUOTA_PERIOD_US=100000
CONNECTIONS=10000
SUSTAIN_RATE=5000
SATURATE_RATE=40000
RATES=""
VARIANTS="oneshot et"
WARMUP=15
DURATION=30
DRAIN=3
TIMEOUT=5
THINK_MS=30
POOL=2000
SERVER_CPU=0
LOAD_CPU=1
SERVER_OPTS="-XX:+UseSerialGC -Xms1g -Xmx1g"
LOAD_OPTS="-XX:+UseSerialGC -Xms1g -Xmx1g"
BACKEND_OPTS="-XX:+UseSerialGC -Xms256m -Xmx256m"
QUICK=0

say() { printf '%s\n' "run.sh: $*" >&2; }
die() { printf '%s\n' "run.sh: error: $*" >&2; exit 1; }

usage() {
  cat <<EOF
usage: bench/e2e/run.sh --jdk DIR [options]

  --jdk DIR            JDK under test (the server runs on it), e.g. an images/jdk dir (required)
  --out FILE           report to write (default: doc/results/e2e.md; plots go to FILE's dir/<name>/)
  --load-jdk DIR       JDK for the load generator and the backend (default: $LOAD_JDK)
  --work DIR           build and raw-results directory (default: build/bench/e2e)
  --pairs N            pairs per rate (each variant once per pair, in order: A B A B ...) (default: $PAIRS)
  --allow-busy         run even if the load guard (bench/README.md) finds the machine busy;
                       the report is then stamped "measured on a busy machine"
  --capacity           first find the server's capacity with the first variant: the highest
                       rate (from --cap-start, times --cap-factor per step) with generator
                       send lag p99 < --max-lag-ms, latency p99 < --cap-max-p99-ms, no
                       timeouts and achieved >= 98%; then run the pairs at --cap-pcts
                       percent of it (instead of the two rates)
  --cap-start R        first rate of the capacity search (default: $CAP_START)
  --cap-factor F       rate step factor (default: $CAP_FACTOR)
  --cap-max R          highest rate tried (default: $CAP_MAX)
  --cap-warmup S / --cap-duration S   warmup / measured seconds of each step (default: $CAP_WARMUP / $CAP_DURATION)
  --cap-pcts "P ..."   percentages of the capacity to run at (default: "$CAP_PCTS")
  --cap-max-p99-ms MS  a capacity step whose latency p99 reaches this is overloaded (default:
                       $CAP_MAX_P99_MS; must be above --think-ms)
  --max-lag-ms MS      a cell whose generator send lag p99 exceeds this is invalid (default: $MAX_LAG_MS)
  --server-cpu-quota PCT  cap the server JVM at PCT% of one CPU with a cgroup v1 CPU quota
                       (/sys/fs/cgroup/cpu/<name>/cpu.cfs_quota_us; root); stated in the report
  --server-cpu-period US  the quota's period, 1000-1000000 µs (default: 100000): a shorter one
                       throttles the server in shorter stalls, so its replies come in smaller bursts
  --connections N      concurrent client connections (default: $CONNECTIONS)
  --sustain-rate R     the sustainable fixed rate, req/s (default: $SUSTAIN_RATE)
  --saturate-rate R    the saturating rate, req/s (default: $SATURATE_RATE)
  --rates "R1 R2 ..."  run exactly these rates instead of the two above (e.g. to calibrate)
  --variants "V ..."   subset/order of: upstream (no property), oneshot
                       (-Djdk.pollerEdgeTriggered=false), et (=true, default mode),
                       et2 (-Djdk.pollerMode=2), mode4 (-Djdk.pollerMode=4, carrier
                       polling); the first is the baseline (default: "$VARIANTS")
  --warmup S           warmup seconds, not measured (default: $WARMUP)
  --duration S         measured seconds (default: $DURATION; perf covers duration-1 s inside it)
  --drain S            seconds to let measured requests finish after the window (default: $DRAIN)
  --timeout S          per-request timeout, from actual send (default: $TIMEOUT)
  --think-ms MS        backend think time (default: $THINK_MS)
  --pool N             server's backend connection pool size (default: $POOL)
  --server-cpu CPU     CPU for the server (default: $SERVER_CPU)
  --load-cpu CPU       CPU for load generator + backend (default: $LOAD_CPU)
  --server-opts "..."  server JVM options (default: "$SERVER_OPTS")
  --quick              short smoke (about 1 minute): 200 connections, pool 200, 1 pair, rates 500 and 3000,
                       3 s warmup, 5 s measured; options given explicitly still apply
  -h, --help           this text
EOF
}

# --quick sets short smoke defaults first; any other option given still wins.
for a in "$@"; do
  if [ "$a" = --quick ]; then
    QUICK=1 CONNECTIONS=200 PAIRS=1 WARMUP=3 DURATION=5 DRAIN=2 SUSTAIN_RATE=500 SATURATE_RATE=3000 POOL=200
  fi
done

while [ $# -gt 0 ]; do
  case $1 in
    --jdk) JDK=${2:?--jdk needs a directory}; shift 2 ;;
    --load-jdk) LOAD_JDK=${2:?}; shift 2 ;;
    --out) OUT=${2:?--out needs a file}; shift 2 ;;
    --work) WORK=${2:?}; shift 2 ;;
    --pairs) PAIRS=${2:?}; shift 2 ;;
    --allow-busy) ALLOW_BUSY=1; shift ;;
    --capacity) CAPACITY=1; shift ;;
    --cap-start) CAP_START=${2:?}; shift 2 ;;
    --cap-factor) CAP_FACTOR=${2:?}; shift 2 ;;
    --cap-max) CAP_MAX=${2:?}; shift 2 ;;
    --cap-warmup) CAP_WARMUP=${2:?}; shift 2 ;;
    --cap-duration) CAP_DURATION=${2:?}; shift 2 ;;
    --cap-pcts) CAP_PCTS=${2:?}; shift 2 ;;
    --max-lag-ms) MAX_LAG_MS=${2:?}; shift 2 ;;
    --cap-max-p99-ms) CAP_MAX_P99_MS=${2:?}; shift 2 ;;
    --server-cpu-quota) QUOTA=${2:?}; shift 2 ;;
    --server-cpu-period) QUOTA_PERIOD_US=${2:?}; shift 2 ;;
    --connections) CONNECTIONS=${2:?}; shift 2 ;;
    --sustain-rate) SUSTAIN_RATE=${2:?}; shift 2 ;;
    --saturate-rate) SATURATE_RATE=${2:?}; shift 2 ;;
    --rates) RATES=${2:?}; shift 2 ;;
    --variants) VARIANTS=${2:?}; shift 2 ;;
    --warmup) WARMUP=${2:?}; shift 2 ;;
    --duration) DURATION=${2:?}; shift 2 ;;
    --drain) DRAIN=${2:?}; shift 2 ;;
    --timeout) TIMEOUT=${2:?}; shift 2 ;;
    --think-ms) THINK_MS=${2:?}; shift 2 ;;
    --pool) POOL=${2:?}; shift 2 ;;
    --server-cpu) SERVER_CPU=${2:?}; shift 2 ;;
    --load-cpu) LOAD_CPU=${2:?}; shift 2 ;;
    --server-opts) SERVER_OPTS=${2?}; shift 2 ;;
    --quick) shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument: $1" ;;
  esac
done

# ---- validate arguments ----
isnum() { [[ $1 =~ ^[0-9]+([.][0-9]+)?$ ]]; }
isint() { [[ $1 =~ ^[0-9]+$ ]]; }
[ -n "$JDK" ] || { usage >&2; die "--jdk is required (the JDK under test, e.g. build/<conf>/images/jdk)"; }
option_of() { local o=${1,,}; echo "--${o//_/-}"; }   # CAP_START -> --cap-start
for v in PAIRS CONNECTIONS POOL SERVER_CPU LOAD_CPU; do isint "${!v}" || die "$(option_of "$v") must be a whole number, got '${!v}'"; done
for v in SUSTAIN_RATE SATURATE_RATE WARMUP DURATION DRAIN TIMEOUT THINK_MS CAP_START CAP_FACTOR CAP_MAX CAP_WARMUP CAP_DURATION MAX_LAG_MS CAP_MAX_P99_MS; do
  isnum "${!v}" || die "$(option_of "$v") must be a number, got '${!v}'"
done
awk -v f="$CAP_FACTOR" 'BEGIN { exit !(f > 1) }' || die "--cap-factor must be above 1"
awk -v m="$CAP_MAX_P99_MS" -v t="$THINK_MS" 'BEGIN { exit !(m > t) }' ||
  die "--cap-max-p99-ms ($CAP_MAX_P99_MS) must be above the backend think time --think-ms ($THINK_MS): every request waits that long"
for p in $CAP_PCTS; do isnum "$p" || die "--cap-pcts: '$p' is not a number"; done
if [ -n "$QUOTA" ]; then
  isint "$QUOTA" && [ "$QUOTA" -ge 1 ] && [ "$QUOTA" -le 100 ] || die "--server-cpu-quota must be a whole percentage 1-100, got '$QUOTA'"
  [ -d /sys/fs/cgroup/cpu ] && [ -f /sys/fs/cgroup/cpu/cpu.cfs_period_us ] ||
    die "--server-cpu-quota needs the cgroup v1 cpu controller at /sys/fs/cgroup/cpu (not found)"
  [ -w /sys/fs/cgroup/cpu ] || die "--server-cpu-quota: /sys/fs/cgroup/cpu is not writable (run as root)"
fi
isint "$QUOTA_PERIOD_US" && [ "$QUOTA_PERIOD_US" -ge 1000 ] && [ "$QUOTA_PERIOD_US" -le 1000000 ] ||
  die "--server-cpu-period must be a whole number of microseconds 1000-1000000, got '$QUOTA_PERIOD_US'"
[ "$PAIRS" -ge 1 ] || die "--pairs must be >= 1"
[ "$CONNECTIONS" -ge 1 ] || die "--connections must be >= 1"
[ "$POOL" -ge 1 ] || die "--pool must be >= 1"
awk -v d="$DURATION" 'BEGIN { exit !(d >= 3) }' || die "--duration must be at least 3 s (perf covers duration-1 s)"
for v in $VARIANTS; do case $v in upstream|oneshot|et|et2|mode4) ;; *) die "--variants: unknown variant '$v' (upstream, oneshot, et, et2, mode4)";; esac; done
[ -n "${VARIANTS// /}" ] || die "--variants is empty"
if [ -n "$RATES" ]; then
  for r in $RATES; do isnum "$r" || die "--rates: '$r' is not a number"; done
  RATE_LIST=$RATES; RATE_KIND=custom
else
  RATE_LIST="$SUSTAIN_RATE $SATURATE_RATE"; RATE_KIND=standard
fi

# ---- preflight: every setting the machine cannot meet fails here ----
[ -d "$JDK" ] || die "--jdk: no such directory: $JDK"
JDK=$(cd "$JDK" && pwd)
[ -x "$JDK/bin/java" ] && [ -x "$JDK/bin/javac" ] ||
  die "--jdk $JDK is not a JDK: bin/java and bin/javac are needed (pass an images/jdk directory, not images/jre)"
[ -d "$LOAD_JDK" ] || die "--load-jdk: no JDK at $LOAD_JDK (the load generator and backend run on it; install Temurin 25 or pass --load-jdk)"
[ -x "$LOAD_JDK/bin/java" ] && [ -x "$LOAD_JDK/bin/javac" ] || die "--load-jdk $LOAD_JDK: bin/java and bin/javac are needed"
jfeature() { "$1/bin/java" -XshowSettings:properties -version 2>&1 | awk -F' = ' '/java.specification.version/ {print $2; exit}'; }
JDK_FEATURE=$(jfeature "$JDK"); LOAD_FEATURE=$(jfeature "$LOAD_JDK")
[ -n "$JDK_FEATURE" ] || die "--jdk $JDK: 'java -version' does not run"
[ "${JDK_FEATURE%%.*}" -ge 21 ] 2>/dev/null || die "--jdk $JDK is Java $JDK_FEATURE; virtual threads need 21 or later"
[ "${LOAD_FEATURE%%.*}" -ge 21 ] 2>/dev/null || die "--load-jdk $LOAD_JDK is Java $LOAD_FEATURE; 21 or later needed"

command -v taskset >/dev/null || die "taskset not found (Debian package util-linux)"
command -v perf >/dev/null || die "perf not found (Debian: apt-get install linux-perf)"
command -v python3 >/dev/null || die "python3 not found (needed for the report)"
NPROC=$(nproc)
for c in "$SERVER_CPU" "$LOAD_CPU"; do
  taskset -c "$c" true 2>/dev/null || die "CPU $c is not available to this process (nproc=$NPROC); choose --server-cpu/--load-cpu"
done
[ "$SERVER_CPU" != "$LOAD_CPU" ] || say "warning: server and load share CPU $SERVER_CPU; the results will say so"

guard_init run.sh "$ALLOW_BUSY"
guard_check start "the first run"
guard_lock
trap 'guard_unlock' EXIT

probe_dir=$(mktemp -d)
mkfifo "$probe_dir/c" "$probe_dir/a"
perf_probe=$(perf stat -x, -e "$PERF_EVENTS" -D -1 --control "fifo:$probe_dir/c,$probe_dir/a" -- true 2>&1) ||
  { rm -rf "$probe_dir"; die "perf stat cannot count the events needed ($PERF_EVENTS) with counters started disabled (-D -1 --control fifo:, perf 5.9 or later):
$perf_probe
(run as root, or lower /proc/sys/kernel/perf_event_paranoid and make tracefs readable)"; }
rm -rf "$probe_dir"
perf_probe=$(perf stat -x, -e "$PERF_EVENTS" -- true 2>&1) || die "perf stat cannot count the events needed ($PERF_EVENTS):
$perf_probe
(run as root, or lower /proc/sys/kernel/perf_event_paranoid and make tracefs readable)"
if grep -q '<not supported>\|<not counted>' <<<"$perf_probe"; then
  die "perf stat: some events are not supported here:
$perf_probe"
fi

# File descriptors: the server holds CONNECTIONS + POOL sockets, the load generator CONNECTIONS.
need_fd=$((CONNECTIONS + POOL + 512))
soft=$(ulimit -Sn); hard=$(ulimit -Hn)
if [ "$soft" != unlimited ] && [ "$soft" -lt "$need_fd" ]; then
  if [ "$hard" = unlimited ] || [ "$hard" -ge "$need_fd" ]; then
    ulimit -Sn "$hard" 2>/dev/null || ulimit -Sn "$need_fd" || die "cannot raise ulimit -n from $soft"
    say "raised the open-file soft limit from $soft to $(ulimit -Sn)"
  else
    die "ulimit -n: the hard limit $hard is below the $need_fd file descriptors needed for $CONNECTIONS connections + a pool of $POOL
  (raise the hard limit, e.g. 'ulimit -Hn 65536' as root or in /etc/security/limits.conf, or pass a smaller --connections)"
  fi
fi

# Ephemeral ports: all client connections go to one server port, and the pool to one backend port.
read -r port_lo port_hi < /proc/sys/net/ipv4/ip_local_port_range
nports=$((port_hi - port_lo + 1))
need_ports=$((CONNECTIONS + POOL + 1000))
[ "$nports" -ge "$need_ports" ] || die "ephemeral port range $port_lo-$port_hi (/proc/sys/net/ipv4/ip_local_port_range) has $nports ports;
  $need_ports are needed for $CONNECTIONS connections to one port + a pool of $POOL + slack.
  Widen it (as root: sysctl -w net.ipv4.ip_local_port_range='1024 65535') or pass a smaller --connections"

mem_kb=$(awk '/MemAvailable/ {print $2}' /proc/meminfo)
[ "${mem_kb:-0}" -ge $((3 * 1024 * 1024)) ] || die "less than 3 GiB of memory available (server 1 GiB heap, load generator 1 GiB, backend 256 MiB)"

# ---- dependencies: HdrHistogram (Maven Central) and matplotlib (PyPI), cached outside git ----
HDR_JAR=$CACHE/maven/org/hdrhistogram/HdrHistogram/2.2.2/HdrHistogram-2.2.2.jar
if [ ! -f "$HDR_JAR" ]; then
  command -v mvn >/dev/null || die "HdrHistogram is not cached at $HDR_JAR and mvn is not installed (apt-get install maven)"
  say "fetching $HDR_GAV from Maven Central into $CACHE/maven"
  mvn -q -B -Dmaven.repo.local="$CACHE/maven" dependency:get -Dartifact="$HDR_GAV" -Dtransitive=false >&2 ||
    die "mvn could not fetch $HDR_GAV"
  [ -f "$HDR_JAR" ] || die "mvn ran but $HDR_JAR is missing"
fi
got=$(sha256sum "$HDR_JAR" | cut -d' ' -f1)
[ "$got" = "$HDR_SHA256" ] || die "checksum mismatch for $HDR_JAR: expected $HDR_SHA256, got $got (delete it to fetch again)"

PY=python3

# ---- compile ----
CLS=$WORK/classes
mkdir -p "$CLS/server" "$CLS/backend" "$CLS/loadgen" || die "cannot create $WORK"
say "compiling: server with $JDK/bin/javac, backend and load generator with $LOAD_JDK/bin/javac"
rm -rf "${CLS:?}"/server/* "${CLS:?}"/backend/* "${CLS:?}"/loadgen/*
"$JDK/bin/javac" -nowarn -d "$CLS/server" "$HERE/src/server/E2eServer.java" || die "javac (server) failed"
"$LOAD_JDK/bin/javac" -nowarn -d "$CLS/backend" "$HERE/src/backend/E2eBackend.java" || die "javac (backend) failed"
"$LOAD_JDK/bin/javac" -nowarn -cp "$HDR_JAR" -d "$CLS/loadgen" "$HERE/src/loadgen/E2eLoad.java" || die "javac (load generator) failed"

STAMP=$(date -u +%Y%m%dT%H%M%SZ)
RAW=$WORK/runs/$STAMP
mkdir -p "$RAW"
guard_log_to "$RAW/guard.log"
say "raw results: $RAW"

# ---- machine and configuration, for the report ----
{
  echo "via_make=${MAKELEVEL:+yes}"
  echo "autogroup=$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null || echo n/a)"
  echo "port_range=$port_lo-$port_hi"
  echo "tcp_tw_reuse=$(cat /proc/sys/net/ipv4/tcp_tw_reuse 2>/dev/null || echo n/a)"
  echo "somaxconn=$(cat /proc/sys/net/core/somaxconn 2>/dev/null || echo n/a)"
  echo "ulimit_n=$(ulimit -Sn)"
  echo "perf_version=$(perf version 2>/dev/null | head -1)"
  echo "jdk=$JDK"
  echo "load_jdk=$LOAD_JDK"
  echo "git=$(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo 'no commit')$( [ -n "$(git -C "$TOP" status --porcelain 2>/dev/null | head -1)" ] && echo ' (work tree has uncommitted changes)')"
  echo "pairs=$PAIRS"; echo "connections=$CONNECTIONS"; echo "rates=$RATE_LIST"; echo "rate_kind=$RATE_KIND"
  echo "sustain_rate=$SUSTAIN_RATE"; echo "saturate_rate=$SATURATE_RATE"; echo "variants=$VARIANTS"
  echo "warmup=$WARMUP"; echo "duration=$DURATION"; echo "drain=$DRAIN"; echo "timeout=$TIMEOUT"
  echo "think_ms=$THINK_MS"; echo "pool=$POOL"; echo "server_cpu=$SERVER_CPU"; echo "load_cpu=$LOAD_CPU"
  echo "server_opts=$SERVER_OPTS"; echo "load_opts=$LOAD_OPTS"; echo "backend_opts=$BACKEND_OPTS"
  echo "perf_events=$PERF_EVENTS"
  echo "quick=$QUICK"
  echo "capacity=$CAPACITY"; echo "cap_pcts=$CAP_PCTS"; echo "max_lag_ms=$MAX_LAG_MS"
  echo "cap_start=$CAP_START"; echo "cap_factor=$CAP_FACTOR"; echo "cap_max=$CAP_MAX"
  echo "cap_warmup=$CAP_WARMUP"; echo "cap_duration=$CAP_DURATION"; echo "cap_max_p99_ms=$CAP_MAX_P99_MS"
  echo "server_cpu_quota=$QUOTA"
  echo "server_cpu_period_us=$QUOTA_PERIOD_US"
} > "$RAW/config.env"
bench_meta_start "$RAW/meta.env" "$JDK/bin/java" bench/e2e/run.sh "${ORIG_ARGS[@]}"
"$JDK/bin/java" -version > "$RAW/jdk-version.txt" 2>&1
"$LOAD_JDK/bin/java" -version > "$RAW/load-jdk-version.txt" 2>&1

# ---- process handling ----
# Each JVM is started with setsid: its own session, so with scheduler autogroups
# (kernel.sched_autogroup_enabled=1) each gets its own CPU share instead of all
# three sharing one group. They are stopped by pid (cleanup below).
PIDS=()
CGROUP=""
cleanup() {
  local p
  for p in "${PIDS[@]}"; do
    kill -TERM "$p" 2>/dev/null || true
  done
  for p in "${PIDS[@]}"; do
    wait "$p" 2>/dev/null || true
  done
  PIDS=()
  [ -z "$CGROUP" ] || rmdir "$CGROUP" 2>/dev/null || true
  guard_unlock
}
trap cleanup EXIT
trap 'say "interrupted"; exit 130' INT TERM

# stop_pid PID: TERM, then KILL after 10 s.
stop_pid() {
  local p=$1 i
  kill -TERM "$p" 2>/dev/null || return 0
  for i in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$p" 2>/dev/null || true
  wait "$p" 2>/dev/null || true
}

# wait_line FILE REGEX TIMEOUT_S PID WHAT: waits for a line in FILE while PID lives.
wait_line() {
  local file=$1 re=$2 t=$3 pid=$4 what=$5 i
  for ((i = 0; i < t * 10; i++)); do
    grep -qE "$re" "$file" 2>/dev/null && return 0
    kill -0 "$pid" 2>/dev/null || { tail -20 "$file" >&2; die "$what exited before printing '$re' (log: $file)"; }
    sleep 0.1
  done
  tail -20 "$file" >&2
  die "$what did not print '$re' within $t s (log: $file)"
}

# server_count ADMIN_PORT: requests served so far (the server's admin port answers with the count).
server_count() {
  local port=$1 out
  # shellcheck disable=SC2016 # $1 is expanded by the inner bash
  out=$(timeout 15 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1" && cat <&3' _ "$port") ||
    die "could not read the server's request count on admin port $port"
  [[ $out =~ ^[0-9]+$ ]] || die "unexpected answer from the server's admin port $port: '$out'"
  printf '%s\n' "$out"
}

# perf_ctl enable|disable DIR: switch the server's perf counters and wait for perf's ack.
PCTL=""; PACK=""
perf_ctl() {
  local cmd=$1 dir=$2 line i
  if [ "$cmd" = enable ]; then
    exec {PCTL}<>"$dir/perf-ctl" {PACK}<>"$dir/perf-ack"
  fi
  printf '%s\n' "$cmd" >&"$PCTL"
  for i in 1 2 3; do
    IFS= read -r -t 10 -u "$PACK" line || die "perf did not acknowledge '$cmd' (see $dir/server.log)"
    [[ $line == *ack* ]] && return 0
  done
  die "perf answered '$line' to '$cmd'"
}

# psi_cpu: cumulative microseconds in which some runnable task waited for a CPU (0 if PSI is off).
psi_cpu() { awk '/^some/ { sub("total=", "", $5); print $5 }' /proc/pressure/cpu 2>/dev/null || echo 0; }

# cpu_ticks PID: utime+stime of a process, in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
CLK_TCK=$(getconf CLK_TCK)
echo "clk_tck=$CLK_TCK" >> "$RAW/config.env"

# cgroup v1 CPU quota for the server JVM (--server-cpu-quota)
if [ -n "$QUOTA" ]; then
  CGROUP=/sys/fs/cgroup/cpu/et-bench-e2e-$$
  mkdir "$CGROUP" || die "cannot create $CGROUP (cgroup v1 cpu controller, root needed)"
  echo "$QUOTA_PERIOD_US" > "$CGROUP/cpu.cfs_period_us" &&
    echo $((QUOTA * QUOTA_PERIOD_US / 100)) > "$CGROUP/cpu.cfs_quota_us" ||
    die "cannot set the CPU quota in $CGROUP"
  say "server CPU quota: $QUOTA% of one CPU ($CGROUP: cpu.cfs_quota_us $((QUOTA * QUOTA_PERIOD_US / 100)) per $QUOTA_PERIOD_US us)"
fi
throttled() { [ -n "$CGROUP" ] && awk '/^nr_throttled/ {print $2}' "$CGROUP/cpu.stat" || echo 0; }
RUN_NO=0
# variant_opts VARIANT: the server JVM's poller options of a variant
variant_opts() {
  case $1 in
    upstream) echo "" ;;
    oneshot) echo "-Djdk.pollerEdgeTriggered=false" ;;
    et) echo "-Djdk.pollerEdgeTriggered=true" ;;
    et2) echo "-Djdk.pollerMode=2" ;;
    mode4) echo "-Djdk.pollerMode=4" ;;
  esac
}
# run_one VARIANT RATE PAIR [cap]: one run (cap: a capacity step, shorter)
run_one() {
  local variant=$1 rate=$2 pair=$3 phase=${4:-} vopts dir ps0 ps1 aport ppid_ bpid spid lpid bport sport c0 c1 t0 t1 lt0 lt1 bt0 bt1 perf_s
  local warmup=$WARMUP duration=$DURATION thr0 thr1
  [ "$phase" = cap ] && warmup=$CAP_WARMUP duration=$CAP_DURATION
  vopts=$(variant_opts "$variant")
  dir=$RAW/$(printf '%sr%s-p%02d-%s' "${phase:+$phase-}" "$rate" "$pair" "$variant")
  [ "$RUN_NO" = 0 ] || guard_check between "${phase:+capacity step }rate $rate, pair $pair, $variant"
  RUN_NO=$((RUN_NO + 1))
  mkdir -p "$dir"
  say "run: ${phase:+capacity step, }rate $rate req/s, pair $pair, $variant (${vopts:-no property})"

  # shellcheck disable=SC2086
  setsid taskset -c "$LOAD_CPU" "$LOAD_JDK/bin/java" $BACKEND_OPTS -cp "$CLS/backend" E2eBackend \
    --port 0 --think-ms "$THINK_MS" > "$dir/backend.log" 2>&1 &
  bpid=$!; PIDS+=("$bpid")
  wait_line "$dir/backend.log" '^READY [0-9]+' 30 "$bpid" backend
  bport=$(awk '/^READY/ {print $2; exit}' "$dir/backend.log")

  # The server runs under perf stat with its counters disabled (-D -1); they are enabled
  # and disabled through a control FIFO around the measured window. Unlike attaching
  # with -p, this also counts JVM threads created during the window.
  rm -f "$dir/perf-ctl" "$dir/perf-ack"
  mkfifo "$dir/perf-ctl" "$dir/perf-ack"
  # shellcheck disable=SC2086
  setsid taskset -c "$SERVER_CPU" perf stat -x, -o "$dir/perf.csv" -e "$PERF_EVENTS" -D -1 \
    --control "fifo:$dir/perf-ctl,$dir/perf-ack" -- \
    "$JDK/bin/java" $SERVER_OPTS $vopts -cp "$CLS/server" E2eServer \
    --port 0 --backend "127.0.0.1:$bport" --pool "$POOL" > "$dir/server.log" 2>&1 &
  ppid_=$!; PIDS+=("$ppid_")
  wait_line "$dir/server.log" '^READY [0-9]+' 60 "$ppid_" server
  sport=$(awk '/^READY/ {print $2; exit}' "$dir/server.log")
  aport=$(awk '/^ADMIN/ {print $2; exit}' "$dir/server.log")
  spid=$(pgrep -P "$ppid_" -x java || true)
  [ -n "$spid" ] || die "cannot find the server JVM under perf (pid $ppid_)"
  PIDS+=("$spid")
  if [ -n "$CGROUP" ]; then
    echo "$spid" > "$CGROUP/cgroup.procs" || die "cannot move the server JVM (pid $spid) into $CGROUP"
  fi

  # shellcheck disable=SC2086
  setsid taskset -c "$LOAD_CPU" "$LOAD_JDK/bin/java" $LOAD_OPTS -cp "$CLS/loadgen:$HDR_JAR" E2eLoad \
    --port "$sport" --connections "$CONNECTIONS" --rate "$rate" --warmup-s "$warmup" --duration-s "$duration" \
    --drain-s "$DRAIN" --timeout-s "$TIMEOUT" --hgrm "$dir/latency.hgrm" --label "$variant rate=$rate pair=$pair" \
    > "$dir/load.log" 2>&1 &
  lpid=$!; PIDS+=("$lpid")
  wait_line "$dir/load.log" '^MEASURE_START' "$(awk -v w="$warmup" 'BEGIN { printf "%d", w + 120 }')" "$lpid" "load generator"

  # The perf window sits inside the load generator's measured window: from +0.5 s to +(duration-0.5) s.
  sleep 0.5
  perf_s=$(awk -v d="$duration" 'BEGIN { printf "%.3f", d - 1 }')
  thr0=$(throttled)
  c0=$(server_count "$aport"); lt0=$(cpu_ticks "$lpid"); bt0=$(cpu_ticks "$bpid"); ps0=$(psi_cpu); t0=$(date +%s.%N)
  perf_ctl enable "$dir"
  sleep "$perf_s"
  perf_ctl disable "$dir"
  t1=$(date +%s.%N); ps1=$(psi_cpu); c1=$(server_count "$aport"); lt1=$(cpu_ticks "$lpid"); bt1=$(cpu_ticks "$bpid")
  thr1=$(throttled)

  local rc=0
  wait "$lpid" || rc=$?
  [ "$rc" = 0 ] || { tail -20 "$dir/load.log" >&2; die "load generator failed with exit code $rc (log: $dir/load.log)"; }
  grep -q '^RESULT_JSON ' "$dir/load.log" || die "load generator printed no RESULT_JSON (log: $dir/load.log)"
  stop_pid "$spid"
  # perf writes its counts when the JVM has exited; give it time before any signal.
  for _ in $(seq 100); do kill -0 "$ppid_" 2>/dev/null || break; sleep 0.1; done
  stop_pid "$ppid_"; stop_pid "$bpid"
  PIDS=()
  exec {PCTL}>&- {PACK}<&-
  grep -q 'raw_syscalls:sys_enter' "$dir/perf.csv" 2>/dev/null || die "perf wrote no counts to $dir/perf.csv (see $dir/server.log)"
  {
    echo "variant=$variant"; echo "variant_opts=$vopts"; echo "rate=$rate"; echo "pair=$pair"
    echo "served_before=$c0"; echo "served_after=$c1"; echo "perf_t0=$t0"; echo "perf_t1=$t1"
    echo "load_ticks=$((lt1 - lt0))"; echo "backend_ticks=$((bt1 - bt0))"; echo "psi_cpu_us=$((ps1 - ps0))"
    echo "time_wait_after=$(ss -Htan state time-wait 2>/dev/null | wc -l)"
    echo "load1_before=$GUARD_LOAD1"; echo "psi10_before=$GUARD_PSI10"; echo "busy_before=$GUARD_BUSY"
    echo "throttled_periods=$((thr1 - thr0))"; echo "phase=${phase:-main}"
  } > "$dir/run.env"
  "$PY" "$HERE/report.py" summary "$dir" >&2 || die "could not parse the results in $dir"
  if [ "$phase" = cap ]; then basename "$dir" >> "$RAW/capacity.list"; else basename "$dir" >> "$RAW/runs.list"; fi
  LAST_DIR=$dir
  sleep 1
}

# Capacity: the highest rate at which the first variant keeps generator send lag
# p99 below --max-lag-ms and latency p99 below --cap-max-p99-ms, with no
# timeouts or errors and >= 98% achieved.
if [ "$CAPACITY" = 1 ]; then
  base=${VARIANTS%% *} rate=$CAP_START cap=""
  say "capacity search with $base from $CAP_START req/s, x$CAP_FACTOR per step, up to $CAP_MAX"
  while awk -v r="$rate" -v m="$CAP_MAX" 'BEGIN { exit !(r <= m) }'; do
    run_one "$base" "$rate" 0 cap
    verdict=$("$PY" "$HERE/report.py" capcheck "$LAST_DIR" "$MAX_LAG_MS" "$CAP_MAX_P99_MS") || die "could not read $LAST_DIR"
    say "capacity step $rate req/s: $verdict"
    [ "${verdict%% *}" = ok ] || break
    cap=$rate
    rate=$(awk -v r="$rate" -v f="$CAP_FACTOR" 'BEGIN { printf "%d", r * f + 0.5 }')
  done
  [ -n "$cap" ] || die "the server did not keep up even at --cap-start $CAP_START req/s ($verdict); lower --cap-start"
  RATE_LIST=$(for p in $CAP_PCTS; do awk -v c="$cap" -v p="$p" 'BEGIN { printf "%d ", c * p / 100 + 0.5 }'; done)
  RATE_KIND=capacity
  { echo "capacity_rate=$cap"; echo "rates=$RATE_LIST"; echo "rate_kind=$RATE_KIND"; } >> "$RAW/config.env"
  say "capacity: $cap req/s; running at $CAP_PCTS % of it: $RATE_LIST"
fi

n_runs=$(( $(wc -w <<<"$RATE_LIST") * PAIRS * $(wc -w <<<"$VARIANTS") ))
say "$n_runs runs: rates [$RATE_LIST] x $PAIRS pairs x [$VARIANTS]; $CONNECTIONS connections, warmup $WARMUP s, measured $DURATION s"
for rate in $RATE_LIST; do
  for ((pair = 1; pair <= PAIRS; pair++)); do
    for variant in $VARIANTS; do
      run_one "$variant" "$rate" "$pair"
    done
  done
done
bench_meta_end "$RAW/meta.env"

mkdir -p "$(dirname "$OUT")"
"$PY" "$HERE/report.py" render "$RAW" "$OUT" || die "report generation failed"
say "wrote $OUT"
