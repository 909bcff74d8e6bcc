#!/usr/bin/env bash
# ET-JDK third-party stacks on virtual threads (make bench-apps). See bench/apps/README.md.
#
#   bench/apps/run.sh --jdk <JDK image dir> [--out doc/results/apps.md] [options]
#
# Three parts, each cell run by every variant in turn (A B C A B C ...), a
# fresh JVM per run, >= 5 pairs:
#   peak  Jetty 12 (VirtualThreadPool) on CPU 0, wrk on CPU 1: /plaintext and
#         /json at 100 and 1,000 connections
#   rate  the same server capped at 12% of one CPU (a cgroup CPU quota, so that
#         one generator thread can hold the rates): first its capacity under
#         the cap (wrk), then bench/e2e's open-model generator at 50/75/90% of
#         the first variant's capacity: latency from the intended send time,
#         with the achieved rate and the send lag of every run
#   db    MariaDB Connector/J on 100 virtual threads (CPU 0) against a MariaDB
#         server this script starts in a temporary directory (CPU 1): point
#         SELECT, UPDATE + read back; one connection per thread, or a HikariCP
#         pool of 16
# perf stat counts the JVM under test (task-clock, context switches, epoll_ctl,
# all syscalls) over the measured window; bench/apps/report.py writes the page.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
CACHE=${ET_JDK_CACHE:-$HOME/.cache/et-jdk}
ORIG_ARGS=("$@")
# shellcheck source=../lib/guard.sh
. "$TOP/bench/lib/guard.sh"
# shellcheck source=db.sh
. "$HERE/db.sh"
# mariadbd lives in /usr/sbin, which a normal user's PATH may lack
PATH=$PATH:/usr/sbin:/sbin

PERF_EVENTS=task-clock,context-switches,syscalls:sys_enter_epoll_ctl,raw_syscalls:sys_enter
# the tools, by name (tools/test/run-frontend-tests.sh points them elsewhere to test the messages)
WRK=${BENCH_APPS_WRK:-wrk}
MARIADBD=${BENCH_APPS_MARIADBD:-mariadbd}
CG_ROOT=${BENCH_APPS_CGROUP_ROOT:-/sys/fs/cgroup}

# ---- defaults (documented in README.md) ----
JDK=""
LOAD_JDK=/usr/lib/jvm/temurin-25-jdk-amd64
OUT=$TOP/doc/results/apps.md
WORK=$TOP/build/bench/apps
PAIRS=5
ALLOW_BUSY=0
QUICK=0
PARTS="peak rate db"
ENDPOINTS="plaintext json"
PEAK_CONNS="100 1000"
RATE_PCTS="50 75 90"
RATE_CONNS=100
RATE_QUOTA=12
QUOTA_PERIOD_US=10000
PEAK_GIVEN=""
WARMUP=5
DURATION=15
DRAIN=2
TIMEOUT=5
MAX_LAG_MS=1
DB_TXS="select update"
DB_MODES="direct hikari"
DB_THREADS=100
DB_POOL=16
DB_ROWS=10000
SERVER_CPU=0
LOAD_CPU=1
JVM_OPTS="-XX:+UseSerialGC -Xms512m -Xmx512m"
LOAD_OPTS="-XX:+UseSerialGC -Xms512m -Xmx512m"
VNAMES=() VOPTS=() ADD_VNAMES=() ADD_VOPTS=()

say() { printf '%s\n' "run.sh: $*" >&2; }
logtail() { [ ! -s "$1" ] || tail -n "${2:-20}" "$1" >&2 || true; }   # logtail FILE [LINES]: the end of a log
die() { printf '%s\n' "run.sh: error: $*" >&2; exit 1; }

usage() {
  cat <<EOF
usage: bench/apps/run.sh --jdk DIR [options]

  --jdk DIR              JDK under test: runs the Jetty server and the database client (required)
  --out FILE.md          page to write; FILE.csv beside it, plots in FILE's dir/<name>/ (default: doc/results/apps.md)
  --variant NAME='OPTS'  a variant: name and JVM options; repeatable, the first is the baseline of
                         the ratios; replaces the default set
                         (default: UPSTREAM='' ET='-Djdk.pollerMode=2' MODE1='-Djdk.pollerMode=1')
  --add-variant NAME='OPTS'  one more variant after the others (the defaults or the --variant ones),
                         e.g. --add-variant MODE4='-Djdk.pollerMode=4'
  --pairs N              runs of every variant per cell, alternating A B C A B C (default: $PAIRS)
  --parts "P ..."        which parts, of: peak rate db (default: "$PARTS")
  --allow-busy           run even if the load guard (bench/README.md) finds the machine busy;
                         the page is then stamped "measured on a busy machine"
  --quick                smoke run (about 5 minutes): 1 pair, 1 s warmup, 3 s measured, rates 50 and 90%;
                         options given explicitly still apply
  --load-jdk DIR         JDK of the open-model load generator (default: $LOAD_JDK)
  --work DIR             classes, jars and raw runs (default: build/bench/apps)
  --warmup S / --duration S   warmup and measured seconds of every run, whole numbers (default: $WARMUP / $DURATION;
                         perf counts duration - 1 s inside the measured window)
  --endpoints "E ..."    HTTP endpoints, of: plaintext json (default: "$ENDPOINTS")
  --peak-connections "N ..."  wrk connections (default: "$PEAK_CONNS")
  --rate-pcts "P ..."    open-model rates, percent of the peak (default: "$RATE_PCTS")
  --rate-connections N   open-model connections (default: $RATE_CONNS)
  --rate-cpu-quota PCT   cap the server at PCT% of one CPU in the rate part (a cgroup CPU quota, period
                         $((QUOTA_PERIOD_US / 1000)) ms; root), measure its capacity under the cap with wrk, and run the rates
                         against that; 0: no cap, the rates are against the peak part's peak (default: $RATE_QUOTA)
  --peak plaintext=R,json=R   base rates (req/s) for the rate part, instead of measuring them
  --max-lag-ms MS        a rate run whose generator send lag p99 exceeds this did not hold its rate (default: $MAX_LAG_MS)
  --db-tx "T ..."        of: select update (default: "$DB_TXS")
  --db-modes "M ..."     of: direct hikari (default: "$DB_MODES")
  --db-threads N         virtual threads of the database client (default: $DB_THREADS)
  --db-pool N            HikariCP pool size (default: $DB_POOL)
  --server-cpu C / --load-cpu C   CPU of the JVM under test / of wrk, the load generator and mariadbd
                         (default: $SERVER_CPU / $LOAD_CPU)
  --jvm-opts "..."       JVM options of every run under test, before the variant's (default: "$JVM_OPTS")
  -h, --help             this text

Needs (Debian 12): wrk (apt-get install wrk), mariadbd and mariadb-install-db
(apt-get install mariadb-server), perf (apt-get install linux-perf), taskset
(util-linux), mvn the first time, to fetch the pinned jars (apt-get install maven).
EOF
}

