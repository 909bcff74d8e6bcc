#!/bin/bash
# Runs upstream jtreg test groups against an ET-JDK image with the edge-triggered
# read pollers off and on (pollerMode 1, 2 and 3), with jtreg's own (platform)
# test threads and with upstream's Virtual test-thread factory, and writes a
# side-by-side markdown report. A test that passes with the feature off and fails
# with it on is reported as a BUG (re-run once to tell a reproducible failure from
# a flaky one); the script then exits with status 2.
#
# Usage: harness/conformance.sh --jdk IMAGE --jtreg JTREG_HOME --src TREE --out FILE
#            [--quick] [--groups "G ..."] [--configs "C ..."] [--factories "F ..."]
#            [--resume] [options]
# Run with --help for the options. 'make conformance' runs the full plan,
# 'make conformance-quick' the quick one.
set -euo pipefail

prog=${0##*/}
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

die() { printf '%s: error: %s\n' "$prog" "$*" >&2; exit 1; }
say() { printf '%s: %s\n' "$prog" "$*" >&2; }

# The plans: one run per line and config: test-thread factory, group, configs.
# A group is a test path under TREE, or PATH!SUB,SUB for PATH without its
# subdirectories SUB (which then are groups of their own).
FULL_PLAN="
platform test/jdk/java/net/vthread                   off et-mode2 et-mode1 et-mode3 mode4
platform test/jdk/java/net/Socket                    off et-mode2 et-mode1 et-mode3 mode4
platform test/jdk/java/net/ServerSocket              off et-mode2 et-mode1 et-mode3 mode4
platform test/jdk/java/net/DatagramSocket            off et-mode2 et-mode1 et-mode3 mode4
platform test/jdk/java/nio/channels                  off et-mode2 et-mode1 et-mode3 mode4
platform test/jdk/java/lang/Thread/virtual           off et-mode2 et-mode1 et-mode3 mode4
virtual  test/jdk/java/net/vthread                   off et-mode2 et-mode1 et-mode3 mode4
virtual  test/jdk/java/net/Socket                    off et-mode2 et-mode1 et-mode3 mode4
virtual  test/jdk/java/net/ServerSocket              off et-mode2 et-mode1 et-mode3 mode4
virtual  test/jdk/java/net/DatagramSocket            off et-mode2 et-mode1 et-mode3 mode4
virtual  test/jdk/java/net/SocketInputStream         off et-mode2 et-mode1 et-mode3 mode4
virtual  test/jdk/java/nio/channels                  off et-mode2 et-mode1 et-mode3 mode4
virtual  test/jdk/java/lang/Thread/virtual           off et-mode2 et-mode1 et-mode3 mode4
platform test/jdk/java/net/httpclient/http3          off et-mode2 et-mode1 et-mode3 mode4
platform test/jdk/java/net/httpclient/http2          off et-mode2 et-mode1 et-mode3 mode4
platform test/jdk/java/net/httpclient!http2,http3    off et-mode2
"
FULL_CONFIGS="off et-mode2 et-mode1 et-mode3 mode4"
# The quick plan, for every poller change (about 20 minutes here). Without 'off'
# by default: a test that fails with the feature on is re-run with it off.
QUICK_PLAN="
platform test/jdk/java/net/vthread                   off et-mode2 et-mode1 mode4
platform test/jdk/java/nio/channels/vthread          off et-mode2 et-mode1 mode4
virtual  test/jdk/java/net/Socket                    off et-mode2 et-mode1 mode4
virtual  test/jdk/java/nio/channels/SocketChannel    off et-mode2 et-mode1 mode4
virtual  test/jdk/java/nio/channels/DatagramChannel  off et-mode2 et-mode1 mode4
platform test/jdk/java/net/httpclient/http3          off et-mode2 et-mode1 mode4
platform test/jdk/java/lang/Thread/virtual           off mode4
"
QUICK_CONFIGS="et-mode2 et-mode1 mode4"
# Order of the report's columns.
CONFIG_ORDER="off et et-mode2 et-mode1 et-mode3 mode4"
FACTORY_ORDER="platform virtual"

usage() {
  cat <<EOF
Usage: $prog --jdk IMAGE --jtreg JTREG_HOME --src TREE --out FILE [options]

Runs upstream jtreg groups from TREE against the JDK IMAGE once per config and
test-thread factory and writes a markdown report (FILE): a side-by-side table
per factory, the BUGs (tests that pass with the feature off and fail with it
on), the tests that fail with the feature off too, machine info, 'java -version'
and the exact jtreg commands.

  --jdk IMAGE            JDK image to test (build/<conf>/images/jdk)
  --jtreg JTREG_HOME     jtreg installation (bin/jtreg)
  --src TREE             source tree with upstream's test/ directory (build/src)
  --out FILE             markdown report to write (e.g. doc/results/conformance.md)
  --quick                the quick plan instead of the full one (below); work
                         directory $TOP/build/conformance-quick
  --groups "G ..."       run these test paths (relative to TREE) instead of a
                         plan, in every config of --configs (default:
                         $FULL_CONFIGS) with every factory of --factories
                         (default: platform). PATH!SUB,... is PATH without its
                         subdirectories SUB.
  --configs "C ..."      configs among: off, et (feature on, default mode),
                         et-mode1, et-mode2, et-mode3, mode4 (carrier
                         polling, ET by default). With a plan: run only
                         these of each group's configs (default: all of them;
                         --quick: $QUICK_CONFIGS)
  --factories "F ..."    test-thread factories among: platform (jtreg's own
                         test threads), virtual (-testThreadFactory:Virtual,
                         built from TREE/test/jtreg_test_thread_factory, with
                         upstream's ProblemList-Virtual.txt). With a plan: run
                         only the groups of these factories
  --resume               keep the results of group/config runs that completed
                         before (same jtreg command, same image) and run only
                         the others
  --report-only          run nothing: write the report from the completed runs
                         in the work directory (the others show as "not run")
  --dry-run              print the plan, the jtreg commands and the number of
                         test ids each would run (jtreg -listtests); run no test
  --work DIR             work/report directories (default: $TOP/build/conformance)
  --conc N               jtreg concurrency (default: 2)
  --timeout-factor N     jtreg timeout factor (default: 4)
  --problem-list FILE    ET-JDK problem list for every run (default:
                         $TOP/test/conformance-problemlist.txt); upstream's
                         test/jdk/ProblemList.txt is always used too
  --problem-list-virtual FILE
                         ET-JDK problem list for the virtual factory's runs
                         (default: $TOP/test/conformance-problemlist-virtual.txt);
                         upstream's test/jdk/ProblemList-Virtual.txt is used too
  --update-problem-list  append the tests that fail with the feature off and on
                         (in every config run) to the problem list of their
                         factory, with the reason and bug id 0000000 (to fill in)
  --no-native            do not build the native test libraries (tests needing them
                         then fail in every config)
  --no-rerun             do not re-run failures to confirm them (and to compare
                         them with the feature off when 'off' was not run)
  -h, --help             this help

The full plan (make conformance), factory, group, configs:
$(sed -e '/^$/d' -e 's/^/  /' <<< "$FULL_PLAN")
The quick plan (make conformance-quick; configs $QUICK_CONFIGS unless --configs):
$(sed -e '/^$/d' -e 's/^/  /' <<< "$QUICK_PLAN")

Exit status: 0 no BUG, 2 BUG(s) found (or, with --no-rerun, failures with the
feature on that were not compared with it off), 1 usage or setup error.
EOF
}

JDK= JTREG_HOME_ARG= SRC= OUT= GROUPS_ARG= CONFIGS_ARG= FACTORIES_ARG= QUICK=false
WORK= CONC=2 TIMEOUT_FACTOR=4
PROBLEM_LIST=$TOP/test/conformance-problemlist.txt
PROBLEM_LIST_VIRTUAL=$TOP/test/conformance-problemlist-virtual.txt
UPDATE_PL=false NATIVE=true RERUN=true RESUME=false REPORT_ONLY=false DRY_RUN=false
CMDLINE="$0 $*"

need_arg() { [ $# -ge 2 ] && [ -n "$2" ] || die "option $1 needs a value (see --help)"; }
while [ $# -gt 0 ]; do
  case $1 in
    --jdk) need_arg "$@"; JDK=$2; shift 2 ;;
    --jtreg) need_arg "$@"; JTREG_HOME_ARG=$2; shift 2 ;;
    --src) need_arg "$@"; SRC=$2; shift 2 ;;
    --out) need_arg "$@"; OUT=$2; shift 2 ;;
    --groups) need_arg "$@"; GROUPS_ARG=$2; shift 2 ;;
    --configs) need_arg "$@"; CONFIGS_ARG=$2; shift 2 ;;
    --factories) need_arg "$@"; FACTORIES_ARG=$2; shift 2 ;;
    --quick) QUICK=true; shift ;;
    --work) need_arg "$@"; WORK=$2; shift 2 ;;
    --conc) need_arg "$@"; CONC=$2; shift 2 ;;
    --timeout-factor) need_arg "$@"; TIMEOUT_FACTOR=$2; shift 2 ;;
    --problem-list) need_arg "$@"; PROBLEM_LIST=$2; shift 2 ;;
    --problem-list-virtual) need_arg "$@"; PROBLEM_LIST_VIRTUAL=$2; shift 2 ;;
    --update-problem-list) UPDATE_PL=true; shift ;;
    --no-native) NATIVE=false; shift ;;
    --no-rerun) RERUN=false; shift ;;
    --resume) RESUME=true; shift ;;
    --report-only) REPORT_ONLY=true; RESUME=true; shift ;;
    --dry-run) DRY_RUN=true; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done

