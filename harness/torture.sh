#!/bin/bash
# Runs the torture tests (test/jdk/java/nio/channels/vthread/torture) with jtreg
# against a JDK image, in short mode (what 'make check' runs) or long mode
# (--long: 1,000,000 fd-reuse cycles, 10,000,000 one-byte round trips, ...), and
# prints a summary: status, iterations, time and rate of every test id.
#
# Usage: harness/torture.sh --jdk IMAGE --jtreg JTREG_HOME --src TREE [--long] [options]
# 'make torture-long' runs it with --long.
set -euo pipefail

prog=${0##*/}
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

die() { printf '%s: error: %s\n' "$prog" "$*" >&2; exit 1; }
say() { printf '%s: %s\n' "$prog" "$*" >&2; }

TORTURE_DIR=test/jdk/java/nio/channels/vthread/torture
DEFAULT_TESTS="FdReuseChurn.java MissedEdgeRace.java CloseInterruptTimeoutStorm.java UdpPipeBursts.java"

usage() {
  cat <<EOF
Usage: $prog --jdk IMAGE --jtreg JTREG_HOME --src TREE [options]

Runs the torture tests in TREE/$TORTURE_DIR with jtreg and prints a summary.

  --jdk IMAGE          JDK image to test
  --jtreg JTREG_HOME   jtreg installation (bin/jtreg)
  --src TREE           source tree that contains the torture tests (build/src)
  --long               long mode (-Dtorture.long=true): the long iteration counts
  --tests "T ..."      test files or ids, e.g. "MissedEdgeRace.java#et-mode2-p1"
                       (default: $DEFAULT_TESTS, all ids)
  --iterations N       override the iteration count (-Dtorture.iterations=N)
  --seconds S          time cap per test id (-Dtorture.seconds=S, 0 = none)
  --stall-seconds S    watchdog: no progress for S seconds is a hang (default 60)
  --java-option OPT    extra option for the test JVMs (repeatable)
  --work DIR           work/report directory (default: $TOP/build/torture[-long])
  --conc N             jtreg concurrency (default: 2 short, 1 long)
  --timeout-factor N   jtreg timeout factor (default: 4 short, 60 long)
  -h, --help           this help

Exit status: 0 all passed, 2 some test failed, 1 usage or setup error.
EOF
}

JDK= JTREG_HOME_ARG= SRC= LONG=false TESTS=$DEFAULT_TESTS WORK= CONC= TF=
JAVA_OPTS=()
need_arg() { [ $# -ge 2 ] && [ -n "$2" ] || die "option $1 needs a value (see --help)"; }
while [ $# -gt 0 ]; do
  case $1 in
    --jdk) need_arg "$@"; JDK=$2; shift 2 ;;
    --jtreg) need_arg "$@"; JTREG_HOME_ARG=$2; shift 2 ;;
    --src) need_arg "$@"; SRC=$2; shift 2 ;;
    --long) LONG=true; shift ;;
    --tests) need_arg "$@"; TESTS=$2; shift 2 ;;
    --iterations) need_arg "$@"; [[ $2 =~ ^[0-9]+$ ]] || die "--iterations needs a number"
                  JAVA_OPTS+=("-Dtorture.iterations=$2"); shift 2 ;;
    --seconds) need_arg "$@"; [[ $2 =~ ^[0-9]+$ ]] || die "--seconds needs a number"
               JAVA_OPTS+=("-Dtorture.seconds=$2"); shift 2 ;;
    --stall-seconds) need_arg "$@"; [[ $2 =~ ^[0-9]+$ ]] || die "--stall-seconds needs a number"
                     JAVA_OPTS+=("-Dtorture.stallSeconds=$2"); shift 2 ;;
    --java-option) need_arg "$@"; JAVA_OPTS+=("$2"); shift 2 ;;
    --work) need_arg "$@"; WORK=$2; shift 2 ;;
    --conc) need_arg "$@"; CONC=$2; shift 2 ;;
    --timeout-factor) need_arg "$@"; TF=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done

[ -n "$JDK" ] || die "--jdk IMAGE is required (see --help)"
[ -n "$JTREG_HOME_ARG" ] || die "--jtreg JTREG_HOME is required (see --help)"
[ -n "$SRC" ] || die "--src TREE is required (see --help)"
[ -x "$JDK/bin/java" ] || die "no JDK image at '$JDK' ($JDK/bin/java missing); run: make images"
[ -x "$JTREG_HOME_ARG/bin/jtreg" ] || die "no jtreg at '$JTREG_HOME_ARG' (bin/jtreg missing or not executable)"
[ -f "$SRC/test/jdk/TEST.ROOT" ] || die "'$SRC' is not a JDK source tree ($SRC/test/jdk/TEST.ROOT missing)"
[ -d "$SRC/$TORTURE_DIR" ] || die "the torture tests are not in the tree ($SRC/$TORTURE_DIR missing); configure copies them from $TOP/$TORTURE_DIR"

