#!/usr/bin/env bash
# idle-cpu.sh: what an idle JVM costs. IdleConnections.java holds CONNECTIONS
# silent connections (each with a virtual thread blocked reading; the peer
# holding the other ends is a separate process), or none at all
# (--connections 0: a JVM with nothing to do), and perf stat counts CPU time
# and context switches over SECONDS of silence. Variants alternate A B C A B C;
# then medians [min-max] and per-pair ratios to the first variant.
set -euo pipefail
ME=${0##*/}
HERE=$(cd "$(dirname "$0")" && pwd)

usage() {
  cat <<EOF
Usage: bench/idle/$ME --jdk DIR [options]
       bench/idle/$ME JDK [pairs] [connections] [seconds] [--variant NAME='OPTS' ...]

Options (defaults in brackets):
  --jdk DIR              JDK under test
  --variant NAME='OPTS'  a variant: its name and JVM options; repeatable; the first is
                         the baseline of the ratios [ONESHOT='-Djdk.pollerEdgeTriggered=false'
                         ET='-Djdk.pollerEdgeTriggered=true']
  --variant-jdk NAME=DIR run variant NAME with the JDK in DIR (e.g. pristine upstream)
  --pairs N              runs of every variant, alternating [5]
  --connections N        silent connections; 0: a JVM with nothing to do [10000]
  --seconds S            the measured silent window [60]
  --peer-jdk DIR         JDK of the peer process [/usr/lib/jvm/temurin-25-jdk-amd64]
  --allow-busy           run even if the machine is busy (the output says so)
  -h, --help             this text
EOF
}

jdk="" pairs=5 connections=10000 seconds=60 allow_busy=${ALLOW_BUSY:-0}
peer_jdk=${PEER_JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}
names=() opts=()
declare -A vjdk=()
die() { echo "$ME: error: $*" >&2; exit 1; }
need() { [[ $# -ge 2 && -n $2 ]] || die "option $1 needs a value (see --help)"; }
positional=0
while (( $# )); do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --jdk) need "$@"; jdk=$2; shift 2 ;;
    --variant) need "$@"; [[ $2 =~ ^[A-Za-z][A-Za-z0-9_-]*= ]] || die "--variant needs NAME='JVM options', got '$2'"
               names+=("${2%%=*}"); opts+=("${2#*=}"); shift 2 ;;
    --variant-jdk) need "$@"; [[ $2 =~ ^[A-Za-z][A-Za-z0-9_-]*=. ]] || die "--variant-jdk needs NAME=DIR, got '$2'"
                   vjdk[${2%%=*}]=${2#*=}; shift 2 ;;
    --pairs) need "$@"; pairs=$2; shift 2 ;;
    --connections) need "$@"; connections=$2; shift 2 ;;
    --seconds) need "$@"; seconds=$2; shift 2 ;;
    --peer-jdk) need "$@"; peer_jdk=$2; shift 2 ;;
    --allow-busy) allow_busy=1; shift ;;
    --*) die "unknown option '$1' (see --help)" ;;
    *) # the old positional form: JDK [pairs] [connections] [seconds]
       case $positional in
         0) jdk=$1 ;; 1) pairs=$1 ;; 2) connections=$1 ;; 3) seconds=$1 ;;
         *) die "unexpected argument '$1' (see --help)" ;;
       esac
       positional=$((positional + 1)); shift ;;
  esac
done
[[ -n $jdk ]] || { usage >&2; die "the JDK under test is required (--jdk DIR)"; }
for v in pairs connections seconds; do
  [[ ${!v} =~ ^[0-9]+$ ]] || die "--$v must be a whole number, got '${!v}'"
done
(( pairs >= 1 && seconds >= 1 )) || die "--pairs and --seconds must be at least 1"
[[ -x $jdk/bin/java && -x $jdk/bin/javac ]] || die "--jdk $jdk is not a JDK (bin/java and bin/javac are needed)"
(( connections == 0 )) || [[ -x $peer_jdk/bin/java ]] \
  || die "--peer-jdk $peer_jdk has no bin/java (install Temurin 25 or pass --peer-jdk)"