[ -n "$JDK" ] || die "--jdk IMAGE is required (see --help)"
[ -n "$JTREG_HOME_ARG" ] || die "--jtreg JTREG_HOME is required (see --help)"
[ -n "$SRC" ] || die "--src TREE is required (see --help)"
[ -n "$OUT" ] || $DRY_RUN || die "--out FILE is required (see --help)"
[ -x "$JDK/bin/java" ] || die "no JDK image at '$JDK' ($JDK/bin/java missing); run: make images"
JTREG=$JTREG_HOME_ARG/bin/jtreg
[ -x "$JTREG" ] || die "no jtreg at '$JTREG_HOME_ARG' ($JTREG missing or not executable)"
[ -f "$SRC/test/jdk/TEST.ROOT" ] || die "'$SRC' is not a JDK source tree ($SRC/test/jdk/TEST.ROOT missing)"
[[ $CONC =~ ^[1-9][0-9]*$ ]] || die "--conc must be a positive integer, not '$CONC'"
[[ $TIMEOUT_FACTOR =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--timeout-factor must be a number, not '$TIMEOUT_FACTOR'"

JDK=$(cd "$JDK" && pwd)
SRC=$(cd "$SRC" && pwd)
JTREG_HOME_ARG=$(cd "$JTREG_HOME_ARG" && pwd)
JTREG=$JTREG_HOME_ARG/bin/jtreg
if [ -z "$WORK" ]; then
  if $QUICK; then WORK=$TOP/build/conformance-quick; else WORK=$TOP/build/conformance; fi
fi
[ -z "$OUT" ] || case $OUT in /*) ;; *) OUT=$PWD/$OUT ;; esac
case $WORK in /*) ;; *) WORK=$PWD/$WORK ;; esac
case $PROBLEM_LIST in /*) ;; *) PROBLEM_LIST=$PWD/$PROBLEM_LIST ;; esac
case $PROBLEM_LIST_VIRTUAL in /*) ;; *) PROBLEM_LIST_VIRTUAL=$PWD/$PROBLEM_LIST_VIRTUAL ;; esac

# -- configs: the feature's switches --
# They go in with -vmoption: jtreg uses -vmoption for every JVM it starts for a
# test (agent VMs, othervm test VMs and the compiling VMs) and passes it on in
# test.vm.opts, which jdk.test.lib's ProcessTools adds to the JVMs the tests
# launch themselves; -javaoption would miss the compiling VMs. 'off' sets
# jdk.pollerEdgeTriggered=false explicitly: with it unset, an explicit
# -Djdk.pollerMode=1|2 (some tests' @run lines have one) turns edge-triggered
# reads on.
config_opts() {
  case $1 in
    off) echo "-vmoption:-Djdk.pollerEdgeTriggered=false" ;;
    et) echo "-vmoption:-Djdk.pollerEdgeTriggered=true" ;;
    et-mode[123]) echo "-vmoption:-Djdk.pollerEdgeTriggered=true -vmoption:-Djdk.pollerMode=${1#et-mode}" ;;
    mode4) echo "-vmoption:-Djdk.pollerMode=4" ;;
    *) return 1 ;;
  esac
}
config_title() {
  case $1 in
    off) echo "off" ;;
    et) echo "ET on (default mode)" ;;
    et-mode[123]) echo "ET on, pollerMode ${1#et-mode}" ;;
    mode4) echo "carrier polling, pollerMode 4 (ET)" ;;
  esac
}
factory_title() {
  case $1 in
    platform) echo "platform test threads (jtreg's default)" ;;
    virtual) echo "virtual test threads (-testThreadFactory:Virtual)" ;;
    *) return 1 ;;
  esac
}

# -- the plan: ROW_F[i] factory, ROW_G[i] group, ROW_C[i] configs --
ROW_F=() ROW_G=() ROW_C=()
for c in $CONFIGS_ARG; do
  config_opts "$c" >/dev/null || die "unknown config '$c' (expected off, et, et-mode1, et-mode2, et-mode3 or mode4)"
done
for f in $FACTORIES_ARG; do
  factory_title "$f" >/dev/null || die "unknown factory '$f' (expected platform or virtual)"
done
in_list() { [[ " $2 " == *" $1 "* ]]; }
if [ -n "$GROUPS_ARG" ]; then
  for g in $GROUPS_ARG; do
    for f in ${FACTORIES_ARG:-platform}; do
      ROW_F+=("$f"); ROW_G+=("$g"); ROW_C+=("${CONFIGS_ARG:-$FULL_CONFIGS}")
    done
  done
else
  if $QUICK; then plan=$QUICK_PLAN; want=${CONFIGS_ARG:-$QUICK_CONFIGS}
  else plan=$FULL_PLAN; want=${CONFIGS_ARG:-$FULL_CONFIGS}; fi
  while read -r f g cs; do
    [ -n "$f" ] || continue
    [ -z "$FACTORIES_ARG" ] || in_list "$f" "$FACTORIES_ARG" || continue
    sel=
    for c in $cs; do in_list "$c" "$want" && sel+=" $c"; done
    [ -n "$sel" ] || continue
    ROW_F+=("$f"); ROW_G+=("$g"); ROW_C+=("${sel# }")
  done <<< "$plan"
  [ ${#ROW_G[@]} -gt 0 ] || die "--configs '$CONFIGS_ARG' / --factories '$FACTORIES_ARG' select nothing of the plan (see the plans in --help)"
fi
NROWS=${#ROW_G[@]}

group_path() { echo "${1%%!*}"; }
group_title() {  # markdown
  local p=${1%%!*}
  if [[ $1 == *'!'* ]]; then
    local s=${1#*!}
    echo "\`${p#test/jdk/}\` (without \`${s//,/\/\`, \`}/\`)"
  else
    echo "\`${p#test/jdk/}\`"
  fi
}
slug() {
  local p=${1%%!*}; p=${p#test/jdk/}; p=${p%/}; p=${p//\//_}
  if [[ $1 == *'!'* ]]; then local s=${1#*!}; p+="-without-${s//,/-}"; fi
  echo "$p"
}
# group_args GROUP: the jtreg test arguments of a group, one per line
group_args() {
  local g=$1 p=${1%%!*} e name
  if [[ $g != *'!'* ]]; then echo "$p"; return; fi
  local skip=",${g#*!},"
  for e in "$SRC/$p"/*; do
    name=${e##*/}
    [[ $skip == *",$name,"* ]] && continue
    if [ -d "$e" ]; then
      grep -rqs -E '@test([[:space:]]|$)' "$e" && echo "$p/$name"
    else
      case $name in *.java|*.sh|*.html) grep -qs -E '@test([[:space:]]|$)' "$e" && echo "$p/$name" ;; esac
    fi
  done
  return 0
}