JDK=$(cd "$JDK" && pwd)
SRC=$(cd "$SRC" && pwd)
JTREG=$(cd "$JTREG_HOME_ARG" && pwd)/bin/jtreg
if $LONG; then
  WORK=${WORK:-$TOP/build/torture-long}; CONC=${CONC:-1}; TF=${TF:-60}
  JAVA_OPTS=(-Dtorture.long=true ${JAVA_OPTS[@]+"${JAVA_OPTS[@]}"})
else
  WORK=${WORK:-$TOP/build/torture}; CONC=${CONC:-2}; TF=${TF:-4}
fi
case $WORK in /*) ;; *) WORK=$PWD/$WORK ;; esac
[[ $CONC =~ ^[1-9][0-9]*$ ]] || die "--conc must be a positive integer, not '$CONC'"

TEST_ARGS=()
for t in $TESTS; do
  f=${t%%#*}
  [ -f "$SRC/$TORTURE_DIR/$f" ] || die "no test $f in $SRC/$TORTURE_DIR"
  TEST_ARGS+=("$TORTURE_DIR/$t")
done

rm -rf "$WORK"
mkdir -p "$WORK"
OPT_ARGS=()
for o in ${JAVA_OPTS[@]+"${JAVA_OPTS[@]}"}; do OPT_ARGS+=("-javaoption:$o"); done
cmd=("$JTREG" -dir:"$SRC" -jdk:"$JDK" -conc:"$CONC" -agentvm -timeoutFactor:"$TF"
     -retain:fail,error -w:"$WORK/JTwork" -r:"$WORK/JTreport" -verbose:summary
     ${OPT_ARGS[@]+"${OPT_ARGS[@]}"} "${TEST_ARGS[@]}")
printf -v cmdline '%q ' "${cmd[@]}"
say "mode: $($LONG && echo long || echo short); running: ${cmdline% }"
start=$(date +%s)
set +e
"${cmd[@]}" 2>&1 | tee "$WORK/jtreg.log"
rc=${PIPESTATUS[0]}
set -e
elapsed=$(( $(date +%s) - start ))

# -- summary --
summary=$WORK/JTreport/text/summary.txt
[ -f "$summary" ] || die "jtreg produced no report ($summary missing), exit status $rc; see $WORK/jtreg.log"
echo
echo "== torture summary ($($LONG && echo long || echo short) mode, $(nproc) CPUs, wall time $((elapsed / 60))m$((elapsed % 60))s) =="
printf '%-50s %-7s %12s %8s %12s  %s\n' "test" "status" "iterations" "seconds" "rate/s" "details"
failed=0
get() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<< "$s"; }
while IFS= read -r line; do
  t=${line%% *}
  rest=${line#"$t"}; rest=${rest#"${rest%%[! ]*}"}
  st=${rest%%.*}
  base=${t%#*}; id=; [[ $t == *#* ]] && id=_${t#*#}
  jtr=$WORK/JTwork/${base%.*}$id.jtr
  s=$(grep -h -m1 '^TORTURE-SUMMARY' "$jtr" 2>/dev/null || true)
  if [ -n "$s" ]; then
    details=$(sed 's/^TORTURE-SUMMARY test=[^ ]* iterations=[^ ]* seconds=[^ ]* rate=[^ ]* //' <<< "$s" | cut -d'|' -f1-2)
    printf '%-50s %-7s %12s %8s %12s  %s\n' "${t#java/nio/channels/vthread/torture/}" "$st" \
      "$(get iterations)" "$(get seconds)" "$(get rate | tr -d '/s')" "$details"
  else
    printf '%-50s %-7s %12s %8s %12s  %s\n' "${t#java/nio/channels/vthread/torture/}" "$st" - - - "${rest#*. }"
  fi
  if [ "$st" != Passed ]; then
    failed=$((failed + 1))
    grep -h -m5 -E 'HANG|Exception|failed' "$jtr" 2>/dev/null | cut -c1-300 | sed 's/^/      /' || true
    echo "      $jtr"
  fi
done < "$summary"
echo
echo "jtreg: $(grep -h '^Test results:' "$WORK/jtreg.log" || echo "exit status $rc")"
echo "report: $WORK/JTreport, work: $WORK/JTwork"
[ "$failed" -eq 0 ] && [ "$rc" -eq 0 ] || exit 2
