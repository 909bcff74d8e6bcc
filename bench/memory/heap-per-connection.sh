#!/usr/bin/env bash
# heap-per-connection.sh --jdk JDK [--connections 9000] [--runs 3] [--variant NAME='JVM options' ...]
# Heap retained per registered connection (RegisteredConnectionHeap.java): the
# server side of CONNECTIONS connections, each read once by a parked virtual
# thread, the reader gone, the connection still open; clients in a child process.
# Variants alternate (A B C A B C ...); prints one line per run and the median of
# each variant. Heap after a full GC is a count, not a time: the load guard is
# not needed, but the numbers move a little from run to run (the median is given).
set -euo pipefail
jdk= connections=9000 runs=3 names=() opts=()
while (( $# )); do
  case $1 in
    --jdk) jdk=$2; shift 2 ;;
    --connections) connections=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --variant) names+=("${2%%=*}"); opts+=("${2#*=}"); shift 2 ;;
    *) echo "heap-per-connection.sh: unknown argument '$1' (see the usage line at the top)" >&2; exit 2 ;;
  esac
done
[[ -x $jdk/bin/java ]] || { echo "heap-per-connection.sh: --jdk must name a JDK (no $jdk/bin/java)" >&2; exit 2; }
if (( ${#names[@]} == 0 )); then
  names=(ONESHOT_1 ONESHOT_32 ET_1 ET_32)
  opts=("-Djdk.readPollers=1" "-Djdk.readPollers=32"
        "-Djdk.pollerMode=2 -Djdk.readPollers=1" "-Djdk.pollerMode=2 -Djdk.readPollers=32")
fi
need=$(( 2 * connections + 200 ))
(( $(ulimit -Hn) >= need )) || { echo "heap-per-connection.sh: needs $need file descriptors; raise the hard limit (ulimit -Hn $need)" >&2; exit 2; }
ulimit -n "$need"
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$jdk/bin/javac" -d "$work/classes" "$here/RegisteredConnectionHeap.java"
printf '%-12s %4s %12s %20s %s\n' variant run connections bytes/connection options
for i in $(seq 1 "$runs"); do
  for v in "${!names[@]}"; do
    # shellcheck disable=SC2086
    "$jdk/bin/java" -XX:+UseSerialGC -Xmx2g ${opts[$v]} -cp "$work/classes" RegisteredConnectionHeap \
        "$connections" > "$work/run" 2>&1 || { cat "$work/run" >&2; exit 1; }
    b=$(sed -n 's/.*bytesPerConnection=\([0-9.]*\).*/\1/p' "$work/run")
    printf '%-12s %4d %12d %20s %s\n' "${names[$v]}" "$i" "$connections" "$b" "${opts[$v]}"
    echo "${names[$v]} $b" >> "$work/all"
  done
done
echo "median bytes per registered connection over $runs runs:"
for n in "${names[@]}"; do
  awk -v n="$n" '$1 == n {print $2}' "$work/all" | sort -n | awk -v n="$n" \
    '{a[NR]=$1} END {printf "  %-12s %.1f\n", n, (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'
done