UNIQUE_PATHS=()
for i in $(seq 0 $((NROWS - 1))); do
  g=${ROW_G[$i]} p=$(group_path "${ROW_G[$i]}")
  [ -e "$SRC/$p" ] || die "group '$g' not found in $SRC ($SRC/$p missing)"
  case $p in test/jdk/*) ;; *) die "group '$g' is not under test/jdk (only test/jdk groups are supported)" ;; esac
  if [[ $g == *'!'* ]]; then
    [ -d "$SRC/$p" ] || die "group '$g': $p is not a directory"
    IFS=, read -r -a subs <<< "${g#*!}"
    for s in "${subs[@]}"; do
      [ -d "$SRC/$p/$s" ] || die "group '$g': no subdirectory $s in $SRC/$p"
    done
  fi
  in_list "$p" "${UNIQUE_PATHS[*]:-}" || UNIQUE_PATHS+=("$p")
done

# the configs and factories of the plan, in report order
CONFIGS= FACTORIES=
for c in $CONFIG_ORDER; do
  for i in $(seq 0 $((NROWS - 1))); do in_list "$c" "${ROW_C[$i]}" && { CONFIGS+=" $c"; break; }; done
done
for f in $FACTORY_ORDER; do
  for i in $(seq 0 $((NROWS - 1))); do [ "${ROW_F[$i]}" = "$f" ] && { FACTORIES+=" $f"; break; }; done
done
CONFIGS=${CONFIGS# } FACTORIES=${FACTORIES# }
in_list off "$CONFIGS" || say "config 'off' not run: tests that fail with the feature on are re-run with it off$($RERUN || echo " (not with --no-rerun: no BUG detection)")"

# -- problem lists --
PL_HEADER_END='# -- entries --'
write_problem_list_header() {  # FILE SCOPE
  mkdir -p "$(dirname "$1")"
  cat > "$1" <<EOF
# ET-JDK conformance problem list ($2), in jtreg's
# exclude-file format: harness/conformance.sh passes it to jtreg (-exclude) next
# to upstream's test/jdk/ProblemList.txt (and, for the virtual test-thread
# factory, test/jdk/ProblemList-Virtual.txt).
#
# Only tests that fail with the feature OFF as well belong here: a test that
# fails only with the feature on is a BUG, never a problem-list entry. A test
# that fails only with the virtual test-thread factory goes to
# test/conformance-problemlist-virtual.txt.
#
# An entry is a comment line saying why (what fails, with which configs, since
# when, on which kernel), then one line:
#   <test path relative to test/jdk>[#<id>] <upstream bug id(s)> <platforms>
# bug ids: the upstream bug's JBS id (https://bugs.openjdk.org/browse/JDK-<id>),
# comma-separated if several; 0000000 while none is known (the report lists
# those). platforms as in upstream's lists: generic-all, linux-all, linux-x64.
# Example:
#   # java.net.SocketTimeoutException with the feature off and on, every config, 2 CPUs (2026-11-23)
#   java/net/Socket/Timeouts.java 8123456 linux-all
# harness/conformance.sh checks every entry before a run (the test exists, the
# bug id is numeric, a comment is above it) and stops at a malformed one.
$PL_HEADER_END
EOF
}
[ -f "$PROBLEM_LIST" ] || write_problem_list_header "$PROBLEM_LIST" "every run"
if in_list virtual "$FACTORIES" && [ ! -f "$PROBLEM_LIST_VIRTUAL" ]; then
  write_problem_list_header "$PROBLEM_LIST_VIRTUAL" "runs with the virtual test-thread factory only"
fi

# check_problem_list FILE: every entry well formed and naming a test in TREE
declare -A PL_NO_BUG
check_problem_list() {
  local file=$1 n=0 line prev= t path bugs platforms
  PL_NO_BUG[$file]=0
  while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    if [[ $line =~ ^[[:space:]]*(#|$) ]]; then
      [[ $line =~ ^[[:space:]]*$ ]] || prev=$line
      continue
    fi
    read -r t bugs platforms _ <<< "$line"
    local where="$file:$n: '$line'"
    [ -n "$platforms" ] || die "$where: expected '<test> <bug id(s)> <platforms>' (e.g. java/net/Socket/Foo.java 8123456 linux-all)"
    case $t in test/*|/*) die "$where: the test path must be relative to test/jdk (java/net/..., not test/jdk/java/net/...): jtreg would not match it" ;; esac
    path=${t%%#*}
    [ -f "$SRC/test/jdk/$path" ] || die "$where: no test $path in $SRC/test/jdk; fix the path or remove the entry"
    [[ $bugs =~ ^[0-9]+(,[0-9]+)*$ ]] || die "$where: bug id '$bugs' is not numeric (the upstream JBS id, or 0000000 while none is known)"
    [ -n "$prev" ] || die "$where: no comment above the entry saying why it is there"
    [[ ,$bugs, == *,0000000,* ]] && PL_NO_BUG[$file]=$((PL_NO_BUG[$file] + 1))
    prev=
  done < "$file"
}
check_problem_list "$PROBLEM_LIST"
in_list virtual "$FACTORIES" && check_problem_list "$PROBLEM_LIST_VIRTUAL"
UPSTREAM_PL_VIRTUAL=$SRC/test/jdk/ProblemList-Virtual.txt
if in_list virtual "$FACTORIES"; then
  [ -f "$UPSTREAM_PL_VIRTUAL" ] || die "no $UPSTREAM_PL_VIRTUAL: the virtual factory needs upstream's problem list for it (is $SRC an OpenJDK 21+ tree?)"
fi

mkdir -p "$WORK"
$DRY_RUN || mkdir -p "$(dirname "$OUT")"
fmt_time() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }

# -- the Virtual test-thread factory: upstream's source in the tree, compiled
# with the image's javac into a jar (what make/test/BuildJtregTestThreadFactory.gmk
# does for the test image); cached, rebuilt when the source or the JDK changes --
FACTORY_SRC=$SRC/test/jtreg_test_thread_factory/src/share/classes
FACTORY_DIR=$TOP/build/jtreg-test-thread-factory
FACTORY_JAR=$FACTORY_DIR/jtregTestThreadFactory.jar
build_factory_jar() {
  [ -f "$FACTORY_SRC/Virtual.java" ] || die "no test-thread factory source in the tree ($FACTORY_SRC/Virtual.java missing); --src must be an OpenJDK source tree"
  local stamp=$FACTORY_DIR/built-with.txt want
  want=$("$JDK/bin/java" -version 2>&1; find "$FACTORY_SRC" -name '*.java' -type f | sort | xargs cat | sha256sum)
  if [ -f "$FACTORY_JAR" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
    return
  fi
  mkdir -p "$FACTORY_DIR"
  local tmp
  tmp=$(mktemp -d "$FACTORY_DIR/tmp.XXXXXX")
  # shellcheck disable=SC2046
  if ! "$JDK/bin/javac" -d "$tmp/classes" $(find "$FACTORY_SRC" -name '*.java' -type f) > "$tmp/javac.log" 2>&1 ||
     ! "$JDK/bin/jar" --create --file "$tmp/factory.jar" -C "$tmp/classes" . >> "$tmp/javac.log" 2>&1; then
    cat "$tmp/javac.log" >&2; rm -rf "$tmp"
    die "could not build the test-thread factory jar from $FACTORY_SRC with $JDK/bin/javac (output above)"
  fi
  mv -f "$tmp/factory.jar" "$FACTORY_JAR"
  printf '%s\n' "$want" > "$stamp"
  rm -rf "$tmp"
  say "built the Virtual test-thread factory: $FACTORY_JAR"
}
if in_list virtual "$FACTORIES" && ! $DRY_RUN; then build_factory_jar; fi

# -- native test libraries (upstream builds them into the test image) --
NATIVE_DIR=$WORK/native
NATIVE_BUILT=() NATIVE_FAILED=()
build_native() {
  rm -rf "$NATIVE_DIR"
  mkdir -p "$NATIVE_DIR"
  local dirs=() src base name kind cc out p
  for p in "${UNIQUE_PATHS[@]}"; do dirs+=("$SRC/$p"); done
  [ -d "$SRC/test/lib" ] && dirs+=("$SRC/test/lib")
  while IFS= read -r src; do
    base=${src##*/}
    name=${base%.*}
    case $base in *.cpp) cc=g++ ;; *) cc=gcc ;; esac
    case $name in lib*) kind=lib; out=$NATIVE_DIR/$name.so ;; *) kind=exe; out=$NATIVE_DIR/$name ;; esac
    command -v "$cc" >/dev/null || { NATIVE_FAILED+=("$base (no $cc)"); continue; }
    local flags=(-O2 -w -fPIC -pthread -I"$JDK/include" -I"$JDK/include/linux"
                 -I"$SRC/test/lib/native" -I"$(dirname "$src")")
    if [ $kind = lib ]; then
      flags+=(-shared)
    else
      flags+=(-L"$JDK/lib" -L"$JDK/lib/server" -Wl,-rpath,"$JDK/lib" -Wl,-rpath,"$JDK/lib/server" -ldl)
    fi
    if "$cc" "${flags[@]}" -o "$out" "$src" >>"$NATIVE_DIR/build.log" 2>&1; then
      NATIVE_BUILT+=("${src#"$SRC"/}")
    else
      NATIVE_FAILED+=("${src#"$SRC"/}")
    fi
  done < <(find "${dirs[@]}" -type f \( -name 'lib*.c' -o -name 'lib*.cpp' -o -name 'exe*.c' -o -name 'exe*.cpp' \) | sort -u)
  say "native test libraries: ${#NATIVE_BUILT[@]} built, ${#NATIVE_FAILED[@]} failed (log: $NATIVE_DIR/build.log)"
}

