#!/usr/bin/env bash
# latency.sh JDK [pairs=5] [roundTrips=200000] [--variant NAME='JVM options' ...] [-- JVM options for all]
# Single-connection latency (Latency.java: 1 virtual-thread client, 1 byte,
# PingPong's Selector echo server), variants alternating A B A B; prints the
# percentiles per run and the per-pair ratios to the first variant.
set -euo pipefail
jdk=${1:?usage: $0 JDK [pairs] [roundTrips] [--variant NAME='OPTS' ...] [-- JVM options]}
pairs=${2:-5} rt=${3:-200000}
shift $(( $# < 3 ? $# : 3 ))
names=() opts=() common=()
while (( $# )); do
  case $1 in
    --variant) names+=("${2%%=*}"); opts+=("${2#*=}"); shift 2 ;;
    --) shift; common=("$@"); break ;;
    *) echo "latency.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
if (( ${#names[@]} == 0 )); then
  names=(ONESHOT ET); opts=("-Djdk.pollerEdgeTriggered=false" "-Djdk.pollerEdgeTriggered=true")
fi
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/guard.sh"
guard_check "${ALLOW_BUSY:-0}"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$jdk/bin/javac" -d "$work/classes" "$here/PingPong.java" "$here/Latency.java"
echo "variant run p50_us p90_us p99_us p99.9_us max_us load1"
for i in $(seq 1 "$pairs"); do
  for v in "${!names[@]}"; do
    # shellcheck disable=SC2086
    "$jdk/bin/java" ${opts[$v]} "${common[@]}" -cp "$work/classes" Latency "$rt" > "$work/run" 2>&1 \
      || { cat "$work/run" >&2; exit 1; }
    awk -v v="${names[$v]}" -v i="$i" -v load="$(cut -d' ' -f1 /proc/loadavg)" '
      /^p50 us:/ {a=$3} /^p90 us:/ {b=$3} /^p99 us:/ {c=$3} /^p99.9 us:/ {d=$3} /^max us:/ {e=$3}
      END { print v, i, a, b, c, d, e, load }' "$work/run"
  done
done | tee "$work/all"
python3 - "$work/all" "${names[0]}" <<'PY'
import sys, statistics as st
rows=[l.split() for l in open(sys.argv[1]) if not l.startswith('variant')]
base=sys.argv[2]; cols=['p50','p90','p99','p99.9','max']
by={}
for r in rows: by.setdefault(r[0],{})[int(r[1])]=[float(x) for x in r[2:7]]
print('\n| variant | ' + ' | '.join(c+' µs' for c in cols) + ' |'); print('|---'*(len(cols)+1)+'|')
for v,runs in by.items():
    print('| %s | '%v + ' | '.join('%.1f [%.1f–%.1f]'%(st.median(x),min(x),max(x)) for x in zip(*runs.values())) + ' |')
for v,runs in by.items():
    if v==base: continue
    rat=[[a/b for a,b in zip(runs[i],by[base][i])] for i in runs if i in by[base]]
    print('| **%s ÷ %s** (per pair) | '%(v,base) + ' | '.join('%.3f [%.3f–%.3f]'%(st.median(x),min(x),max(x)) for x in zip(*rat)) + ' |')
PY
