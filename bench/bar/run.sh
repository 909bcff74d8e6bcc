#!/usr/bin/env bash
# Every cell of the carrier-polling bar (issue 18), UPSTREAM vs ET2 vs MODE4 in
# alternating pairs, one cell after another, then a summary against the bar.
# Each cell is one of the existing runners (their load guard included); this
# script only fixes the commands, so that the whole bar is one command.
set -euo pipefail
ME=${0##*/}
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
CELLS_ALL="latency-p1 latency-p2 busy-p2 pingpong-p2 pingpong-p1 waiting-10 waiting-100-exp300 waiting-100-exp3000 compute-p1 compute-p2 idle-10000 idle-0"

usage() {
  cat <<EOF
Usage: bench/bar/$ME --jdk DIR [options]

Runs the cells of the carrier-polling bar (issue 18; doc/carrier-polling.md)
one after another, each with the variants UPSTREAM (the pristine build, no
property), ET2 (-Djdk.pollerMode=2) and MODE4 (-Djdk.pollerMode=4)
alternating, and writes each cell's page, the commands and summary.md (every
criterion: measured, bar, met or not) to the output directory.

Options (defaults in brackets):
  --jdk DIR            the ET-JDK image under test
  --upstream-jdk DIR   the pristine upstream image (make upstream-image)
                       [build/upstream-src/build/upstream/images/jdk]
  --pairs N            runs of every variant per cell, alternating [5]
  --cells "C ..."      these cells only [all: $CELLS_ALL]
  --out DIR            output directory [build/bench-bar/<UTC timestamp>]
  --echo-peer WHERE    the ping-pong cells' echo server: in the JVM under test,
                       counted with it (jvm), or in a JVM of its own, not
                       counted (process; syscalls-per-round-trip.sh --help) [jvm]
  --series ID          the patch series the image was built from, for the pages
                       (make bench-bar passes the committed one) [not stated]
  --allow-busy         passed to every runner: measure even on a busy machine
                       (every page is then stamped so)
  -h, --help           this text

At 5 pairs the cells took about 85 minutes, 35 of them the two idle cells,
before the warm-ups; those add 5 s to each latency run and 3,000 round trips
per client to each ping-pong run, and the busy cell times 5 s of round trips
per run (the bar not timed with them yet).
EOF
}

die() { echo "$ME: error: $*" >&2; exit 1; }
need() { [[ $# -ge 2 && -n $2 ]] || die "option $1 needs a value (see --help)"; }
jdk="" up="$TOP/build/upstream-src/build/upstream/images/jdk" pairs=5 cells=$CELLS_ALL out="" busy=() series="" echo_peer=jvm
while (( $# )); do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --jdk) need "$@"; jdk=$2; shift 2 ;;
    --upstream-jdk) need "$@"; up=$2; shift 2 ;;
    --pairs) need "$@"; pairs=$2; shift 2 ;;
    --cells) need "$@"; cells=$2; shift 2 ;;
    --out) need "$@"; out=$2; shift 2 ;;
    --series) need "$@"; series=$2; shift 2 ;;
    --echo-peer) need "$@"; echo_peer=$2; shift 2 ;;
    --allow-busy) busy=(--allow-busy); shift ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ -n $jdk ]] || { usage >&2; die "the image under test is required (--jdk DIR)"; }
[[ -x $jdk/bin/java ]] || die "--jdk $jdk is not a JDK (no bin/java)"
[[ -x $up/bin/java ]] || die "no upstream image at $up: build it with 'make upstream-image', or name one with --upstream-jdk"
[[ $pairs =~ ^[0-9]+$ && $pairs -ge 1 ]] || die "--pairs must be a whole number >= 1, got '$pairs'"
[[ $echo_peer == jvm || $echo_peer == process ]] || die "--echo-peer must be jvm or process, got '$echo_peer'"
for c in $cells; do
  [[ " $CELLS_ALL " == *" $c "* ]] || die "unknown cell '$c' (cells: $CELLS_ALL)"
done
out=${out:-$TOP/build/bench-bar/$(date -u +%Y%m%dT%H%M%SZ)}
[[ ! -e $out/summary.md ]] || die "$out already holds a bar run (summary.md); name another --out"
mkdir -p "$out"

V=(--variant UPSTREAM= --variant-jdk "UPSTREAM=$up" --variant ET2=-Djdk.pollerMode=2 --variant MODE4=-Djdk.pollerMode=4)
P=-Djdk.virtualThreadScheduler.parallelism
PP=$HERE/../pingpong
# Warm-ups long enough that every variant's counted part starts seconds after its
# JVM did: with a warm-up counted in round trips alone, the fastest variant's timed
# round trips ran within its JVM's first second, while the JIT still compiled
# (busy-p2, 2026-12-01, the image's default path as baseline: mode 4's p50 1.100 x,
# the JIT at 52-75% of a CPU during its timed round trips; with 5 s more, 0.857 x
# over 20 pairs, the JIT at 8-26%; doc/results/carrier-polling-warmup-0e6c36a875d8.md).
WARMUP_S=5 WARMUP_RT=3000
# The busy cell times 5 s of round trips in every variant, not 20,000 of them:
# mode 4 made those in 0.3-0.8 s and upstream in 4-11 s, while the VM's CPU speed
# moved by up to 2.3 x within a run (same page).
TIMED_S=5