NATIVE_OPTS=()
if $NATIVE && { $REPORT_ONLY || $DRY_RUN; }; then
  NATIVE_OPTS=(-nativepath:"$NATIVE_DIR")
  mapfile -t NATIVE_BUILT < <(cat "$NATIVE_DIR/built.txt" 2>/dev/null)
elif $NATIVE; then
  build_native
  printf '%s\n' ${NATIVE_BUILT[@]+"${NATIVE_BUILT[@]}"} > "$NATIVE_DIR/built.txt"
  NATIVE_OPTS=(-nativepath:"$NATIVE_DIR")
fi

# -- ET-JDK's own tests are not part of the conformance run ('make check' runs
# them): exclude the test files that are not in the tree's first (pristine
# upstream) commit, when the tree is a git repository --
OWN_LIST=$WORK/et-jdk-own-tests.txt
{
  echo "# generated by $prog: test files in the tree that are not in the pristine upstream commit"
  if root=$(git -C "$SRC" rev-list --max-parents=0 HEAD 2>/dev/null | tail -n 1) && [ -n "$root" ]; then
    for p in "${UNIQUE_PATHS[@]}"; do
      comm -23 <(cd "$SRC" && find "$p" -name '*.java' -type f | sort) \
               <(git -C "$SRC" ls-tree -r --name-only "$root" -- "$p" | sort)
    done | sort -u | while IFS= read -r f; do
      # jtreg matches an exclude entry against the test name, which has the
      # test's id when the file has several tests or an id ("#id<n>" for the
      # n-th test when it has none)
      awk -v path="${f#test/jdk/}" '
        /@test([[:space:]]|$)/ {
          id = ""
          if (match($0, /id=[^[:space:]]+/)) id = substr($0, RSTART + 3, RLENGTH - 3)
          ids[n++] = id
        }
        END {
          if (n == 1 && ids[0] == "") print path " 0000000 generic-all"
          else for (i = 0; i < n; i++) print path "#" (ids[i] == "" ? "id" i : ids[i]) " 0000000 generic-all"
        }' "$SRC/$f"
    done
  fi
} > "$OWN_LIST"
OWN_FILES=$(grep -v '^#' "$OWN_LIST" | cut -d'#' -f1 | cut -d' ' -f1 | sort -u || true)
OWN_COUNT=$(grep -c . <<< "$OWN_FILES" || true)
[ "$OWN_COUNT" -eq 0 ] || say "excluding $OWN_COUNT test file(s) that are ET-JDK's own (not upstream): $OWN_LIST"

# upstream tests in the groups that set the feature's switches themselves
# (in @run lines or for the JVMs they launch): they override the config
SELF_SET=$(for p in "${UNIQUE_PATHS[@]}"; do
  grep -rlE --include='*.java' --include='*.sh' 'jdk\.poller(Mode|EdgeTriggered)' "$SRC/$p" 2>/dev/null || true
done | sed "s|^$SRC/test/jdk/||" | sort -u | grep -vxF -f <(printf '%s\n' "$OWN_FILES" | grep . || echo /) || true)

# -- image identity: --resume keeps only runs made with the same image --
if $DRY_RUN; then
  IMAGE_ID=dry-run
