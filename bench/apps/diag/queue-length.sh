#!/bin/bash
# Diagnostic (issue 18): the default scheduler's queue length and young GCs of
# bench/apps' Jetty server (AppServer, JVM on CPU 0, SerialGC 512 MB as in
# run.sh) under wrk -t1 -c100 /plaintext (CPU 1): 10 s warm-up, then 20 s with
# QueueSampler's per-second samples. UPSTREAM (no property) and MODE4
# (-Djdk.pollerMode=4) alternate, on one image.
#   bench/apps/diag/queue-length.sh JDK OUTDIR [PAIRS]
# Prints per run: wrk req/s and p99, young and full GCs, the queue's largest
# sample and the mean of its per-second means over the 20 s. Run it alone.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 JDK OUTDIR [PAIRS]" >&2; exit 2; }
J=$1; OUT=$2; PAIRS=${3:-3}
cd "$(dirname "$0")/../../.."
command -v wrk >/dev/null || { echo "$0: wrk not found: apt-get install wrk" >&2; exit 1; }
LIB=$HOME/.cache/et-jdk/bench-apps/lib
[ -d "$LIB" ] || { echo "$0: $LIB missing: run bench/apps/run.sh once (it fetches the jars)" >&2; exit 1; }
CP=$(awk -v d="$LIB" '{ printf "%s%s/%s", sep, d, $2; sep = ":" }' bench/apps/jars.sha256)
rm -rf "$OUT"; mkdir -p "$OUT/classes"
"$J/bin/javac" -nowarn -cp "$CP" -d "$OUT/classes" bench/apps/src/AppServer.java \
    bench/apps/src/DbBench.java bench/apps/diag/QueueSampler.java
for pair in $(seq 1 "$PAIRS"); do
  for v in UPSTREAM MODE4; do
    opts=""; [ $v = MODE4 ] && opts="-Djdk.pollerMode=4"
    tag=$v-$pair
    echo "== $tag $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
    taskset -c 0 "$J/bin/java" -XX:+UseSerialGC -Xms512m -Xmx512m $opts \
        --add-opens java.base/java.lang=ALL-UNNAMED -Dqs.out="$OUT/$tag.qs" \
        -Xlog:gc:file="$OUT/$tag.gc.log" -cp "$CP:$OUT/classes" QueueSampler --port 0 \
        > "$OUT/$tag.server.log" 2>&1 &
    spid=$!
    for i in $(seq 1 100); do grep -q '^ADMIN' "$OUT/$tag.server.log" && break; sleep 0.2; done
    port=$(awk '/^READY/ {print $2; exit}' "$OUT/$tag.server.log")
    [ -n "$port" ] || { kill $spid; echo "$0: the server did not start: $OUT/$tag.server.log" >&2; exit 1; }
    taskset -c 1 wrk -t1 -c100 -d10s --timeout 5s "http://127.0.0.1:$port/plaintext" > "$OUT/$tag.warm.log" 2>&1
    lines=$(wc -l < "$OUT/$tag.qs")
    taskset -c 1 wrk -t1 -c100 -d20s --timeout 5s --latency "http://127.0.0.1:$port/plaintext" > "$OUT/$tag.wrk.log" 2>&1
    kill $spid; wait $spid 2>/dev/null || true
    tail -n +$((lines + 2)) "$OUT/$tag.qs" | head -19 > "$OUT/$tag.window.qs"
    printf '%s req/s %s p99 %s young GCs %s full GCs %s ' $tag \
        "$(awk '/Requests\/sec/ {print $2}' "$OUT/$tag.wrk.log")" \
        "$(awk '$1 == "99%" {print $2}' "$OUT/$tag.wrk.log")" \
        "$(grep -c 'Pause Young' "$OUT/$tag.gc.log")" "$(grep -c 'Pause Full' "$OUT/$tag.gc.log" || true)"
    awk '{ if ($3 > mx) mx = $3; s += $4 } END { printf "queue max %d mean %.0f\n", mx, s / NR }' "$OUT/$tag.window.qs"
  done
done
echo "== end $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