# A cell's command; the runners with --out write the page, the others print it.
cell_cmd() {
  case $1 in
    latency-p1) echo "$PP/latency.sh --jdk $jdk --pairs $pairs --round-trips 100000 --warmup 30000 --warmup-s $WARMUP_S --jvm-args $P=1" ;;
    latency-p2) echo "$PP/latency.sh --jdk $jdk --pairs $pairs --round-trips 100000 --warmup 30000 --warmup-s $WARMUP_S --jvm-args $P=2" ;;
    busy-p2) echo "$PP/latency.sh --jdk $jdk --pairs $pairs --timed-s $TIMED_S --warmup 10000 --warmup-s $WARMUP_S --busy-task-us 100 --jvm-args $P=2" ;;
    pingpong-p2) echo "$PP/syscalls-per-round-trip.sh --jdk $jdk --pairs $pairs --clients 100 --round-trips 5000 --warmup-round-trips $WARMUP_RT --jvm-args $P=2 --echo-peer $echo_peer --out $out/pingpong-p2.md" ;;
    pingpong-p1) echo "$PP/syscalls-per-round-trip.sh --jdk $jdk --pairs $pairs --clients 100 --round-trips 5000 --warmup-round-trips $WARMUP_RT --jvm-args $P=1 --echo-peer $echo_peer --out $out/pingpong-p1.md" ;;
    waiting-10) echo "$PP/waiting-client.sh --jdk $jdk --pairs $pairs --clients 10 --delay-us 50 --out $out/waiting-10.md" ;;
    waiting-100-exp300) echo "$PP/waiting-client.sh --jdk $jdk --pairs $pairs --clients 100 --delay-us 300 --delay-dist exp --out $out/waiting-100-exp300.md" ;;
    waiting-100-exp3000) echo "$PP/waiting-client.sh --jdk $jdk --pairs $pairs --clients 100 --delay-us 3000 --delay-dist exp --out $out/waiting-100-exp3000.md" ;;
    compute-p1) echo "$PP/syscalls-per-round-trip.sh --compute --jdk $jdk --pairs $pairs --jvm-args $P=1 --out $out/compute-p1.md" ;;
    compute-p2) echo "$PP/syscalls-per-round-trip.sh --compute --jdk $jdk --pairs $pairs --jvm-args $P=2 --out $out/compute-p2.md" ;;
    idle-10000) echo "$HERE/../idle/idle-cpu.sh --jdk $jdk --pairs $pairs --connections 10000 --seconds 60" ;;
    idle-0) echo "$HERE/../idle/idle-cpu.sh --jdk $jdk --pairs $pairs --connections 0 --seconds 60" ;;
  esac
}

# A page for a runner that prints its output (latency.sh, idle-cpu.sh): what
# the others' pages state (command, time, repository, series, JDK), then the
# output, its per-run lines as printed and its tables as they are.
write_page() { # cell, start time, output file, command...
  local c=$1 start=$2 raw=$3; shift 3
  {
    echo "# Carrier-polling bar, cell $c: UPSTREAM vs ET2 vs MODE4"
    echo
    echo "Run by \`bench/bar/run.sh\` from $start to $(date -u '+%Y-%m-%d %H:%M:%S') UTC; repository $(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo unknown), series ${series:-not stated}; JDK under test: $("$jdk/bin/java" -version 2>&1 | sed -n 2p); UPSTREAM: \`$up\`. Each run's load average is in its line (load1_before, load1_after)."
    echo
    echo '```'
    echo "$*"
    echo '```'
    echo
    echo "Its output, as printed (per run, then median [min–max] and per-pair ratios):"
    echo
    echo '```'
    sed '/^|/,$d' "$raw"
    echo '```'
    echo
    sed -n '/^|/,$p' "$raw"
  }
}

echo "$ME: cells: $cells; $pairs pairs; output: $out"
: > "$out/commands.txt"
for c in $cells; do
  read -r -a cmd <<<"$(cell_cmd "$c")"
  echo "${cmd[*]} ${V[*]} ${busy[*]}" >> "$out/commands.txt"
  echo "$ME: $(date -u +%H:%M:%S) cell $c"
  ok=1
  if [[ " ${cmd[*]} " == *" --out "* ]]; then
    "${cmd[@]}" "${V[@]}" "${busy[@]}" > "$out/$c.log" 2>&1 || ok=0
  else
    start=$(date -u '+%Y-%m-%d %H:%M:%S')
    "${cmd[@]}" "${V[@]}" "${busy[@]}" > "$out/$c.out" 2> "$out/$c.log" &&
      write_page "$c" "$start" "$out/$c.out" "${cmd[@]}" "${V[@]}" "${busy[@]}" > "$out/$c.md.part" &&
      mv "$out/$c.md.part" "$out/$c.md" || ok=0
  fi
  if (( ! ok )); then
    rm -f "$out/$c.md.part"
    python3 "$HERE/summary.py" "$out" > "$out/summary.md"
    die "cell $c failed (its log: $out/$c.log; the last lines name the cause, e.g. a busy machine); $out/summary.md has the cells run so far; run the rest with --cells and another --out"
  fi
done
python3 "$HERE/summary.py" "$out" > "$out/summary.md"
echo "$ME: done: $out/summary.md"