else
  [ -f "$JDK/lib/modules" ] || die "$JDK is not a JDK image (no lib/modules): pass --jdk build/<conf>/images/jdk"
  IMAGE_ID=$( { "$JDK/bin/java" -version 2>&1
                find "$JDK/lib" -maxdepth 2 -type f \( -name modules -o -name '*.so' \) | sort | xargs sha256sum | sed "s|$JDK/||"
              } | sha256sum | cut -c1-16)
fi

# -- run --
COMMON_EXCLUDES=(-exclude:"$SRC/test/jdk/ProblemList.txt" -exclude:"$PROBLEM_LIST" -exclude:"$OWN_LIST")
factory_opts() {  # FACTORY: jtreg options, one per line
  case $1 in
    platform) ;;
    virtual) printf '%s\n' -testThreadFactory:Virtual -testThreadFactoryPath:"$FACTORY_JAR" \
               -exclude:"$UPSTREAM_PL_VIRTUAL" -exclude:"$PROBLEM_LIST_VIRTUAL" ;;
  esac
}
declare -A RESULT_DIR SECONDS_TAKEN RC
COMMANDS_FILE=$WORK/commands.txt
$DRY_RUN || : > "$COMMANDS_FILE"
STALE_IMAGE=0

# a command line that can be pasted into a shell
quote_cmd() {
  local a out=""
  for a in "$@"; do
    if [[ $a =~ ^[A-Za-z0-9_./:=@%+,#-]+$ ]]; then out+="$a "; else out+="'${a//\'/\'\\\'\'}' "; fi
  done
  echo "${out% }"
}

jtreg_cmd() {  # factory config dir tests... -> CMD array
  local factory=$1 config=$2 dir=$3; shift 3
  local opts fopts
  read -r -a opts <<< "$(config_opts "$config")"
  mapfile -t fopts < <(factory_opts "$factory")
  CMD=("$JTREG" -dir:"$SRC" -jdk:"$JDK" -conc:"$CONC" -agentvm -timeoutFactor:"$TIMEOUT_FACTOR"
       -a -k:'!headful' -retain:fail,error "${COMMON_EXCLUDES[@]}" ${fopts[@]+"${fopts[@]}"}
       ${NATIVE_OPTS[@]+"${NATIVE_OPTS[@]}"}
       -w:"$dir/JTwork" -r:"$dir/JTreport" -verbose:summary
       ${opts[@]+"${opts[@]}"} "$@")
}

run_jtreg() {  # factory config dir tests...
  local dir=$3
  jtreg_cmd "$@"
  local cmdline
  cmdline=$(quote_cmd "${CMD[@]}")
  # a completed run of the same command is kept with --resume (if the image is
  # the same) and with --report-only; a run killed by a signal (exit status 128 +
  # signal, e.g. 137 for SIGKILL) did not complete and runs again
  if $RESUME && [ -f "$dir/rc" ] && [ "$(cat "$dir/rc")" -lt 128 ] &&
     [ "$(cat "$dir/command.txt" 2>/dev/null)" = "$cmdline" ]; then
    if [ "$(cat "$dir/image.txt" 2>/dev/null)" = "$IMAGE_ID" ]; then
      say "  kept the completed run in $dir"
      return
    elif $REPORT_ONLY; then
      say "  kept the completed run in $dir (made with another image)"
      STALE_IMAGE=$((STALE_IMAGE + 1))
      return
    fi
    say "  the completed run in $dir was made with another image: running it again"
  fi
  if $REPORT_ONLY; then
    say "  not run (--report-only)"
    return
  fi
  rm -rf "$dir"
  mkdir -p "$dir"
  echo "$cmdline" > "$dir/command.txt"
  echo "$IMAGE_ID" > "$dir/image.txt"
  local start rc=0
  start=$(date +%s)
  "${CMD[@]}" > "$dir/jtreg.log" 2>&1 || rc=$?
  echo "$rc" > "$dir/rc"
  echo $(( $(date +%s) - start )) > "$dir/seconds"
}

if $DRY_RUN; then
  echo "plan: $NROWS group(s), configs: $CONFIGS, factories: $FACTORIES"
  total=0
  for i in $(seq 0 $((NROWS - 1))); do
    f=${ROW_F[$i]} g=${ROW_G[$i]}
    mapfile -t targs < <(group_args "$g")
    # the run's selection (problem lists, keywords), listed, not run
    lt=$(mktemp -d)
    lexcl=(); [ "$f" = virtual ] && lexcl=(-exclude:"$UPSTREAM_PL_VIRTUAL" -exclude:"$PROBLEM_LIST_VIRTUAL")
    n=$(JTREG_JAVA=$JDK/bin/java "$JTREG" -dir:"$SRC" -jdk:"$JDK" -a -k:'!headful' "${COMMON_EXCLUDES[@]}" \
          ${lexcl[@]+"${lexcl[@]}"} -w:"$lt/JTwork" -r:"$lt/JTreport" -listtests "${targs[@]}" 2>/dev/null |
        sed -n 's/^Tests found: *//p' | head -n 1) || true
    rm -rf "$lt"
    nc=$(wc -w <<< "${ROW_C[$i]}")
    n=${n:-?}
    [ "$n" = "?" ] || total=$((total + n * nc))
    printf '%-8s %-46s %5s test ids x %s config(s): %s\n' "$f" "$g" "$n" "$nc" "${ROW_C[$i]}"
  done
  echo "total: $total test runs ('?': jtreg -listtests found none or failed)"
  echo
  echo "jtreg commands (work directories under $WORK):"
  for i in $(seq 0 $((NROWS - 1))); do
    mapfile -t targs < <(group_args "${ROW_G[$i]}")
    for config in ${ROW_C[$i]}; do
      jtreg_cmd "${ROW_F[$i]}" "$config" "$WORK/${ROW_F[$i]}/$config/$(slug "${ROW_G[$i]}")" "${targs[@]}"
      quote_cmd "${CMD[@]}"
    done
  done
  exit 0
fi

# group by group, every config for a group before the next group: an interrupted
# run (or a --report-only report) then compares whole groups across configs
NOT_RUN=0
for i in $(seq 0 $((NROWS - 1))); do
  f=${ROW_F[$i]} g=${ROW_G[$i]}
  mapfile -t targs < <(group_args "$g")
  [ ${#targs[@]} -gt 0 ] || die "group '$g' has no tests"
  for config in ${ROW_C[$i]}; do
    dir=$WORK/$f/$config/$(slug "$g")
    say "running $g, config $config ($(config_title "$config")), $f test threads"
    run_jtreg "$f" "$config" "$dir" "${targs[@]}"
    RESULT_DIR[$f,$config,$g]=$dir
    if [ ! -f "$dir/rc" ]; then
      NOT_RUN=$((NOT_RUN + 1))
      continue
    fi
    SECONDS_TAKEN[$f,$config,$g]=$(cat "$dir/seconds")
    RC[$f,$config,$g]=$(cat "$dir/rc")
    printf '%s %s [%s] %s\n' "$f" "$config" "$g" "$(cat "$dir/command.txt")" >> "$COMMANDS_FILE"
    say "  $(grep -h '^Test results:' "$dir/jtreg.log" || echo "no 'Test results' line (jtreg exit ${RC[$f,$config,$g]}), see $dir/jtreg.log") in $(fmt_time "${SECONDS_TAKEN[$f,$config,$g]}")"
  done
done

# -- parse --
# summary.txt lines: "<test> Passed. <reason>" / "Failed. ..." / "Error. ..."
# STATUS[factory,config,test] = Passed|Failed|Error, REASON[...] = text
declare -A STATUS REASON JTR COUNT
ALL_TESTS_FILE=$WORK/all-tests.txt
: > "$ALL_TESTS_FILE"
parse_summary() {  # factory config dir [group]: sets STATUS/REASON/JTR, echoes "p f e"
  local factory=$1 config=$2 dir=$3 group=${4:-} line t rest st p=0 fl=0 e=0 jtr id
  local summary=$dir/JTreport/text/summary.txt
  if [ -f "$summary" ]; then
    while IFS= read -r line; do
      t=${line%% *}
      rest=${line#"$t"}
      rest=${rest#"${rest%%[! ]*}"}
      st=${rest%%.*}
      case $st in
        Passed) p=$((p + 1)) ;;
        Failed) fl=$((fl + 1)) ;;
        Error) e=$((e + 1)) ;;
        *) continue ;;
      esac
      STATUS[$factory,$config,$t]=$st
      REASON[$factory,$config,$t]=${rest#*. }
      jtr=${t%#*}; id=; [[ $t == *#* ]] && id=_${t#*#}
      JTR[$factory,$config,$t]=$dir/JTwork/${jtr%.*}$id.jtr
      [ -z "$group" ] || printf '%s\t%s\t%s\n' "$factory" "$t" "$group" >> "$ALL_TESTS_FILE"
    done < "$summary"
  fi
  PARSED="$p $fl $e"
}
for i in $(seq 0 $((NROWS - 1))); do
  f=${ROW_F[$i]} g=${ROW_G[$i]}
  for config in ${ROW_C[$i]}; do
    parse_summary "$f" "$config" "${RESULT_DIR[$f,$config,$g]}" "$g"
    COUNT[$f,$config,$g]=$PARSED
  done
done
sort -u -t$'\t' -k1,2 -o "$ALL_TESTS_FILE" "$ALL_TESTS_FILE"

# first lines of the failure in a .jtr: the result line and the first exception
failure_excerpt() {
  local jtr=$1
  [ -f "$jtr" ] || { echo "    (no .jtr at $jtr)"; return; }
  {
    grep -m1 '^execStatus=' "$jtr" || true
    grep -m6 -E '(Exception|Error|HANG|FAILED|failed)([: ]|$)' "$jtr" | grep -v '^execStatus=' || true
  } | cut -c1-300 | sed 's/^/    /'
}
failing() { [ "$1" = Failed ] || [ "$1" = Error ]; }

# BUGS: "factory<TAB>config<TAB>test" passed with off, failed or error with config
# NO_OFF: the same, but no result with off (off not run)
# BOTH / OFF_ONLY: "factory<TAB>test" failing with off, in every / not every ET config run
classify() {
  BUGS=() NO_OFF=() BOTH=() OFF_ONLY=()
  local f t g off st config failing_on on_configs
  while IFS=$'\t' read -r f t g; do
    off=${STATUS[$f,off,$t]:-}
    failing_on=0 on_configs=0
    for config in $CONFIGS; do
      [ "$config" = off ] && continue
      st=${STATUS[$f,$config,$t]:-}
      [ -n "$st" ] || continue
      on_configs=$((on_configs + 1))
      failing "$st" || continue
      failing_on=$((failing_on + 1))
      if [ "$off" = Passed ]; then BUGS+=("$f"$'\t'"$config"$'\t'"$t")
      elif [ -z "$off" ]; then NO_OFF+=("$f"$'\t'"$config"$'\t'"$t"); fi
    done
    if failing "$off"; then
      if [ "$failing_on" -eq "$on_configs" ]; then BOTH+=("$f"$'\t'"$t"); else OFF_ONLY+=("$f"$'\t'"$t"); fi
    fi
  done < "$ALL_TESTS_FILE"
}
classify

# re-run each BUG candidate once, with off and with its config; a failure with
# the feature on that has no result with it off is run with off the same way
declare -A CONFIRM OFF_FROM_RERUN
RERUN_DIRS=()
if $RERUN && [ $((${#BUGS[@]} + ${#NO_OFF[@]})) -gt 0 ]; then
  $REPORT_ONLY || say "re-running $((${#BUGS[@]} + ${#NO_OFF[@]})) failure(s) with the feature on once, with it on and off"
  declare -A RERUN_TESTS
  for b in ${BUGS[@]+"${BUGS[@]}"} ${NO_OFF[@]+"${NO_OFF[@]}"}; do
    IFS=$'\t' read -r f config t <<< "$b"
    RERUN_TESTS[$f,$config]+=" test/jdk/$t"
    RERUN_TESTS[$f,off]+=" test/jdk/$t"
  done
  for key in "${!RERUN_TESTS[@]}"; do
    f=${key%%,*} config=${key#*,}
    dir=$WORK/rerun/$f/$config
    read -r -a tests <<< "$(tr ' ' '\n' <<< "${RERUN_TESTS[$key]}" | sort -u | tr '\n' ' ')"
    $REPORT_ONLY || say "re-running ${#tests[@]} test(s), config $config, $f test threads"
    run_jtreg "$f" "$config" "$dir" "${tests[@]}"
    [ -f "$dir/rc" ] || continue
    RERUN_DIRS+=("$dir")
    printf '%s %s [rerun] %s\n' "$f" "$config" "$(cat "$dir/command.txt")" >> "$COMMANDS_FILE"
    if [ -f "$dir/JTreport/text/summary.txt" ]; then
      while IFS= read -r line; do
        t=${line%% *}; rest=${line#"$t"}; rest=${rest#"${rest%%[! ]*}"}
        CONFIRM[$f,$config,$t]=${rest%%.*}
        if [ "$config" = off ] && [ -z "${STATUS[$f,off,$t]:-}" ]; then
          # no result from a run with off: the re-run is the comparison
          OFF_FROM_RERUN[$f,$t]=1
          STATUS[$f,off,$t]=${rest%%.*}
          REASON[$f,off,$t]=${rest#*. }
          id=; [[ $t == *#* ]] && id=_${t#*#}; base=${t%#*}
          JTR[$f,off,$t]=$dir/JTwork/${base%.*}$id.jtr
        fi
      done < "$dir/JTreport/text/summary.txt"
    fi
  done
  classify
fi

# the tests that fail with the feature off and on go to the problem list of
# their factory (the platform list covers both factories)
if $UPDATE_PL; then
  declare -A BOTH_PLATFORM
  for b in ${BOTH[@]+"${BOTH[@]}"}; do
    IFS=$'\t' read -r f t <<< "$b"
    [ "$f" = platform ] && BOTH_PLATFORM[$t]=1
  done
  for b in ${BOTH[@]+"${BOTH[@]}"}; do
    IFS=$'\t' read -r f t <<< "$b"
    pl=$PROBLEM_LIST
    if [ "$f" = virtual ]; then
      [ -n "${BOTH_PLATFORM[$t]:-}" ] && continue   # the platform entry covers it
      pl=$PROBLEM_LIST_VIRTUAL
    fi
    grep -q -F "$t " "$pl" && continue
    reason=$(printf '%s' "${REASON[$f,off,$t]}" | tr '\n' ' ' | cut -c1-200)
    {
      echo "# fails with the feature off and on, $f test threads ($(date -u +%Y-%m-%d), $(uname -r)): ${STATUS[$f,off,$t]}. $reason"
      echo "# TODO: the upstream bug id (https://bugs.openjdk.org), then replace 0000000"
      echo "$t 0000000 generic-all"
    } >> "$pl"
    say "added to $pl: $t"
  done
  check_problem_list "$PROBLEM_LIST"
  in_list virtual "$FACTORIES" && check_problem_list "$PROBLEM_LIST_VIRTUAL"
fi

# -- report --
java_version=$("$JDK/bin/java" -version 2>&1)
jtreg_version=$(JTREG_JAVA=$JDK/bin/java "$JTREG" -version 2>&1 | head -n 2 || true)
os=$( (. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME") || uname -s)
cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)
mem=$(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo 2>/dev/null || true)
rel() { echo "${1#"$TOP"/}"; }
# the entries of a problem list and their comments, without the file's header
pl_entries() { awk -v m="$PL_HEADER_END" 'body && NF {print} $0 == m {body=1}' "$1"; }
pl_count() { grep -c -v -E '^[[:space:]]*(#|$)' "$1" || true; }

bug_verdict() {  # factory config test
  local f=$1 config=$2 t=$3 c_on c_off
  $RERUN || { echo "not re-run"; return; }
  c_on=${CONFIRM[$f,$config,$t]:-?}; c_off=${CONFIRM[$f,off,$t]:-?}
  if [ -n "${OFF_FROM_RERUN[$f,$t]:-}" ]; then
    if [ "$c_on" = Passed ]; then echo "off not run in the plan; re-run: Passed with off, Passed with $config: flaky?"
    else echo "off not run in the plan; re-run: Passed with off, $c_on with $config"; fi
  elif [ "$c_on" = Passed ]; then echo "passed when re-run: flaky?"
  else echo "re-run: $c_on with $config, $c_off with off"; fi
}

{
  if $QUICK && [ -z "$GROUPS_ARG" ]; then
    echo "# Conformance, quick subset: upstream jtreg groups with edge-triggered read pollers on"
    echo
    echo "Generated by \`harness/conformance.sh --quick\` (\`make conformance-quick\`) on $(date -u '+%Y-%m-%d %H:%M UTC'): the subset to run after every poller change. The full run is \`make conformance\` (doc/results/conformance.md)."
  else
    echo "# Conformance: upstream jtreg suites with edge-triggered read pollers off and on"
    echo
    echo "Generated by \`harness/conformance.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC')."
    echo "Full run: \`make conformance\` (which runs \`harness/conformance.sh --jdk \$(JDK_IMAGE) --jtreg \$(JTREG_HOME) --src \$(SRC) --out doc/results/conformance.md\`)."
  fi
  echo
  echo "This run: \`$CMDLINE\`"
  if [ "$NOT_RUN" -gt 0 ]; then
    echo
    echo "**Incomplete: $NOT_RUN group/config run(s) did not run** (\"not run\" below); \`--resume\` runs them and keeps the others."
  fi
  if [ "$STALE_IMAGE" -gt 0 ]; then
    echo
    echo "**$STALE_IMAGE run(s) below were made with another image than \`$JDK\` is now** (kept by \`--report-only\`)."
  fi
  echo
  echo "## Machine"
  echo
  echo "- OS: $os, kernel $(uname -r), $(uname -m)"
  echo "- CPU: ${cpu:-unknown}, $(nproc) CPUs online; memory ${mem:-unknown}"
  echo "- jtreg: $(echo "$jtreg_version" | head -n 1)"
  echo "- jtreg options: -conc:$CONC -agentvm -timeoutFactor:$TIMEOUT_FACTOR -a -k:!headful, upstream ProblemList.txt + \`$(rel "$PROBLEM_LIST")\`$(in_list virtual "$FACTORIES" && echo "; virtual factory: -testThreadFactory:Virtual (jar built from the tree's test/jtreg_test_thread_factory), upstream ProblemList-Virtual.txt + \`$(rel "$PROBLEM_LIST_VIRTUAL")\`")$($NATIVE && echo "; native test libraries built by the script (${#NATIVE_BUILT[@]})")"
  echo
  echo "\`java -version\`:"
  echo
  echo '```'
  echo "$java_version"
  echo '```'
  echo
  echo "## Results"
  echo
  echo "passed / failed / error (wall time m:ss) per group and config; \`-\`: not in the plan. Configs:"
  for config in $CONFIGS; do
    echo "- \`$config\`: $(config_title "$config"), \`$(config_opts "$config")\`"
  done
  echo
  echo "The switches go in with \`-vmoption\`, which jtreg applies to every JVM it starts for a test (agent VMs, othervm test VMs, compiling VMs) and passes on in \`test.vm.opts\`, so the JVMs that tests launch through jdk.test.lib's ProcessTools get them too. \`off\` sets \`jdk.pollerEdgeTriggered=false\` explicitly, so that a \`-Djdk.pollerMode\` in a test's \`@run\` line does not turn edge-triggered reads on. A test that sets \`-Djdk.pollerMode\` or \`-Djdk.pollerEdgeTriggered\` in its own \`@run\` line overrides the config (its options come later on the command line), so such test ids run the same way in every config with the feature on. Upstream tests in these groups that name these properties: $( [ -n "$SELF_SET" ] && printf '`%s` ' $SELF_SET || echo none)."
  in_list off "$CONFIGS" || { echo; echo "\`off\` was not run; tests that failed with the feature on were re-run with it off$($RERUN || echo " (not in this run: --no-rerun)")."; }
  for factory in $FACTORIES; do
    echo
    echo "### $(factory_title "$factory")"
    echo
    header="| group |"; sep="|---|"
    for config in $CONFIGS; do header+=" $config |"; sep+="---|"; done
    echo "$header"
    echo "$sep"
    declare -A TOT_P=() TOT_F=() TOT_E=() TOT_S=()
    for i in $(seq 0 $((NROWS - 1))); do
      [ "${ROW_F[$i]}" = "$factory" ] || continue
      g=${ROW_G[$i]}
      row="| $(group_title "$g") |"
      for config in $CONFIGS; do
        if ! in_list "$config" "${ROW_C[$i]}"; then row+=" - |"; continue; fi
        if [ -z "${RC[$factory,$config,$g]:-}" ]; then row+=" not run |"; continue; fi
        read -r p fl e <<< "${COUNT[$factory,$config,$g]}"
        s=${SECONDS_TAKEN[$factory,$config,$g]}
        TOT_P[$config]=$(( ${TOT_P[$config]:-0} + p )); TOT_F[$config]=$(( ${TOT_F[$config]:-0} + fl ))
        TOT_E[$config]=$(( ${TOT_E[$config]:-0} + e )); TOT_S[$config]=$(( ${TOT_S[$config]:-0} + s ))
        cell="$p / $fl / $e ($(fmt_time "$s"))"
        [ $((p + fl + e)) -eq 0 ] && cell="no result, jtreg exit ${RC[$factory,$config,$g]} ($(fmt_time "$s"))"
        row+=" $cell |"
      done
      echo "$row"
    done
    row="| **total** |"
    for config in $CONFIGS; do
      row+=" **${TOT_P[$config]:-0} / ${TOT_F[$config]:-0} / ${TOT_E[$config]:-0}** ($(fmt_time "${TOT_S[$config]:-0}")) |"
    done
    echo "$row"
  done
  echo
  echo "## BUGs: pass with the feature off, fail with it on"
  for factory in $FACTORIES; do
    echo
    echo "### $(factory_title "$factory")"
    echo
    n=0
    for b in ${BUGS[@]+"${BUGS[@]}"}; do
      IFS=$'\t' read -r f config t <<< "$b"
      [ "$f" = "$factory" ] || continue
      n=$((n + 1))
      echo "- **BUG** \`$t\` with \`$config\`: ${STATUS[$f,$config,$t]}. ${REASON[$f,$config,$t]} ($(bug_verdict "$f" "$config" "$t"))"
      echo "  \`${JTR[$f,$config,$t]}\`:"
      echo
      echo '  ```'
      failure_excerpt "${JTR[$f,$config,$t]}"
      echo '  ```'
    done
    for b in ${NO_OFF[@]+"${NO_OFF[@]}"}; do
      IFS=$'\t' read -r f config t <<< "$b"
      [ "$f" = "$factory" ] || continue
      n=$((n + 1))
      echo "- **not compared with off** \`$t\` with \`$config\`: ${STATUS[$f,$config,$t]}. ${REASON[$f,$config,$t]}"
      echo "  \`${JTR[$f,$config,$t]}\`"
    done
    [ "$n" -gt 0 ] || echo "None."
  done
  echo
  echo "## Failing with the feature off too"
  for factory in $FACTORIES; do
    echo
    echo "### $(factory_title "$factory")"
    echo
    n=0
    for b in ${BOTH[@]+"${BOTH[@]}"}; do
      IFS=$'\t' read -r f t <<< "$b"
      [ "$f" = "$factory" ] || continue
      n=$((n + 1))
      echo "- \`$t\` (every config run$([ -n "${OFF_FROM_RERUN[$f,$t]:-}" ] && echo "; off: re-run")): off: ${STATUS[$f,off,$t]}. ${REASON[$f,off,$t]}"
    done
    for b in ${OFF_ONLY[@]+"${OFF_ONLY[@]}"}; do
      IFS=$'\t' read -r f t <<< "$b"
      [ "$f" = "$factory" ] || continue
      n=$((n + 1))
      line="- \`$t\` (off, not every ET config):"
      for config in $CONFIGS; do line+=" $config ${STATUS[$f,$config,$t]:-n/a};"; done
      echo "$line off reason: ${REASON[$f,off,$t]}"
    done
    if [ "$n" -eq 0 ]; then
      echo "None."
    else
      echo
      if [ "$factory" = virtual ]; then
        echo "Tests that fail in every config belong in \`$(rel "$PROBLEM_LIST_VIRTUAL")\` (or, if they fail with platform test threads too, \`$(rel "$PROBLEM_LIST")\`) with a reason and the upstream bug id."
      else
        echo "Tests that fail in every config belong in \`$(rel "$PROBLEM_LIST")\` with a reason and the upstream bug id."
      fi
    fi
  done
  echo
  echo "## Problem lists"
  echo
  echo "- upstream \`test/jdk/ProblemList.txt\` (entries for this platform)"
  in_list virtual "$FACTORIES" && echo "- upstream \`test/jdk/ProblemList-Virtual.txt\` (virtual factory only)"
  for pl in "$PROBLEM_LIST" $(in_list virtual "$FACTORIES" && echo "$PROBLEM_LIST_VIRTUAL"); do
    n=$(pl_count "$pl")
    echo "- \`$(rel "$pl")\`$([ "$pl" = "$PROBLEM_LIST_VIRTUAL" ] && echo " (virtual factory only)"): $n entries$([ "${PL_NO_BUG[$pl]:-0}" -gt 0 ] && echo ", ${PL_NO_BUG[$pl]} without an upstream bug id (0000000)")"
    if [ "$n" -gt 0 ]; then
      echo
      echo '  ```'
      pl_entries "$pl" | sed 's/^/  /'
      echo '  ```'
    fi
  done
  echo "- ET-JDK's own tests in the groups (not in the pristine upstream commit of the tree; \`make check\` runs them): $OWN_COUNT files excluded$( [ "$OWN_COUNT" -gt 0 ] && echo ": $(tr '\n' ' ' <<< "$OWN_FILES")")"
  if $NATIVE; then
    echo
    echo "Native test libraries built (-nativepath): ${NATIVE_BUILT[*]:-none}${NATIVE_FAILED[*]:+; failed: ${NATIVE_FAILED[*]}}"
  fi
  echo
  echo "## jtreg commands"
  for factory in $FACTORIES; do
    for config in $CONFIGS; do
      cmds=$(for i in $(seq 0 $((NROWS - 1))); do
        [ "${ROW_F[$i]}" = "$factory" ] || continue
        g=${ROW_G[$i]}
        [ -n "${RC[$factory,$config,$g]:-}" ] && cat "${RESULT_DIR[$factory,$config,$g]}/command.txt"
      done)
      [ -n "$cmds" ] || continue
      echo
      echo "### $config ($(config_title "$config")), $factory test threads"
      echo
      echo '```'
      echo "$cmds"
      echo '```'
    done
  done
  if [ ${#RERUN_DIRS[@]} -gt 0 ]; then
    echo
    echo "### re-runs"
    echo
    echo '```'
    for d in "${RERUN_DIRS[@]}"; do cat "$d/command.txt"; done
    echo '```'
  fi
} > "$OUT"

# -- console summary --
echo
printf '%-9s %-46s' "factory" "group"
for config in $CONFIGS; do printf ' %-18s' "$config"; done
echo
for i in $(seq 0 $((NROWS - 1))); do
  f=${ROW_F[$i]} g=${ROW_G[$i]}
  printf '%-9s %-46s' "$f" "${g#test/jdk/}"
  for config in $CONFIGS; do
    if ! in_list "$config" "${ROW_C[$i]}"; then printf ' %-18s' "-"; continue; fi
    if [ -z "${RC[$f,$config,$g]:-}" ]; then printf ' %-18s' "not run"; continue; fi
    read -r p fl e <<< "${COUNT[$f,$config,$g]}"
    printf ' %-18s' "$p/$fl/$e ($(fmt_time "${SECONDS_TAKEN[$f,$config,$g]}"))"
  done
  echo
done
echo "(passed/failed/error (m:ss))"
for b in ${BUGS[@]+"${BUGS[@]}"}; do
  IFS=$'\t' read -r f config t <<< "$b"
  echo
  echo "BUG ($f test threads): $t passes with off, ${STATUS[$f,$config,$t]} with $config: ${REASON[$f,$config,$t]}"
  echo "     ${JTR[$f,$config,$t]}"
  failure_excerpt "${JTR[$f,$config,$t]}"
done
for b in ${NO_OFF[@]+"${NO_OFF[@]}"}; do
  IFS=$'\t' read -r f config t <<< "$b"
  echo "fails with $config, not compared with off ($f test threads): $t: ${REASON[$f,$config,$t]}"
done
for b in ${BOTH[@]+"${BOTH[@]}"}; do
  IFS=$'\t' read -r f t <<< "$b"
  echo "fails with the feature off too ($f test threads; problem-list candidate): $t: ${REASON[$f,off,$t]}"
done
echo "report: $OUT"
echo "commands: $COMMANDS_FILE"
[ $((${#BUGS[@]} + ${#NO_OFF[@]})) -eq 0 ] || exit 2
