#!/bin/bash
# Diagnostic (issue 18): which threads of bench/apps' database client switch
# context. DbBench (point SELECT, one connection per virtual thread, 100
# threads, JVM on CPU 0, SerialGC 512 MB as in run.sh) against a MariaDB server
# started here in a temporary directory (CPU 1); perf record -e
# sched:sched_switch over each client JVM's life, counted by thread name (digits
# folded to N) and kind (slp: it blocked, pre: preempted), per transaction of
# the measured window. UPSTREAM (no property), ET2 and MODE4 alternate.
#   bench/apps/diag/db-switches-by-thread.sh JDK [PAIRS] [SOCKET_TIMEOUT_MS|none]
# The socket timeout (run.sh uses 60000) makes every read a timed park. Run it
# alone; root or a user that may run mariadbd. Prints per run the threads
# that switch most.
set -eu
[ $# -ge 1 ] || { echo "usage: $0 JDK [PAIRS] [SOCKET_TIMEOUT_MS|none]" >&2; exit 2; }
J=$1; PAIRS=${2:-2}; TIMEOUT=${3:-60000}
cd "$(dirname "$0")/../../.."
# shellcheck source=../db.sh
. bench/apps/db.sh
PATH=$PATH:/usr/sbin:/sbin
for t in mariadbd mariadb-install-db perf taskset; do
  command -v $t >/dev/null || { echo "$0: $t not found (bench/apps/README.md lists the packages)" >&2; exit 1; }
done
LIB=$HOME/.cache/et-jdk/bench-apps/lib
[ -d "$LIB" ] || { echo "$0: $LIB missing: run bench/apps/run.sh once (it fetches the jars)" >&2; exit 1; }
CP=$(awk -v d="$LIB" '{ printf "%s%s/%s", sep, d, $2; sep = ":" }' bench/apps/jars.sha256)
D=$(mktemp -d /tmp/db-switches.XXXXXX)
DBP=""
trap '[ -z "$DBP" ] || { kill $DBP; wait $DBP 2>/dev/null || true; }; rm -rf "$D"' EXIT
mkdir -p "$D/classes" "$D/data"
"$J/bin/javac" -nowarn -cp "$CP" -d "$D/classes" bench/apps/src/DbBench.java
user=$(db_user "$D")
db_install "$D/data" "$user" "$D/install.log" || { echo "$0: the MariaDB data directory was not created" >&2; exit 1; }
port=$(db_free_port)
db_server_args "$D" "$user" "$port" 200
taskset -c 1 mariadbd "${DB_SERVER_ARGS[@]}" >"$D/out.log" 2>&1 &
DBP=$!
db_wait_ready "$D" "$DBP" || { tail "$D/out.log" >&2; echo "$0: mariadbd did not start" >&2; exit 1; }
URL=$(db_url "$port")
[ "$TIMEOUT" = none ] || URL="$URL&socketTimeout=$TIMEOUT"
"$J/bin/java" -cp "$CP:$D/classes" DbBench --setup --url "$URL" --rows 10000 >"$D/setup.log" 2>&1
echo "# $(date -u +%FT%TZ) jdk=$J socket_timeout=$TIMEOUT pairs=$PAIRS load=$(cut -d' ' -f1-3 /proc/loadavg)"
for pair in $(seq 1 "$PAIRS"); do
  for v in "UPSTREAM=" "ET2=-Djdk.pollerMode=2" "MODE4=-Djdk.pollerMode=4"; do
    name=${v%%=*}; opt=${v#*=}
    # shellcheck disable=SC2086
    perf record -q -o "$D/perf.data" -e sched:sched_switch -- taskset -c 0 "$J/bin/java" \
        -XX:+UseSerialGC -Xms512m -Xmx512m $opt -cp "$CP:$D/classes" DbBench --url "$URL" \
        --tx select --mode direct --threads 100 --pool 16 --rows 10000 --warmup-s 3 \
        --duration-s 8 --nonce "$pair" >"$D/client.log" 2>&1
    tx=$(awk '/^RESULT/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "tx") print kv[2] } }' "$D/client.log")
    [ -n "$tx" ] || { tail "$D/client.log" >&2; echo "$0: the client printed no RESULT" >&2; exit 1; }
    perf script -i "$D/perf.data" -F trace 2>/dev/null | python3 -c '
import collections, re, sys
name, tx = sys.argv[1], int(sys.argv[2])
c = collections.Counter()
for line in sys.stdin:
    m = re.search(r"prev_comm=(.*?) prev_pid=\d+ prev_prio=\d+ prev_state=(\S+)", line)
    if m:
        c[(re.sub(r"\d+$", "N", m.group(1)), "pre" if m.group(2).startswith("R") else "slp")] += 1
print(f"{name} pair {sys.argv[3]}: {tx} transactions, {sum(c.values()) / tx:.2f} switches per transaction"
      " (the JVM'"'"'s whole life over the measured window'"'"'s transactions)")
for (comm, kind), n in c.most_common(6):
    print(f"   {comm:<22} {kind} {n / tx:.3f}")
' "$name" "$tx" "$pair"
  done
done
