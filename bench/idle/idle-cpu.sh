#!/usr/bin/env bash
# idle-cpu.sh JDK [pairs=3] [connections=10000] [seconds=60] [--variant NAME='JVM options' ...]
# CPU used by an idle JVM holding CONNECTIONS silent connections (each with a
# virtual thread blocked reading), per variant, alternating A B A B ...; the peer
# holding the other ends is a separate process (Temurin 25). Prints one line per run.
set -euo pipefail
jdk=${1:?usage: $0 JDK [pairs] [connections] [seconds] [--variant NAME='JVM options' ...]}
pairs=${2:-3} connections=${3:-10000} seconds=${4:-60}
shift $(( $# < 4 ? $# : 4 ))
names=() opts=()
while (( $# )); do
  case $1 in
    --variant) names+=("${2%%=*}"); opts+=("${2#*=}"); shift 2 ;;
    *) echo "idle-cpu.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
if (( ${#names[@]} == 0 )); then
  names=(ONESHOT ET); opts=("-Djdk.pollerEdgeTriggered=false" "-Djdk.pollerEdgeTriggered=true")
fi
peer_jdk=${PEER_JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}
here=$(cd "$(dirname "$0")" && pwd)
guard="$here/../lib/guard.sh"
[[ -f $guard ]] && source "$guard" && guard_check "${ALLOW_BUSY:-0}"
work=$(mktemp -d); peer=
cleanup() { [[ -n $peer ]] && kill "$peer" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
"$jdk/bin/javac" --release 25 -d "$work/classes" "$here/IdleConnections.java"
printf '%-10s %4s %12s %10s %12s %s\n' variant run connections cpu-s core-share load1
for i in $(seq 1 "$pairs"); do
  for v in "${!names[@]}"; do
    rm -f "$work/port"
    "$peer_jdk/bin/java" -cp "$work/classes" IdleConnections peer "$work/port" > "$work/peer.log" 2>&1 &
    peer=$!
    for _ in $(seq 1 100); do [[ -s $work/port ]] && break; sleep 0.1; done
    [[ -s $work/port ]] || { cat "$work/peer.log" >&2; echo "idle-cpu.sh: the peer did not start" >&2; exit 1; }
    # shellcheck disable=SC2086
    "$jdk/bin/java" ${opts[$v]} -cp "$work/classes" IdleConnections client "$(cat "$work/port")" \
        "$connections" "$seconds" > "$work/run" 2>&1 || { cat "$work/run" >&2; exit 1; }
    kill "$peer"; wait "$peer" 2>/dev/null || true; peer=
    awk -v v="${names[$v]}" -v i="$i" -v load="$(cut -d' ' -f1 /proc/loadavg)" '
      /^connections:/ {c=$2} /^cpu seconds:/ {s=$3} /^cpu share of a core:/ {f=$6}
      END { printf "%-10s %4d %12d %10.2f %12.4f %s\n", v, i, c, s, f, load }' "$work/run"
  done
done