if (( ${#names[@]} == 0 )); then
  names=(ONESHOT ET); opts=("-Djdk.pollerEdgeTriggered=false" "-Djdk.pollerEdgeTriggered=true")
fi
GUARD_NAME=$ME
. "$HERE/../lib/guard.sh"
bench_check_variants vjdk "${names[@]}"
command -v perf >/dev/null || die "perf is missing: apt-get install linux-perf"
(( pairs >= 5 )) || echo "$ME: warning: --pairs $pairs is below the 5 pairs the method asks for" >&2

guard_init "$ME" "$allow_busy"
guard_check start "the first run"
guard_lock
work=$(mktemp -d) peer=""
stop_peer() { [[ -z $peer ]] || { kill "$peer" 2>/dev/null; wait "$peer" 2>/dev/null || true; peer=""; }; }
trap 'stop_peer; rm -rf "$work"; guard_unlock' EXIT
# --release: the peer runs on another JDK (--peer-jdk), which must load these classes too
peer_feature=""
if (( connections > 0 )); then
  peer_feature=$("$peer_jdk/bin/java" -XshowSettings:properties -version 2>&1 |
                 awk -F' = ' '/java.specification.version/ {print $2}') || true
  [[ $peer_feature =~ ^[0-9]+$ ]] || die "cannot read the Java version of --peer-jdk $peer_jdk"
fi
"$jdk/bin/javac" -nowarn ${peer_feature:+--release "$peer_feature"} -d "$work/classes" "$HERE/IdleConnections.java" "$HERE/../pingpong/WaitingClient.java" \
  || die "javac IdleConnections.java failed"
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $ME: jdk=$jdk pairs=$pairs connections=$connections seconds=$seconds"
bench_cpu_speed_line before
for n in "${!vjdk[@]}"; do echo "# variant $n runs $(cd "${vjdk[$n]}" && pwd)"; done
for v in "${!names[@]}"; do echo "# variant ${names[$v]}: ${opts[$v]:-(no options)}"; done
echo "variant run cpu_s core_share cs cs_per_s load1_before load1_after" | tee "$work/all"
first=1
for i in $(seq 1 "$pairs"); do
  for v in "${!names[@]}"; do
    if (( first )); then first=0; else guard_check between "${names[$v]}, pair $i"; fi
    java=${vjdk[${names[$v]}]:-$jdk}/bin/java
    port=0
    if (( connections > 0 )); then
      rm -f "$work/port"
      "$peer_jdk/bin/java" -cp "$work/classes" IdleConnections peer "$work/port" > "$work/peer.log" 2>&1 &
      peer=$!
      for _ in $(seq 1 300); do [[ -s $work/port ]] && break
        kill -0 "$peer" 2>/dev/null || { cat "$work/peer.log" >&2; die "the peer exited"; }
        sleep 0.1; done
      [[ -s $work/port ]] || { cat "$work/peer.log" >&2; die "the peer did not start within 30 s"; }
      port=$(cat "$work/port")
    fi
    load0=$(cut -d' ' -f1 /proc/loadavg)
    rm -f "$work/ctl" "$work/ack"; mkfifo "$work/ctl" "$work/ack"
    # perf counts the silent window only (IdleConnections enables it)
    # shellcheck disable=SC2086
    perf stat -x, -o "$work/perf.csv" -e task-clock,context-switches -D -1 \
      --control "fifo:$work/ctl,$work/ack" -- \
      "$java" ${opts[$v]} -cp "$work/classes" IdleConnections client "$port" "$connections" "$seconds" \
      "$work/ctl" "$work/ack" > "$work/run" 2>&1 || { cat "$work/run" >&2; die "${names[$v]}, pair $i failed"; }
    stop_peer
    awk -v v="${names[$v]}" -v i="$i" -v l0="$load0" -v l1="$(cut -d' ' -f1 /proc/loadavg)" \
        -v perf="$work/perf.csv" '
      /^idle seconds:/ {w=$3}
      END {
        while ((getline line < perf) > 0) {
          split(line, f, ",")
          if (f[3] == "task-clock") cpu = f[1] / 1000     # ms -> s
          if (f[3] == "context-switches") cs = f[1]
        }
        printf "%s %d %.3f %.5f %d %.1f %s %s\n", v, i, cpu, cpu / w, cs, cs / w, l0, l1
      }' "$work/run" | tee -a "$work/all"
  done
done
bench_cpu_speed_line after
[[ $GUARD_BUSY_SEEN == 1 ]] && echo "MEASURED ON A BUSY MACHINE (--allow-busy): $GUARD_BUSY_NOTES"
python3 - "$work/all" "$HERE/../lib" "${names[@]}" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
import report as R
names = sys.argv[3:]
runs = []
for line in open(sys.argv[1]):
    if line.startswith(('#', 'variant')):
        continue
    f = line.split()
    runs.append({"variant": f[0], "pair": f[1], "cpu_s": float(f[2]), "share": float(f[3]),
                 "cs": float(f[4]), "cs_per_s": float(f[5])})
print()
print("\n".join(R.paired_table(runs, names, [
    ("cpu_s", "CPU s in window", R.fmt), ("share", "share of a core", R.fmt),
    ("cs", "context switches in window", R.fmt), ("cs_per_s", "context switches/s", R.fmt)])))
PY