for a in "$@"; do
  if [ "$a" = --quick ]; then QUICK=1 PAIRS=1 WARMUP=1 DURATION=3 DRAIN=1 RATE_PCTS="50 90"; fi
done
need() { [[ $# -ge 2 && -n $2 ]] || die "option $1 needs a value (see --help)"; }
while [ $# -gt 0 ]; do
  case $1 in
    --jdk) need "$@"; JDK=$2; shift 2 ;;
    --out) need "$@"; OUT=$2; shift 2 ;;
    --variant|--add-variant)
      [[ $# -ge 2 && $2 =~ ^[A-Za-z][A-Za-z0-9_-]*= ]] || die "$1 needs NAME='JVM options' (a name of letters, digits, _ or -), got '${2:-}'"
      if [ "$1" = --variant ]; then VNAMES+=("${2%%=*}"); VOPTS+=("${2#*=}"); else ADD_VNAMES+=("${2%%=*}"); ADD_VOPTS+=("${2#*=}"); fi
      shift 2 ;;
    --pairs) need "$@"; PAIRS=$2; shift 2 ;;
    --parts) need "$@"; PARTS=$2; shift 2 ;;
    --allow-busy) ALLOW_BUSY=1; shift ;;
    --quick) shift ;;
    --load-jdk) need "$@"; LOAD_JDK=$2; shift 2 ;;
    --work) need "$@"; WORK=$2; shift 2 ;;
    --warmup) need "$@"; WARMUP=$2; shift 2 ;;
    --duration) need "$@"; DURATION=$2; shift 2 ;;
    --endpoints) need "$@"; ENDPOINTS=$2; shift 2 ;;
    --peak-connections) need "$@"; PEAK_CONNS=$2; shift 2 ;;
    --rate-pcts) need "$@"; RATE_PCTS=$2; shift 2 ;;
    --rate-connections) need "$@"; RATE_CONNS=$2; shift 2 ;;
    --rate-cpu-quota) need "$@"; RATE_QUOTA=$2; shift 2 ;;
    --peak) need "$@"; PEAK_GIVEN=$2; shift 2 ;;
    --max-lag-ms) need "$@"; MAX_LAG_MS=$2; shift 2 ;;
    --db-tx) need "$@"; DB_TXS=$2; shift 2 ;;
    --db-modes) need "$@"; DB_MODES=$2; shift 2 ;;
    --db-threads) need "$@"; DB_THREADS=$2; shift 2 ;;
    --db-pool) need "$@"; DB_POOL=$2; shift 2 ;;
    --server-cpu) need "$@"; SERVER_CPU=$2; shift 2 ;;
    --load-cpu) need "$@"; LOAD_CPU=$2; shift 2 ;;
    --jvm-opts) JVM_OPTS=${2?--jvm-opts needs a value}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument: $1" ;;
  esac
done

# ---- validate arguments ----
isint() { [[ $1 =~ ^[0-9]+$ ]]; }
isnum() { [[ $1 =~ ^[0-9]+([.][0-9]+)?$ ]]; }
inlist() { local x=$1; shift; [[ " $* " == *" $x "* ]]; }
[ -n "$JDK" ] || { usage >&2; die "--jdk is required (the JDK under test, e.g. build/<conf>/images/jdk)"; }
for v in PAIRS WARMUP DURATION DRAIN TIMEOUT RATE_CONNS RATE_QUOTA DB_THREADS DB_POOL DB_ROWS SERVER_CPU LOAD_CPU; do
  isint "${!v}" || die "${v,,} must be a whole number, got '${!v}'"
