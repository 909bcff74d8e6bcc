#!/bin/bash
# Counts per timed round trip of the busy-carriers cell (Latency.java, BUSY_US=100, P=2):
# UPSTREAM (pristine build), ET2, MODE4, 2 runs each; the raw files go to build/busy-probe/
set -euo pipefail
cd "$(dirname "$0")/../../.."
w=build/busy-probe; mkdir -p $w/classes
J=build/linux-x86_64-server-release/images/jdk
U=build/upstream-src/build/upstream/images/jdk
$J/bin/javac -nowarn -d $w/classes bench/pingpong/PingPong.java bench/pingpong/Latency.java bench/pingpong/WaitingClient.java
rt=20000
for pair in 1 2; do
 for v in UPSTREAM ET2 MODE4; do
  case $v in UPSTREAM) java=$U/bin/java; opt=();; ET2) java=$J/bin/java; opt=(-Djdk.pollerMode=2);; MODE4) java=$J/bin/java; opt=(-Djdk.pollerMode=4);; esac
  rm -f $w/ctl $w/ack; mkfifo $w/ctl $w/ack
  perf stat -x, -o $w/perf-$v-$pair.csv -e context-switches,syscalls:sys_enter_read,syscalls:sys_enter_write,syscalls:sys_enter_epoll_ctl,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_futex -D -1 \
    --control fifo:$w/ctl,$w/ack -- $java "${opt[@]}" -Djdk.virtualThreadScheduler.parallelism=2 -cp $w/classes Latency $rt 10000 $w/ctl $w/ack 100 > $w/run-$v-$pair.txt 2>&1
  p50=$(awk '/^p50 us:/{print $3}' $w/run-$v-$pair.txt)
  awk -F, -v v=$v -v p=$pair -v rt=$rt -v p50=$p50 '{n[$3]=$1} END {printf "%s pair %d p50 %s us; per rt: cs %.3f read %.3f write %.3f epoll_ctl %.3f epoll_wait %.3f futex %.3f\n", v, p, p50, n["context-switches"]/rt, n["syscalls:sys_enter_read"]/rt, n["syscalls:sys_enter_write"]/rt, n["syscalls:sys_enter_epoll_ctl"]/rt, n["syscalls:sys_enter_epoll_wait"]/rt, n["syscalls:sys_enter_futex"]/rt}' $w/perf-$v-$pair.csv
 done
done
