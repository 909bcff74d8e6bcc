#!/bin/bash
# experiment: bulk transfer, one virtual-thread reader (CPU 0), a writer process (CPU 1)
cd /work/main
NEW=build/linux-x86_64-server-release/images/jdk; OLD=build/exp-images/series-0e6c36a875d8
T25=/usr/lib/jvm/temurin-25-jdk-amd64
out=${1:-build/exp-skip-drained/bulk.tsv}; pairs=${2:-5}
printf 'pair\tvariant\tload1\tMBps\tbytes_per_read\tcpu_ms\tcsw\tread_calls\n' > $out
for p in $(seq 1 $pairs); do
  for v in OLD-ET2 NEW-ET2 OLD-MODE4 NEW-MODE4; do
    jdk=$OLD; [[ $v == NEW* ]] && jdk=$NEW
    mode=2; [[ $v == *MODE4 ]] && mode=4
    coproc SRV { exec taskset -c 1 $T25/bin/java -cp /tmp/bulk Bulk serve 1024; }
    read -r port <&"${SRV[0]}"
    load=$(cut -d' ' -f1 /proc/loadavg)
    res=$(taskset -c 0 perf stat -x, -o /tmp/bulk/perf.csv -e task-clock,context-switches,syscalls:sys_enter_read -- $jdk/bin/java -Djdk.pollerMode=$mode -cp /tmp/bulk Bulk read $port 8192 8)
    kill $SRV_PID 2>/dev/null; wait $SRV_PID 2>/dev/null
    cpu=$(awk -F, '$3=="task-clock"{print $1}' /tmp/bulk/perf.csv); csw=$(awk -F, '$3=="context-switches"{print $1}' /tmp/bulk/perf.csv); rd=$(awk -F, '$3=="syscalls:sys_enter_read"{print $1}' /tmp/bulk/perf.csv)
    mbps=$(awk '{print $2}' <<<"$res"); bpr=$(awk '{print $6}' <<<"$res")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' $p $v $load $mbps $bpr $cpu $csw $rd >> $out
    tail -1 $out
  done
done