done
isnum "$MAX_LAG_MS" || die "--max-lag-ms must be a number, got '$MAX_LAG_MS'"
(( PAIRS >= 1 )) || die "--pairs must be at least 1"
(( PAIRS >= 5 )) || say "warning: --pairs $PAIRS is below the 5 pairs the method asks for (../shared/perf/method.md)"
(( WARMUP >= 1 )) || die "--warmup must be at least 1 s"
(( DURATION >= 3 )) || die "--duration must be at least 3 s (perf counts duration - 1 s)"
(( DB_THREADS >= 1 && DB_THREADS <= 1000 )) || die "--db-threads must be 1..1000"
(( DB_POOL >= 1 && RATE_CONNS >= 1 )) || die "--db-pool and --rate-connections must be at least 1"
(( RATE_QUOTA <= 100 )) || die "--rate-cpu-quota must be a whole percentage of one CPU, 0-100 (0: no cap), got $RATE_QUOTA"
[ -n "${PARTS// /}" ] || die "--parts is empty"
for p in $PARTS; do inlist "$p" peak rate db || die "--parts: unknown part '$p' (peak, rate, db)"; done
for e in $ENDPOINTS; do inlist "$e" plaintext json || die "--endpoints: unknown endpoint '$e' (plaintext, json)"; done
for c in $PEAK_CONNS; do isint "$c" && (( c >= 1 )) || die "--peak-connections: '$c' is not a positive whole number"; done
for p in $RATE_PCTS; do isnum "$p" || die "--rate-pcts: '$p' is not a number"; done
for t in $DB_TXS; do inlist "$t" select update || die "--db-tx: unknown transaction '$t' (select, update)"; done
for m in $DB_MODES; do inlist "$m" direct hikari || die "--db-modes: unknown mode '$m' (direct, hikari)"; done
if (( ${#VNAMES[@]} == 0 )); then
  VNAMES=(UPSTREAM ET MODE1); VOPTS=("" "-Djdk.pollerMode=2" "-Djdk.pollerMode=1")
fi
VNAMES+=("${ADD_VNAMES[@]}"); VOPTS+=("${ADD_VOPTS[@]}")
declare -A seen=()
for n in "${VNAMES[@]}"; do [[ -z ${seen[$n]:-} ]] || die "--variant $n given twice"; seen[$n]=1; done
[[ $OUT == *.md ]] || die "--out must name a .md file, got '$OUT'"
case $OUT in /*) ;; *) OUT=$PWD/$OUT ;; esac
case $WORK in /*) ;; *) WORK=$PWD/$WORK ;; esac
declare -A PEAK=() GIVEN=()
if [ -n "$PEAK_GIVEN" ]; then
  for kv in ${PEAK_GIVEN//,/ }; do
    [[ $kv =~ ^(plaintext|json)=([0-9]+([.][0-9]+)?)$ ]] || die "--peak: expected plaintext=R,json=R, got '$kv'"
    PEAK[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]} GIVEN[${BASH_REMATCH[1]}]=1
  done
fi
if inlist rate $PARTS && ! inlist peak $PARTS && (( RATE_QUOTA == 0 )); then
  for e in $ENDPOINTS; do
    [ -n "${PEAK[$e]:-}" ] || die "the rate part without a CPU cap needs the peak: run the peak part too, or pass --peak $e=REQ_PER_S"
  done
fi

# ---- preflight: every tool and setting the run needs, before anything is written ----
# need_tool COMMAND DEBIAN_PACKAGE WHAT
need_tool() {
  command -v "$1" >/dev/null 2>&1 ||
    die "$1 not found: $3 needs it. On Debian 12 it is in the package $2: apt-get install $2 (as root)"
}
[ -d "$JDK" ] || die "--jdk: no such directory: $JDK"
JDK=$(cd "$JDK" && pwd)
[ -x "$JDK/bin/java" ] && [ -x "$JDK/bin/javac" ] ||
  die "--jdk $JDK is not a JDK: bin/java and bin/javac are needed (pass an images/jdk directory, not images/jre)"
jfeature() { "$1/bin/java" -XshowSettings:properties -version 2>&1 | awk -F' = ' '/java.specification.version/ {print $2; exit}'; }
feat=$(jfeature "$JDK")
[ "${feat%%.*}" -ge 21 ] 2>/dev/null || die "--jdk $JDK is Java '${feat:-?}'; virtual threads and Jetty's VirtualThreadPool need 21 or later"
if inlist peak $PARTS; then need_tool "$WRK" wrk "the peak part (HTTP throughput)"; fi
if inlist rate $PARTS && (( RATE_QUOTA > 0 )); then need_tool "$WRK" wrk "the rate part under a CPU cap (warmup and capacity)"; fi
# where the rate part's CPU quota can be set: cgroup v1's cpu controller, or cgroup v2 with cpu
CG_VERSION=""
if inlist rate $PARTS && (( RATE_QUOTA > 0 )); then
  if [ -f "$CG_ROOT/cpu/cpu.cfs_quota_us" ]; then CG_VERSION=1 CG_PARENT=$CG_ROOT/cpu
  elif grep -qw cpu "$CG_ROOT/cgroup.controllers" 2>/dev/null; then CG_VERSION=2 CG_PARENT=$CG_ROOT
  else die "--rate-cpu-quota $RATE_QUOTA needs a cgroup CPU controller (v1 at $CG_ROOT/cpu, or v2 at $CG_ROOT with cpu in cgroup.controllers); none found. Pass --rate-cpu-quota 0 to run the rate part without a cap"
  fi
  [ -w "$CG_PARENT" ] || die "--rate-cpu-quota $RATE_QUOTA: $CG_PARENT is not writable; run as root, or pass --rate-cpu-quota 0"
fi
if inlist rate $PARTS; then
  [ -x "$LOAD_JDK/bin/java" ] && [ -x "$LOAD_JDK/bin/javac" ] ||
    die "--load-jdk $LOAD_JDK: no JDK there (the open-model load generator runs on it); install Temurin 25 or pass --load-jdk"
fi
if inlist db $PARTS; then
  need_tool "$MARIADBD" mariadb-server "the db part (the database server)"
  need_tool mariadb-install-db mariadb-server "the db part (creating the server's data directory)"
fi
need_tool taskset util-linux "pinning the server and the load to CPUs"
need_tool setsid util-linux "starting every server in its own session"
need_tool perf linux-perf "counting CPU time, context switches and syscalls"
need_tool python3 python3 "the report"
for c in "$SERVER_CPU" "$LOAD_CPU"; do
  taskset -c "$c" true 2>/dev/null || die "CPU $c is not available to this process (nproc=$(nproc)); choose --server-cpu/--load-cpu"
done
[ "$SERVER_CPU" != "$LOAD_CPU" ] || die "--server-cpu and --load-cpu must differ"
max_conns=$RATE_CONNS
for c in $PEAK_CONNS; do if (( c > max_conns )); then max_conns=$c; fi; done
need_fd=$((max_conns + 1024))
soft=$(ulimit -Sn) hard=$(ulimit -Hn)
if [ "$soft" != unlimited ] && (( soft < need_fd )); then
  if [ "$hard" = unlimited ] || (( hard >= need_fd )); then
    ulimit -Sn "$need_fd" || die "cannot raise ulimit -n from $soft to $need_fd"
  else
    die "ulimit -n: the hard limit $hard is below the $need_fd file descriptors needed for $max_conns connections"
  fi
fi

# ---- process and temporary-file bookkeeping: nothing outlives the run ----
PIDS=()         # every process started in the background, in start order
TMP_ROOT=""     # mktemp directory: FIFOs, the database's data directory and socket
DB_PID="" DB_DIR="" NAP_PID="" RAW="" PCTL="" PACK="" CGROUP=""
stop_pid() {    # stop_pid PID [SECONDS]: TERM, then KILL after SECONDS (10)
  local p=$1 t=${2:-10} i
  kill -TERM "$p" 2>/dev/null || return 0
  for ((i = 0; i < t * 10; i++)); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$p" 2>/dev/null || true
  wait "$p" 2>/dev/null || true
}
db_stop() {      # the MariaDB server: TERM, up to 60 s for a clean shutdown
  [ -n "$DB_PID" ] || return 0
  stop_pid "$DB_PID" 60
  DB_PID=""
  [ -z "$RAW" ] || [ ! -f "$DB_DIR/mariadbd.err" ] || cp "$DB_DIR/mariadbd.err" "$RAW/mariadbd.err" 2>/dev/null || true
  [ -z "$DB_DIR" ] || rm -rf "$DB_DIR"
}
cleanup() {
  local rc=$? i p
  set +e
  trap '' INT TERM
  [ -z "$NAP_PID" ] || kill "$NAP_PID" 2>/dev/null || true
  # the newest first: the load, then the JVM under test, then perf
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do kill -TERM "${PIDS[$i]}" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do stop_pid "$p" 5; done
  PIDS=()
  [ -z "$PCTL" ] || exec {PCTL}>&- 2>/dev/null || true
  [ -z "$PACK" ] || exec {PACK}<&- 2>/dev/null || true
  db_stop
  [ -z "$CGROUP" ] || rmdir "$CGROUP" 2>/dev/null || say "could not remove $CGROUP"
  if [ -n "$TMP_ROOT" ] && [ -d "$TMP_ROOT" ]; then rm -rf "$TMP_ROOT"; fi
  guard_unlock
  if (( rc != 0 )) && [ -n "$RAW" ]; then say "stopped (exit $rc); raw files so far: $RAW"; fi
}
trap cleanup EXIT
trap 'say "interrupted (SIGINT): stopping every process this run started"; exit 130' INT
trap 'say "terminated (SIGTERM): stopping every process this run started"; exit 143' TERM

# nap S: sleep that a signal interrupts at once (the trap runs, then cleanup)
nap() { sleep "$1" & NAP_PID=$!; wait "$NAP_PID"; NAP_PID=""; }
# bg LOG WHAT CMD...: start CMD in its own session (its own autogroup; a Ctrl-C reaches it
# only through our trap), output to LOG; sets BG_PID
bg() {
  local log=$1 what=$2; shift 2
  setsid "$@" >"$log" 2>&1 &
  BG_PID=$!; PIDS+=("$BG_PID")
  echo "$(date -u +%H:%M:%S) $BG_PID $what" >>"$RAW/processes.log"
}
forget() { local p k; for p; do for k in "${!PIDS[@]}"; do [ "${PIDS[$k]}" != "$p" ] || unset "PIDS[$k]"; done; done; PIDS=("${PIDS[@]}"); }
# wait_exit PID SECONDS WHAT LOG: returns PID's exit status; stops the run if PID outlives SECONDS
wait_exit() {
  local pid=$1 t=$2 what=$3 log=$4 i rc=0
  for ((i = 0; i < t * 2; i++)); do kill -0 "$pid" 2>/dev/null || break; nap 0.5; done
  if kill -0 "$pid" 2>/dev/null; then logtail "$log"; die "$what still ran $t s after it should have ended (log: $log)"; fi
  wait "$pid" || rc=$?
  forget "$pid"
  return "$rc"
}
# wait_line FILE REGEX TIMEOUT_S PID WHAT: wait for a line in FILE while PID lives
wait_line() {
  local file=$1 re=$2 t=$3 pid=$4 what=$5 i
  for ((i = 0; i < t * 10; i++)); do
    grep -qE "$re" "$file" 2>/dev/null && return 0
    kill -0 "$pid" 2>/dev/null || { say "$what exited; the end of its log ($file):"; logtail "$file"; die "$what did not start"; }
    sleep 0.1
  done
  say "$what printed no '$re' within $t s; the end of its log ($file):"; logtail "$file"
  die "$what did not start"
}

# ---- the load guard (bench/README.md): refuse a busy machine, then hold the lock ----
guard_init run.sh "$ALLOW_BUSY"
guard_check start "the first run"
guard_lock

# ---- jars: pinned in pom.xml, fetched by mvn (checksums checked, -C), then against jars.sha256;
# kept outside the work tree, so that clones and scratch runs share them ----
LIB=$CACHE/bench-apps/lib
mkdir -p "$LIB" || die "cannot create $LIB"
jars_ok() { (cd "$LIB" && sha256sum --quiet -c "$HERE/jars.sha256") >/dev/null 2>&1; }
if ! jars_ok; then
  need_tool mvn maven "fetching the pinned jars (Jetty, MariaDB Connector/J, HikariCP, HdrHistogram) from Maven Central"
  say "fetching the pinned jars (bench/apps/pom.xml) with mvn into $CACHE/maven"
  mvn -B -C -Dstyle.color=never -Dmaven.repo.local="$CACHE/maven" -f "$HERE/pom.xml" \
    dependency:copy-dependencies -DoutputDirectory="$LIB" -DincludeScope=runtime >"$LIB/mvn.log" 2>&1 ||
    { logtail "$LIB/mvn.log"; die "mvn could not fetch the jars of bench/apps/pom.xml (network, or a checksum mismatch; log: $LIB/mvn.log)"; }
  (cd "$LIB" && sha256sum --quiet -c "$HERE/jars.sha256") >&2 ||
    die "a jar in $LIB does not match bench/apps/jars.sha256 (delete $LIB and $CACHE/maven to fetch again)"
fi
CP=$(awk -v d="$LIB" '{ printf "%s%s/%s", sep, d, $2; sep = ":" }' "$HERE/jars.sha256")
HDR_JAR=$LIB/$(awk '$2 ~ /^HdrHistogram-/ { print $2 }' "$HERE/jars.sha256")

# ---- perf: can it count the events, with counters started disabled? ----
TMP_ROOT=$(mktemp -d "${TMPDIR:-/tmp}/et-bench-apps.XXXXXX")
chmod 711 "$TMP_ROOT"
mkfifo "$TMP_ROOT/probe-ctl" "$TMP_ROOT/probe-ack"
probe=$(perf stat -x, -e "$PERF_EVENTS" -D -1 --control "fifo:$TMP_ROOT/probe-ctl,$TMP_ROOT/probe-ack" -- true 2>&1) ||
  die "perf stat cannot count $PERF_EVENTS with counters started disabled (perf 5.9 or later, run as root or lower
  /proc/sys/kernel/perf_event_paranoid and make tracefs readable):
$probe"
! grep -q '<not supported>' <<<"$probe" || die "perf stat: an event is not supported here:
$probe"
rm -f "$TMP_ROOT/probe-ctl" "$TMP_ROOT/probe-ack"

# ---- the rate part's CPU cap: a cgroup of its own, removed by cleanup ----
if [ -n "$CG_VERSION" ]; then
  CGROUP=$CG_PARENT/et-bench-apps-$$
  mkdir "$CGROUP" || { CGROUP=""; die "cannot create the cgroup $CG_PARENT/et-bench-apps-$$"; }
  if [ "$CG_VERSION" = 1 ]; then
    { echo "$QUOTA_PERIOD_US" >"$CGROUP/cpu.cfs_period_us" &&
      echo $((QUOTA_PERIOD_US * RATE_QUOTA / 100)) >"$CGROUP/cpu.cfs_quota_us"; } 2>/dev/null
  else
    { grep -qw cpu "$CG_PARENT/cgroup.subtree_control" || echo +cpu >"$CG_PARENT/cgroup.subtree_control"; } 2>/dev/null &&
      echo "$((QUOTA_PERIOD_US * RATE_QUOTA / 100)) $QUOTA_PERIOD_US" >"$CGROUP/cpu.max" 2>/dev/null
  fi || die "cannot set a CPU quota of $RATE_QUOTA% in $CGROUP (cgroup v$CG_VERSION)"
  say "rate part: the server is capped at $RATE_QUOTA% of one CPU ($CGROUP, period $QUOTA_PERIOD_US us)"
fi

# ---- compile ----
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
RAW=$WORK/runs/$STAMP
mkdir -p "$RAW/runs" "$WORK/classes"
guard_log_to "$RAW/guard.log"
{ echo "tmp_root=$TMP_ROOT"; echo "cgroup=$CGROUP"; } >"$RAW/session.env"
say "raw results: $RAW"
CLS=$WORK/classes
rm -rf "$CLS"; mkdir -p "$CLS/app" "$CLS/loadgen"
"$JDK/bin/javac" -nowarn -cp "$CP" -d "$CLS/app" "$HERE/src/AppServer.java" "$HERE/src/DbBench.java" ||
  die "javac (AppServer, DbBench) failed"
if inlist rate $PARTS; then
  "$LOAD_JDK/bin/javac" -nowarn -cp "$HDR_JAR" -d "$CLS/loadgen" "$TOP/bench/e2e/src/loadgen/E2eLoad.java" ||
    die "javac (E2eLoad) failed"
fi

# ---- what the page states ----
{
  echo "jdk=$JDK"; echo "load_jdk=$LOAD_JDK"; echo "pairs=$PAIRS"; echo "parts=$PARTS"; echo "quick=$QUICK"
  echo "endpoints=$ENDPOINTS"; echo "peak_connections=$PEAK_CONNS"; echo "rate_pcts=$RATE_PCTS"
  echo "rate_connections=$RATE_CONNS"; echo "rate_cpu_quota=$RATE_QUOTA"; echo "quota_period_us=$QUOTA_PERIOD_US"
  echo "cgroup_version=$CG_VERSION"; echo "max_lag_ms=$MAX_LAG_MS"; echo "warmup=$WARMUP"; echo "duration=$DURATION"
  echo "drain=$DRAIN"; echo "timeout=$TIMEOUT"; echo "db_txs=$DB_TXS"; echo "db_modes=$DB_MODES"
  echo "db_threads=$DB_THREADS"; echo "db_pool=$DB_POOL"; echo "db_rows=$DB_ROWS"
  echo "server_cpu=$SERVER_CPU"; echo "load_cpu=$LOAD_CPU"; echo "jvm_opts=$JVM_OPTS"; echo "load_opts=$LOAD_OPTS"
  echo "perf_events=$PERF_EVENTS"; echo "perf_version=$(perf version 2>/dev/null | head -1)"
  echo "git_dirty=$([ -n "$(git -C "$TOP" status --porcelain 2>/dev/null | head -1)" ] && echo 1 || echo 0)"
  echo "jars=$(awk '{ sub(/\.jar$/, "", $2); printf "%s%s", sep, $2; sep = " " }' "$HERE/jars.sha256")"
  if inlist peak $PARTS; then echo "wrk_version=$("$WRK" -v 2>&1 | head -1 | sed 's/ Copyright.*//')"; fi
  if inlist rate $PARTS; then echo "load_java=$("$LOAD_JDK/bin/java" -version 2>&1 | sed -n 2p)"; fi
  if inlist db $PARTS; then echo "mariadbd_version=$("$MARIADBD" --version 2>/dev/null | head -1)"; fi
} >"$RAW/config.env"
bench_meta_start "$RAW/meta.env" "$JDK/bin/java" bench/apps/run.sh "${ORIG_ARGS[@]}"
printf 'name\topts\n' >"$RAW/variants.tsv"
for i in "${!VNAMES[@]}"; do printf '%s\t%s\n' "${VNAMES[$i]}" "${VOPTS[$i]}" >>"$RAW/variants.tsv"; done
: >"$RAW/runs.list"

# ---- perf around the JVM under test ----
# The JVM runs under perf stat with its counters off (-D -1); they are switched on and
# off through a control FIFO around the measured window. Unlike attaching with -p, this
# also counts JVM threads created after the start.
perf_ctl() {    # perf_ctl enable|disable RUN_TAG
  local cmd=$1 tag=$2 line
  if [ "$cmd" = enable ]; then exec {PCTL}<>"$TMP_ROOT/$tag.ctl" {PACK}<>"$TMP_ROOT/$tag.ack"; fi
  printf '%s\n' "$cmd" >&"$PCTL"
  IFS= read -r -t 15 -u "$PACK" line || die "perf did not acknowledge '$cmd'"
  [[ $line == *ack* ]] || die "perf answered '$line' to '$cmd'"
  if [ "$cmd" = disable ]; then exec {PCTL}>&- {PACK}<&-; PCTL="" PACK=""; fi
}
# start_under_perf DIR TAG LOG WHAT JAVA_ARGS...: the JVM under test on SERVER_CPU; sets
# PERF_PID and JAVA_PID
start_under_perf() {
  local dir=$1 tag=$2 log=$3 what=$4 i; shift 4
  rm -f "$TMP_ROOT/$tag.ctl" "$TMP_ROOT/$tag.ack"
  mkfifo "$TMP_ROOT/$tag.ctl" "$TMP_ROOT/$tag.ack"
  bg "$log" "perf + $what" taskset -c "$SERVER_CPU" perf stat -x, -o "$dir/perf.csv" -e "$PERF_EVENTS" -D -1 \
    --control "fifo:$TMP_ROOT/$tag.ctl,$TMP_ROOT/$tag.ack" -- "$JDK/bin/java" "$@"
  PERF_PID=$BG_PID JAVA_PID=""
  for ((i = 0; i < 100; i++)); do
    JAVA_PID=$(pgrep -P "$PERF_PID" 2>/dev/null | head -1 || true)
    [ -z "$JAVA_PID" ] || break
    kill -0 "$PERF_PID" 2>/dev/null || break
    sleep 0.05
  done
  if [ -n "$JAVA_PID" ]; then PIDS+=("$JAVA_PID"); echo "$(date -u +%H:%M:%S) $JAVA_PID $what (java under perf)" >>"$RAW/processes.log"; fi
}
# stop_under_perf: stop the JVM, then let perf write its counts and exit
stop_under_perf() {
  [ -z "$JAVA_PID" ] || stop_pid "$JAVA_PID" 10
  local i
  for ((i = 0; i < 100; i++)); do kill -0 "$PERF_PID" 2>/dev/null || break; sleep 0.1; done
  stop_pid "$PERF_PID" 5
  forget "$JAVA_PID" "$PERF_PID"
  rm -f "$TMP_ROOT"/*.ctl "$TMP_ROOT"/*.ack
}

served() {      # served ADMIN_PORT: requests the server has handled
  local out
  # shellcheck disable=SC2016
  out=$(timeout 15 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1" && cat <&3' _ "$1") || die "cannot read the server's request count (admin port $1)"
  [[ $out =~ ^[0-9]+$ ]] || die "unexpected answer from the server's admin port $1: '$out'"
  echo "$out"
}
# http_check PORT PATH BODY: one request; the status must be 200 and the body exactly BODY
http_check() {
  local resp
  # shellcheck disable=SC2016
  resp=$(timeout 15 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1" && printf "GET %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n" "$2" >&3 && cat <&3' \
    _ "$1" "$2" | tr -d '\r') || die "no answer from the server for GET $2"
  [[ $(head -1 <<<"$resp") == "HTTP/1.1 200"* ]] || die "GET $2: expected 200, got: $(head -1 <<<"$resp")"
  [[ ${resp#*$'\n\n'} == "$3" ]] || die "GET $2: expected the body '$3', got '${resp#*$'\n\n'}'"
}
declare -A BODY=([plaintext]='Hello, World!' [json]='{"message":"Hello, World!"}')

# tcp_counters WHEN: the kernel's TCP counters that tell a lost segment from a slow
# server (system-wide; loopback is all there is here), as tcp_<name>_WHEN lines
TCP_COUNTERS="TcpExtListenOverflows TcpExtTCPSynRetrans TcpExtTCPTimeouts TcpRetransSegs"
tcp_counters() {
  command -v nstat >/dev/null || return 0
  # shellcheck disable=SC2086
  nstat -asz $TCP_COUNTERS 2>/dev/null | awk -v w="$1" 'NF >= 2 && $1 !~ /^#/ { print "tcp_" $1 "_" w "=" $2 }'
}

RUN_NO=0
# run_begin PART CELL PAIR VARIANT_INDEX: guard, run directory; sets DIR TAG VNAME VOPTS_A
run_begin() {
  local part=$1 cell=$2 pair=$3 vi=$4
  VNAME=${VNAMES[$vi]}
  read -r -a VOPTS_A <<<"${VOPTS[$vi]}"
  (( RUN_NO == 0 )) || guard_check between "$part $cell, pair $pair, $VNAME"
  RUN_NO=$((RUN_NO + 1))
  TAG=$(printf '%s-%s-p%02d-%s' "$part" "$cell" "$pair" "$VNAME")
  DIR=$RAW/runs/$TAG
  mkdir -p "$DIR"
  say "run $RUN_NO: $part $cell, pair $pair, $VNAME (${VOPTS[$vi]:-no options})"
  {
    echo "part=$part"; echo "cell=$cell"; echo "pair=$pair"; echo "variant=$VNAME"
    echo "load1_before=$GUARD_LOAD1"; echo "psi10_before=$GUARD_PSI10"; echo "busy_before=$GUARD_BUSY"
    tcp_counters before
  } >"$DIR/run.env"
}
run_end() {     # run_end: record, print the run's line
  guard_run_ended
  { echo "load1_after=$GUARD_LOAD1_RUN_END"; tcp_counters after; } >>"$DIR/run.env"
  echo "runs/$TAG" >>"$RAW/runs.list"
  python3 "$HERE/report.py" line "$RAW" "$DIR" >&2 || die "could not read the results in $DIR"
}

# start_server: Jetty under perf; sets SPORT APORT
start_server() {
  # shellcheck disable=SC2086
  start_under_perf "$DIR" "$TAG" "$DIR/server.log" "Jetty server" $JVM_OPTS "${VOPTS_A[@]}" \
    -cp "$CP:$CLS/app" AppServer --port 0
  wait_line "$DIR/server.log" '^ADMIN [0-9]+' 60 "$PERF_PID" "the Jetty server"
  SPORT=$(awk '/^READY/ {print $2; exit}' "$DIR/server.log")
  APORT=$(awk '/^ADMIN/ {print $2; exit}' "$DIR/server.log")
  [ -n "$JAVA_PID" ] || die "cannot find the server JVM under perf (pid $PERF_PID)"
  { echo "server_port=$SPORT"; echo "admin_port=$APORT"; } >>"$RAW/session.env"
}
# wrk_warmup URL CONNS: wrk for WARMUP s (the JIT's work, before any cap)
wrk_warmup() {
  local rc=0
  bg "$DIR/wrk-warmup.log" "wrk warmup" taskset -c "$LOAD_CPU" "$WRK" -t1 -c"$2" -d"${WARMUP}s" --timeout "${TIMEOUT}s" "$1"
  wait_exit "$BG_PID" $((WARMUP + 60)) "wrk (warmup)" "$DIR/wrk-warmup.log" || rc=$?
  (( rc == 0 )) || { logtail "$DIR/wrk-warmup.log" 5; die "wrk (warmup) failed, exit $rc"; }
}
# cap_server: the server JVM into the rate part's cgroup, after its uncapped warmup
cap_server() {
  echo "$JAVA_PID" >"$CGROUP/cgroup.procs" || die "cannot move the server JVM (pid $JAVA_PID) into $CGROUP"
  echo "cpu_quota_pct=$RATE_QUOTA" >>"$DIR/run.env"
}
# measure LOAD_PID: the perf window, +0.5 s to duration - 0.5 s of the measured window
measure() {
  local c0 c1 t0 t1
  nap 0.5
  c0=$(served "$APORT"); t0=$(date +%s.%N)
  perf_ctl enable "$TAG"
  nap "$((DURATION - 1))"
  perf_ctl disable "$TAG"
  t1=$(date +%s.%N); c1=$(served "$APORT")
  { echo "served_before=$c0"; echo "served_after=$c1"; echo "perf_t0=$t0"; echo "perf_t1=$t1"; } >>"$DIR/run.env"
}

run_peak() {    # run_peak ENDPOINT CONNS PAIR VARIANT_INDEX [capacity]: capacity, under the rate part's cap
  local ep=$1 conns=$2 rc=0 part=${5:-peak}
  run_begin "$part" "$ep-c$conns" "$3" "$4"
  { echo "endpoint=$ep"; echo "connections=$conns"; } >>"$DIR/run.env"
  start_server
  http_check "$SPORT" "/$ep" "${BODY[$ep]}"
  local url=http://127.0.0.1:$SPORT/$ep
  wrk_warmup "$url" "$conns"
  if [ "$part" = capacity ]; then cap_server; fi
  bg "$DIR/wrk.log" "wrk" taskset -c "$LOAD_CPU" "$WRK" -t1 -c"$conns" -d"${DURATION}s" --timeout "${TIMEOUT}s" \
    -s "$HERE/src/wrk-report.lua" "$url"
  local wpid=$BG_PID
  measure
  wait_exit "$wpid" 60 wrk "$DIR/wrk.log" || rc=$?
  (( rc == 0 )) || { logtail "$DIR/wrk.log" 5; die "wrk failed, exit $rc (log: $DIR/wrk.log)"; }
  grep -q '^WRK_RESULT ' "$DIR/wrk.log" || die "wrk printed no WRK_RESULT line (log: $DIR/wrk.log)"
  http_check "$SPORT" "/$ep" "${BODY[$ep]}"
  stop_under_perf
  run_end
}

run_rate() {    # run_rate ENDPOINT PCT RATE PAIR VARIANT_INDEX
  local ep=$1 pct=$2 rate=$3 rc=0
  run_begin rate "$ep-$pct" "$4" "$5"
  { echo "endpoint=$ep"; echo "pct=$pct"; echo "rate_target=$rate"; echo "connections=$RATE_CONNS"; echo "max_lag_ms=$MAX_LAG_MS"; } >>"$DIR/run.env"
  start_server
  http_check "$SPORT" "/$ep" "${BODY[$ep]}"
  if [ -n "$CGROUP" ]; then wrk_warmup "http://127.0.0.1:$SPORT/$ep" "$RATE_CONNS"; cap_server; fi
  # shellcheck disable=SC2086
  bg "$DIR/load.log" "open-model load generator" taskset -c "$LOAD_CPU" "$LOAD_JDK/bin/java" $LOAD_OPTS \
    -cp "$CLS/loadgen:$HDR_JAR" E2eLoad --port "$SPORT" --path "/$ep" --connections "$RATE_CONNS" --rate "$rate" \
    --warmup-s "$WARMUP" --duration-s "$DURATION" --drain-s "$DRAIN" --timeout-s "$TIMEOUT" \
    --spin-us 2000 --hgrm "$DIR/latency.hgrm" --label "$VNAME $ep $pct% pair $4"
  local lpid=$BG_PID
  wait_line "$DIR/load.log" '^MEASURE_START' $((WARMUP + 120)) "$lpid" "the load generator"
  measure
  wait_exit "$lpid" $((DRAIN + 60)) "the load generator" "$DIR/load.log" || rc=$?
  (( rc == 0 )) || { logtail "$DIR/load.log"; die "the load generator failed, exit $rc (log: $DIR/load.log)"; }
  grep -q '^RESULT_JSON ' "$DIR/load.log" || die "the load generator printed no RESULT_JSON (log: $DIR/load.log)"
  stop_under_perf
  run_end
}

# ---- MariaDB server: a throwaway data directory under TMP_ROOT, a free port, CPU LOAD_CPU ----
DB_URL=""
db_start() {
  local user port
  DB_DIR=$TMP_ROOT/mariadb
  mkdir -p "$DB_DIR/data"
  user=$(db_user "$DB_DIR")
  say "database: mariadb-install-db into $DB_DIR/data"
  db_install "$DB_DIR/data" "$user" "$RAW/mariadb-install.log" || die "the MariaDB data directory was not created"
  port=$(db_free_port)
  db_server_args "$DB_DIR" "$user" "$port" $((DB_THREADS + 100))
  bg "$RAW/mariadbd.out" "mariadbd" taskset -c "$LOAD_CPU" "$MARIADBD" "${DB_SERVER_ARGS[@]}"
  DB_PID=$BG_PID
  forget "$DB_PID"          # stopped by db_stop, with time for a clean shutdown
  echo "db_port=$port" >>"$RAW/session.env"; echo "db_pid=$DB_PID" >>"$RAW/session.env"
  db_wait_ready "$DB_DIR" "$DB_PID" || { logtail "$RAW/mariadbd.out"; die "the MariaDB server did not start"; }
  DB_URL="$(db_url "$port")&socketTimeout=60000"
  "$JDK/bin/java" -cp "$CP:$CLS/app" DbBench --setup --url "$DB_URL" --rows "$DB_ROWS" >"$RAW/db-setup.log" 2>&1 ||
    { logtail "$RAW/db-setup.log"; die "creating the benchmark table failed (log: $RAW/db-setup.log)"; }
  say "database: $(grep '^SETUP' "$RAW/db-setup.log"), port $port"
}

run_db() {      # run_db TX MODE PAIR VARIANT_INDEX
  local tx=$1 mode=$2 rc=0
  run_begin db "$tx-$mode" "$3" "$4"
  { echo "tx=$tx"; echo "mode=$mode"; echo "threads=$DB_THREADS"; echo "pool=$DB_POOL"; } >>"$DIR/run.env"
  # shellcheck disable=SC2086
  start_under_perf "$DIR" "$TAG" "$DIR/client.log" "database client" $JVM_OPTS "${VOPTS_A[@]}" \
    -cp "$CP:$CLS/app" DbBench --url "$DB_URL" --tx "$tx" --mode "$mode" --threads "$DB_THREADS" --pool "$DB_POOL" \
    --rows "$DB_ROWS" --warmup-s "$WARMUP" --duration-s "$DURATION" --nonce "$RUN_NO" \
    --perf-ctl "$TMP_ROOT/$TAG.ctl" --perf-ack "$TMP_ROOT/$TAG.ack"
  wait_exit "$PERF_PID" $((WARMUP + DURATION + 120)) "the database client" "$DIR/client.log" || rc=$?
  stop_under_perf
  (( rc == 0 )) || { logtail "$DIR/client.log"; die "the database client failed, exit $rc (log: $DIR/client.log)"; }
  grep -q '^RESULT ' "$DIR/client.log" || die "the database client printed no RESULT (log: $DIR/client.log)"
  run_end
  local bad
  bad=$(awk '/^RESULT / { for (i = 2; i <= NF; i++) { split($i, kv, "="); r[kv[1]] = kv[2] } print r["bad"] + r["lost"] }' "$DIR/client.log")
  (( bad == 0 )) || die "$bad wrong results or lost updates in $tx-$mode, $VNAME, pair $3: $(grep -h '^FIRST_BAD' "$DIR/client.log") (log: $DIR/client.log)"
}

# ---- the runs: per cell, pair 1 (A B C), pair 2 (A B C), ... ----
nv=${#VNAMES[@]}
if inlist peak $PARTS; then
  for ep in $ENDPOINTS; do for c in $PEAK_CONNS; do
    for ((pair = 1; pair <= PAIRS; pair++)); do for ((vi = 0; vi < nv; vi++)); do run_peak "$ep" "$c" "$pair" "$vi"; done; done
  done; done
  for ep in $ENDPOINTS; do
    [ -n "${PEAK[$ep]:-}" ] && continue
    PEAK[$ep]=$(python3 "$HERE/report.py" peak "$RAW" "$ep") || die "could not compute the peak of /$ep"
  done
fi
if inlist rate $PARTS; then
  declare -A BASE_FROM=()
  for ep in $ENDPOINTS; do
    if [ -n "${GIVEN[$ep]:-}" ]; then BASE_FROM[$ep]="--peak"
    elif (( RATE_QUOTA > 0 )); then
      for ((pair = 1; pair <= PAIRS; pair++)); do for ((vi = 0; vi < nv; vi++)); do
        run_peak "$ep" "$RATE_CONNS" "$pair" "$vi" capacity
      done; done
      PEAK[$ep]=$(python3 "$HERE/report.py" peak "$RAW" "$ep" capacity) || die "could not compute the capacity of /$ep"
      BASE_FROM[$ep]="median of ${VNAMES[0]}'s capacity at $RATE_QUOTA% of one CPU"
    else BASE_FROM[$ep]="median of ${VNAMES[0]} at its best connection count"
    fi
  done
  for ep in $ENDPOINTS; do
    echo "peak_$ep=${PEAK[$ep]}" >>"$RAW/config.env"
    say "/$ep: base ${PEAK[$ep]} req/s (${BASE_FROM[$ep]}); rates at $RATE_PCTS %"
    for pct in $RATE_PCTS; do
      rate=$(awk -v p="${PEAK[$ep]}" -v q="$pct" 'BEGIN { printf "%d", p * q / 100 + 0.5 }')
      (( rate >= 1 )) || die "the rate for /$ep at $pct% of ${PEAK[$ep]} is below 1 req/s"
      for ((pair = 1; pair <= PAIRS; pair++)); do for ((vi = 0; vi < nv; vi++)); do run_rate "$ep" "$pct" "$rate" "$pair" "$vi"; done; done
    done
  done
fi
if inlist db $PARTS; then
  db_start
  for tx in $DB_TXS; do for mode in $DB_MODES; do
    for ((pair = 1; pair <= PAIRS; pair++)); do for ((vi = 0; vi < nv; vi++)); do run_db "$tx" "$mode" "$pair" "$vi"; done; done
  done; done
  db_stop
fi
bench_meta_end "$RAW/meta.env"

python3 "$HERE/report.py" render "$RAW" "$OUT" || die "the report could not be written (raw runs kept in $RAW)"
say "wrote $OUT, ${OUT%.md}.csv and the plots in ${OUT%.md}/ (raw runs: $RAW)"
