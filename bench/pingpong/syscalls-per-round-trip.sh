#!/usr/bin/env bash
# syscalls-per-round-trip.sh JDK [pairs=3] [clients=100] [roundTripsPerClient=10000] [extra JVM options...]
# Runs PingPong with the feature off (ONESHOT) and on (ET), alternating, under
# perf stat, and prints per round trip: epoll_ctl, epoll_wait, read, write, all
# syscalls, context switches, task-clock ms; and round trips/s.
set -euo pipefail
jdk=${1:?usage: $0 JDK [pairs] [clients] [roundTripsPerClient] [JVM options...]}
pairs=${2:-3} clients=${3:-100} rt=${4:-10000}
shift $(( $# < 4 ? $# : 4 ))
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
"$jdk/bin/javac" -d "$out/classes" "$here/PingPong.java"
command -v perf > /dev/null || { echo "perf is missing: apt-get install linux-perf" >&2; exit 1; }
events=task-clock,context-switches,syscalls:sys_enter_epoll_ctl,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_read,syscalls:sys_enter_write,raw_syscalls:sys_enter
printf '%-8s %4s %9s %10s %8s %8s %9s %8s %9s %12s\n' variant run epoll_ctl epoll_wait read write syscalls cs task-ms "round-trips/s"
for i in $(seq 1 "$pairs"); do
  for v in false true; do
    perf stat -x, -o "$out/stat" -e "$events" "$jdk/bin/java" -Djdk.pollerEdgeTriggered=$v "$@" \
      -cp "$out/classes" PingPong "$clients" "$rt" > "$out/run" 2>&1 || { cat "$out/run" >&2; exit 1; }
    total=$(awk '/^round trips:/ {print $3}' "$out/run")
    rate=$(awk '/^round trips\/s:/ {print $3}' "$out/run")
    awk -F, -v n="$total" -v v="$([ $v = true ] && echo ET || echo ONESHOT)" -v i="$i" -v rate="$rate" '
      /^#/ || NF < 3 { next }
      { c[$3] = $1 }
      END { printf "%-8s %4d %9.3f %10.3f %8.3f %8.3f %9.3f %8.3f %9.4f %12s\n", v, i,
              c["syscalls:sys_enter_epoll_ctl"]/n, c["syscalls:sys_enter_epoll_wait"]/n,
              c["syscalls:sys_enter_read"]/n, c["syscalls:sys_enter_write"]/n,
              c["raw_syscalls:sys_enter"]/n, c["context-switches"]/n, c["task-clock"]/n, rate }' "$out/stat"
  done
done
