#!/bin/bash
# Runs upstream jtreg test groups against an ET-JDK image with the edge-triggered
# read pollers off and on (pollerMode 1, 2 and 3), and writes a side-by-side
# markdown report. A test that passes with the feature off and fails with it on is
# reported as a BUG (re-run once to tell a reproducible failure from a flaky one);
# the script then exits with status 2.
#
# Usage: tools/conformance.sh --jdk IMAGE --jtreg JTREG_HOME --src TREE --out FILE
#            [--groups "G ..."] [--configs "C ..."] [--quick] [--resume] [options]
# Run with --help for the options. 'make conformance' runs it with the defaults.
set -euo pipefail

prog=${0##*/}
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

die() { printf '%s: error: %s\n' "$prog" "$*" >&2; exit 1; }
say() { printf '%s: %s\n' "$prog" "$*" >&2; }

DEFAULT_GROUPS="test/jdk/java/net/vthread test/jdk/java/net/Socket test/jdk/java/net/ServerSocket test/jdk/java/net/DatagramSocket test/jdk/java/nio/channels test/jdk/java/lang/Thread/virtual"
QUICK_GROUPS="test/jdk/java/net/vthread test/jdk/java/nio/channels/vthread"
DEFAULT_CONFIGS="off et-mode1 et-mode2 et-mode3"

usage() {
  cat <<EOF
Usage: $prog --jdk IMAGE --jtreg JTREG_HOME --src TREE --out FILE [options]

Runs upstream jtreg groups from TREE against the JDK IMAGE once per config and
writes a markdown report (FILE) with a side-by-side table, the BUGs (tests that
pass with the feature off and fail with it on), the tests that fail with the
feature off too, machine info, 'java -version' and the exact jtreg commands.

  --jdk IMAGE            JDK image to test (build/<conf>/images/jdk)
  --jtreg JTREG_HOME     jtreg installation (bin/jtreg)
  --src TREE             source tree with upstream's test/ directory (build/src)
  --out FILE             markdown report to write (e.g. doc/results/conformance.md)
  --groups "G ..."       test paths relative to TREE
                         (default: $DEFAULT_GROUPS)
  --configs "C ..."      configs among: off, et (feature on, default mode),
                         et-mode1, et-mode2, et-mode3 (default: $DEFAULT_CONFIGS)
  --quick                groups: $QUICK_GROUPS
  --resume               keep the results of group/config runs that completed
                         before (same jtreg command) and run only the others
  --report-only          run nothing: write the report from the completed runs
                         in the work directory (the others show as "not run")
  --work DIR             work/report directories (default: $TOP/build/conformance)
  --conc N               jtreg concurrency (default: 2)
  --timeout-factor N     jtreg timeout factor (default: 4)
  --problem-list FILE    ET-JDK problem list (default: $TOP/test/conformance-problemlist.txt);
                         upstream's test/jdk/ProblemList.txt is always used too
  --update-problem-list  append the tests that fail with the feature off and on
                         (in every config run) to the problem list, with the reason
  --no-native            do not build the native test libraries (tests needing them
                         then fail in every config)
  --no-rerun             do not re-run suspected BUGs to confirm them
  -h, --help             this help

Exit status: 0 no BUG, 2 BUG(s) found, 1 usage or setup error.
EOF
}

JDK= JTREG_HOME_ARG= SRC= OUT= GROUPS_ARG= CONFIGS=$DEFAULT_CONFIGS QUICK=false
WORK=$TOP/build/conformance CONC=2 TIMEOUT_FACTOR=4
PROBLEM_LIST=$TOP/test/conformance-problemlist.txt UPDATE_PL=false NATIVE=true RERUN=true
RESUME=false REPORT_ONLY=false
CMDLINE="$0 $*"

need_arg() { [ $# -ge 2 ] && [ -n "$2" ] || die "option $1 needs a value (see --help)"; }
while [ $# -gt 0 ]; do
  case $1 in
    --jdk) need_arg "$@"; JDK=$2; shift 2 ;;
    --jtreg) need_arg "$@"; JTREG_HOME_ARG=$2; shift 2 ;;
    --src) need_arg "$@"; SRC=$2; shift 2 ;;
    --out) need_arg "$@"; OUT=$2; shift 2 ;;
    --groups) need_arg "$@"; GROUPS_ARG=$2; shift 2 ;;
    --configs) need_arg "$@"; CONFIGS=$2; shift 2 ;;
    --quick) QUICK=true; shift ;;
    --work) need_arg "$@"; WORK=$2; shift 2 ;;
    --conc) need_arg "$@"; CONC=$2; shift 2 ;;
    --timeout-factor) need_arg "$@"; TIMEOUT_FACTOR=$2; shift 2 ;;
    --problem-list) need_arg "$@"; PROBLEM_LIST=$2; shift 2 ;;
    --update-problem-list) UPDATE_PL=true; shift ;;
    --no-native) NATIVE=false; shift ;;
    --no-rerun) RERUN=false; shift ;;
    --resume) RESUME=true; shift ;;
    --report-only) REPORT_ONLY=true; RESUME=true; RERUN=false; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done

[ -n "$JDK" ] || die "--jdk IMAGE is required (see --help)"
[ -n "$JTREG_HOME_ARG" ] || die "--jtreg JTREG_HOME is required (see --help)"
[ -n "$SRC" ] || die "--src TREE is required (see --help)"
[ -n "$OUT" ] || die "--out FILE is required (see --help)"
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
case $OUT in /*) ;; *) OUT=$PWD/$OUT ;; esac
case $WORK in /*) ;; *) WORK=$PWD/$WORK ;; esac
case $PROBLEM_LIST in /*) ;; *) PROBLEM_LIST=$PWD/$PROBLEM_LIST ;; esac

if [ -n "$GROUPS_ARG" ]; then
  GROUPS_LIST=$GROUPS_ARG
elif $QUICK; then
  GROUPS_LIST=$QUICK_GROUPS
else
  GROUPS_LIST=$DEFAULT_GROUPS
fi
for g in $GROUPS_LIST; do
  [ -e "$SRC/$g" ] || die "group '$g' not found in $SRC"
  case $g in test/jdk/*) ;; *) die "group '$g' is not under test/jdk (only test/jdk groups are supported)" ;; esac
done

# The feature's switches go in with -vmoption: jtreg uses -vmoption for every JVM
# it starts for a test (agent VMs, othervm test VMs and the compiling VMs) and
# passes it on in test.vm.opts, which jdk.test.lib's ProcessTools adds to the JVMs
# the tests launch themselves; -javaoption would miss the compiling VMs.
config_opts() {
  case $1 in
    off) ;;
    et) echo "-vmoption:-Djdk.pollerEdgeTriggered=true" ;;
    et-mode[123]) echo "-vmoption:-Djdk.pollerEdgeTriggered=true -vmoption:-Djdk.pollerMode=${1#et-mode}" ;;
    *) return 1 ;;
  esac
}
config_title() {
  case $1 in
    off) echo "off" ;;
    et) echo "ET on (default mode)" ;;
    et-mode[123]) echo "ET on, pollerMode ${1#et-mode}" ;;
  esac
}
for c in $CONFIGS; do
  config_opts "$c" >/dev/null || die "unknown config '$c' (expected off, et, et-mode1, et-mode2 or et-mode3)"
done
case " $CONFIGS " in *" off "*) ;; *) say "warning: config 'off' not in --configs: no BUG detection" ;; esac

if [ ! -f "$PROBLEM_LIST" ]; then
  mkdir -p "$(dirname "$PROBLEM_LIST")"
  cat > "$PROBLEM_LIST" <<'EOF'
# ET-JDK conformance problem list (jtreg exclude-file format), used by
# tools/conformance.sh together with upstream's test/jdk/ProblemList.txt.
# Only tests that fail with the feature OFF as well belong here (a test that
# fails only with the feature on is a BUG, never a problem-list entry). Each
# entry has a comment saying why.
#
# <test path relative to test/jdk>[#id]  <bug id>  <platforms>
EOF
fi

mkdir -p "$WORK" "$(dirname "$OUT")"
slug() { local s=${1#test/jdk/}; s=${s%/}; echo "${s//\//_}"; }
fmt_time() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }

# -- native test libraries (upstream builds them into the test image) --
NATIVE_DIR=$WORK/native
NATIVE_BUILT=() NATIVE_FAILED=()
build_native() {
  rm -rf "$NATIVE_DIR"
  mkdir -p "$NATIVE_DIR"
  local dirs=() src base name kind cc out
  for g in $GROUPS_LIST; do dirs+=("$SRC/$g"); done
  dirs+=("$SRC/test/lib")
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
  done < <(find "${dirs[@]}" -type f \( -name 'lib*.c' -o -name 'lib*.cpp' -o -name 'exe*.c' -o -name 'exe*.cpp' \) | sort)
  say "native test libraries: ${#NATIVE_BUILT[@]} built, ${#NATIVE_FAILED[@]} failed (log: $NATIVE_DIR/build.log)"
}

NATIVE_OPTS=()
if $NATIVE && $REPORT_ONLY; then
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
OWN_COUNT=0
{
  echo "# generated by $prog: test files in the tree that are not in the pristine upstream commit"
  if root=$(git -C "$SRC" rev-list --max-parents=0 HEAD 2>/dev/null | tail -n 1) && [ -n "$root" ]; then
    for g in $GROUPS_LIST; do
      comm -23 <(cd "$SRC" && find "$g" -name '*.java' -type f | sort) \
               <(git -C "$SRC" ls-tree -r --name-only "$root" -- "$g" | sort)
    done | while IFS= read -r f; do
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
OWN_COUNT=$(grep -v '^#' "$OWN_LIST" | cut -d'#' -f1 | cut -d' ' -f1 | sort -u | wc -l)
[ "$OWN_COUNT" -eq 0 ] || say "excluding $OWN_COUNT test file(s) that are ET-JDK's own (not upstream): $OWN_LIST"

# -- run --
EXCLUDES=(-exclude:"$SRC/test/jdk/ProblemList.txt" -exclude:"$PROBLEM_LIST" -exclude:"$OWN_LIST")
declare -A RESULT_DIR SECONDS_TAKEN RC
COMMANDS_FILE=$WORK/commands.txt
: > "$COMMANDS_FILE"

# a command line that can be pasted into a shell
quote_cmd() {
  local a out=""
  for a in "$@"; do
    if [[ $a =~ ^[A-Za-z0-9_./:=@%+,#-]+$ ]]; then out+="$a "; else out+="'${a//\'/\'\\\'\'}' "; fi
  done
  echo "${out% }"
}

run_jtreg() {  # config dir tests...
  local config=$1 dir=$2; shift 2
  local opts
  read -r -a opts <<< "$(config_opts "$config")"
  local cmd=("$JTREG" -dir:"$SRC" -jdk:"$JDK" -conc:"$CONC" -agentvm -timeoutFactor:"$TIMEOUT_FACTOR"
             -a -k:'!headful' -retain:fail,error "${EXCLUDES[@]}" ${NATIVE_OPTS[@]+"${NATIVE_OPTS[@]}"}
             -w:"$dir/JTwork" -r:"$dir/JTreport" -verbose:summary
             ${opts[@]+"${opts[@]}"} "$@")
  # a completed run of the same command is kept with --resume
  if $RESUME && [ -f "$dir/rc" ] && [ "$(cat "$dir/command.txt" 2>/dev/null)" = "$(quote_cmd "${cmd[@]}")" ]; then
    say "  kept the completed run in $dir"
    return
  fi
  if $REPORT_ONLY; then
    say "  not run (--report-only)"
    return
  fi
  rm -rf "$dir"
  mkdir -p "$dir"
  quote_cmd "${cmd[@]}" > "$dir/command.txt"
  local start rc=0
  start=$(date +%s)
  "${cmd[@]}" > "$dir/jtreg.log" 2>&1 || rc=$?
  echo "$rc" > "$dir/rc"
  echo $(( $(date +%s) - start )) > "$dir/seconds"
}

# group by group, every config for a group before the next group: an interrupted
# run (or a --report-only report) then compares whole groups across configs
NOT_RUN=0
for g in $GROUPS_LIST; do
  for config in $CONFIGS; do
    dir=$WORK/$config/$(slug "$g")
    say "running $g, config $config ($(config_title "$config"))"
    run_jtreg "$config" "$dir" "$g"
    RESULT_DIR[$config,$g]=$dir
    if [ ! -f "$dir/rc" ]; then
      NOT_RUN=$((NOT_RUN + 1))
      continue
    fi
    SECONDS_TAKEN[$config,$g]=$(cat "$dir/seconds")
    RC[$config,$g]=$(cat "$dir/rc")
    printf '%s [%s] %s\n' "$config" "$g" "$(cat "$dir/command.txt")" >> "$COMMANDS_FILE"
    say "  $(grep -h '^Test results:' "$dir/jtreg.log" || echo "no 'Test results' line (jtreg exit ${RC[$config,$g]}), see $dir/jtreg.log") in $(fmt_time "${SECONDS_TAKEN[$config,$g]}")"
  done
done

# -- parse --
# summary.txt lines: "<test> Passed. <reason>" / "Failed. ..." / "Error. ..."
# STATUS[config,test] = Passed|Failed|Error, REASON[config,test] = text
declare -A STATUS REASON JTR COUNT
ALL_TESTS_FILE=$WORK/all-tests.txt
: > "$ALL_TESTS_FILE"
for config in $CONFIGS; do
  for g in $GROUPS_LIST; do
    dir=${RESULT_DIR[$config,$g]}
    p=0 f=0 e=0
    summary=$dir/JTreport/text/summary.txt
    if [ -f "$summary" ]; then
      while IFS= read -r line; do
        t=${line%% *}
        rest=${line#"$t"}
        rest=${rest#"${rest%%[! ]*}"}
        st=${rest%%.*}
        case $st in
          Passed) p=$((p + 1)) ;;
          Failed) f=$((f + 1)) ;;
          Error) e=$((e + 1)) ;;
          *) continue ;;
        esac
        STATUS[$config,$t]=$st
        REASON[$config,$t]=${rest#*. }
        jtr=${t%#*}; id=; [[ $t == *#* ]] && id=_${t#*#}
        JTR[$config,$t]=$dir/JTwork/${jtr%.*}$id.jtr
        printf '%s\t%s\n' "$t" "$g" >> "$ALL_TESTS_FILE"
      done < "$summary"
    fi
    COUNT[$config,$g]="$p $f $e"
  done
done
sort -u -t$'\t' -k1,1 -o "$ALL_TESTS_FILE" "$ALL_TESTS_FILE"

# first lines of the failure in a .jtr: the result line and the first exception
failure_excerpt() {
  local jtr=$1
  [ -f "$jtr" ] || { echo "    (no .jtr at $jtr)"; return; }
  {
    grep -m1 '^execStatus=' "$jtr" || true
    grep -m6 -E '(Exception|Error|HANG|FAILED|failed)([: ]|$)' "$jtr" | grep -v '^execStatus=' || true
  } | cut -c1-300 | sed 's/^/    /'
}

# BUG candidates: passed with off, failed or error with another config
BUGS=() BOTH=() OFF_ONLY=()
if [ -n "${STATUS[*]+x}" ] && [[ " $CONFIGS " == *" off "* ]]; then
  while IFS=$'\t' read -r t g; do
    off=${STATUS[off,$t]:-}
    failing_on=0 on_configs=0
    for config in $CONFIGS; do
      [ "$config" = off ] && continue
      on_configs=$((on_configs + 1))
      st=${STATUS[$config,$t]:-}
      if [ "$off" = Passed ] && { [ "$st" = Failed ] || [ "$st" = Error ]; }; then
        BUGS+=("$config"$'\t'"$t")
      fi
      { [ "$st" = Failed ] || [ "$st" = Error ]; } && failing_on=$((failing_on + 1))
    done
    if [ "$off" = Failed ] || [ "$off" = Error ]; then
      if [ "$failing_on" -eq "$on_configs" ]; then BOTH+=("$t"); else OFF_ONLY+=("$t"); fi
    fi
  done < "$ALL_TESTS_FILE"
fi

# re-run each BUG candidate once, with off and with its config
declare -A CONFIRM
if $RERUN && [ ${#BUGS[@]} -gt 0 ]; then
  say "re-running ${#BUGS[@]} BUG candidate(s) once to confirm"
  declare -A RERUN_TESTS
  for b in "${BUGS[@]}"; do
    config=${b%%$'\t'*}; t=${b#*$'\t'}
    RERUN_TESTS[$config]+=" test/jdk/$t"
    RERUN_TESTS[off]+=" test/jdk/$t"
  done
  for config in "${!RERUN_TESTS[@]}"; do
    dir=$WORK/rerun/$config
    read -r -a tests <<< "$(tr ' ' '\n' <<< "${RERUN_TESTS[$config]}" | sort -u | tr '\n' ' ')"
    run_jtreg "$config" "$dir" "${tests[@]}"
    printf '%s [rerun] %s\n' "$config" "$(cat "$dir/command.txt")" >> "$COMMANDS_FILE"
    if [ -f "$dir/JTreport/text/summary.txt" ]; then
      while IFS= read -r line; do
        t=${line%% *}; rest=${line#"$t"}; rest=${rest#"${rest%%[! ]*}"}
        CONFIRM[$config,$t]=${rest%%.*}
      done < "$dir/JTreport/text/summary.txt"
    fi
  done
fi

# -- report --
java_version=$("$JDK/bin/java" -version 2>&1)
jtreg_version=$(JTREG_JAVA=$JDK/bin/java "$JTREG" -version 2>&1 | head -n 2 || true)
os=$( (. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME") || uname -s)
cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)
mem=$(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo 2>/dev/null || true)

{
  echo "# Conformance: upstream jtreg suites with edge-triggered read pollers off and on"
  echo
  echo "Generated by \`tools/conformance.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC')."
  echo "Full run: \`make conformance\` (which runs \`tools/conformance.sh --jdk \$(JDK_IMAGE) --jtreg \$(JTREG_HOME) --src \$(SRC) --out doc/results/conformance.md\`)."
  echo
  echo "This run: \`$CMDLINE\`$($QUICK && echo " (quick mode: plumbing check, not the full suites)")"
  if [ "$NOT_RUN" -gt 0 ]; then
    echo
    echo "**Incomplete: $NOT_RUN group/config run(s) did not run** (\"not run\" below); \`--resume\` runs them and keeps the others."
  fi
  echo
  echo "## Machine"
  echo
  echo "- OS: $os, kernel $(uname -r), $(uname -m)"
  echo "- CPU: ${cpu:-unknown}, $(nproc) CPUs online; memory ${mem:-unknown}"
  echo "- jtreg: $(echo "$jtreg_version" | head -n 1)"
  echo "- jtreg options: -conc:$CONC -agentvm -timeoutFactor:$TIMEOUT_FACTOR -a -k:!headful, upstream ProblemList.txt + \`${PROBLEM_LIST#"$TOP"/}\`$($NATIVE && echo ", native test libraries built by the script (${#NATIVE_BUILT[@]})")"
  echo
  echo "\`java -version\`:"
  echo
  echo '```'
  echo "$java_version"
  echo '```'
  echo
  echo "## Results"
  echo
  echo "passed / failed / error (wall time m:ss) per group and config. Configs:"
  for config in $CONFIGS; do
    echo "- \`$config\`: $(config_title "$config")$( [ -n "$(config_opts "$config")" ] && echo ", \`$(config_opts "$config")\`")"
  done
  echo
  echo "The switches go in with \`-vmoption\`, which jtreg applies to every JVM it starts for a test (agent VMs, othervm test VMs, compiling VMs) and passes on in \`test.vm.opts\`, so the JVMs that tests launch through jdk.test.lib's ProcessTools get them too. A test that sets \`-Djdk.pollerMode\` or \`-Djdk.pollerEdgeTriggered\` in its own \`@run\` line overrides the config (its options come later on the command line), so such test ids run the same way in every config."
  echo
  header="| group |"; sep="|---|"
  for config in $CONFIGS; do header+=" $config |"; sep+="---|"; done
  echo "$header"
  echo "$sep"
  declare -A TOT_P TOT_F TOT_E TOT_S
  for g in $GROUPS_LIST; do
    row="| \`${g#test/jdk/}\` |"
    for config in $CONFIGS; do
      if [ -z "${RC[$config,$g]:-}" ]; then
        row+=" not run |"
        continue
      fi
      read -r p f e <<< "${COUNT[$config,$g]}"
      s=${SECONDS_TAKEN[$config,$g]}
      TOT_P[$config]=$(( ${TOT_P[$config]:-0} + p )); TOT_F[$config]=$(( ${TOT_F[$config]:-0} + f ))
      TOT_E[$config]=$(( ${TOT_E[$config]:-0} + e )); TOT_S[$config]=$(( ${TOT_S[$config]:-0} + s ))
      cell="$p / $f / $e ($(fmt_time "$s"))"
      [ $((p + f + e)) -eq 0 ] && cell="no result, jtreg exit ${RC[$config,$g]} ($(fmt_time "$s"))"
      row+=" $cell |"
    done
    echo "$row"
  done
  row="| **total** |"
  for config in $CONFIGS; do
    row+=" **${TOT_P[$config]:-0} / ${TOT_F[$config]:-0} / ${TOT_E[$config]:-0}** ($(fmt_time "${TOT_S[$config]:-0}")) |"
  done
  echo "$row"
  echo
  echo "## BUGs: pass with the feature off, fail with it on"
  echo
  if [ ${#BUGS[@]} -eq 0 ]; then
    echo "None."
  else
    for b in "${BUGS[@]}"; do
      config=${b%%$'\t'*}; t=${b#*$'\t'}
      verdict="not re-run"
      if $RERUN; then
        c_on=${CONFIRM[$config,$t]:-?}; c_off=${CONFIRM[off,$t]:-?}
        if [ "$c_on" = Passed ]; then verdict="passed when re-run: flaky?"
        else verdict="re-run: $c_on with $config, $c_off with off"; fi
      fi
      echo "- **BUG** \`$t\` with \`$config\`: ${STATUS[$config,$t]}. ${REASON[$config,$t]} ($verdict)"
      echo "  \`${JTR[$config,$t]}\`:"
      echo
      echo '  ```'
      failure_excerpt "${JTR[$config,$t]}"
      echo '  ```'
    done
  fi
  echo
  echo "## Failing with the feature off too"
  echo
  if [ ${#BOTH[@]} -eq 0 ] && [ ${#OFF_ONLY[@]} -eq 0 ]; then
    echo "None."
  else
    for t in ${BOTH[@]+"${BOTH[@]}"}; do
      echo "- \`$t\` (every config): off: ${STATUS[off,$t]}. ${REASON[off,$t]}"
    done
    for t in ${OFF_ONLY[@]+"${OFF_ONLY[@]}"}; do
      line="- \`$t\` (off, not every ET config):"
      for config in $CONFIGS; do line+=" $config ${STATUS[$config,$t]:-n/a};"; done
      echo "$line off reason: ${REASON[off,$t]}"
    done
    echo
    echo "Tests that fail in every config belong in \`${PROBLEM_LIST#"$TOP"/}\` with a reason."
  fi
  echo
  echo "## Problem lists"
  echo
  echo "- upstream \`test/jdk/ProblemList.txt\` (entries for this platform)"
  n=$(grep -c -v -E '^[[:space:]]*(#|$)' "$PROBLEM_LIST" || true)
  echo "- \`${PROBLEM_LIST#"$TOP"/}\`: $n entries"
  if [ "$n" -gt 0 ]; then
    echo
    echo '```'
    # the entries and their comments, without the file's header
    awk 'body && NF {print} /^# <test path/ {body=1}' "$PROBLEM_LIST"
    echo '```'
  fi
  echo "- ET-JDK's own tests in the groups (not in the pristine upstream commit of the tree; \`make check\` runs them): $OWN_COUNT files excluded$( [ "$OWN_COUNT" -gt 0 ] && echo ": $(grep -v '^#' "$OWN_LIST" | cut -d'#' -f1 | cut -d' ' -f1 | sort -u | tr '\n' ' ')")"
  if $NATIVE; then
    echo
    echo "Native test libraries built (-nativepath): ${NATIVE_BUILT[*]:-none}${NATIVE_FAILED[*]:+; failed: ${NATIVE_FAILED[*]}}"
  fi
  echo
  echo "## jtreg commands"
  echo
  for config in $CONFIGS; do
    echo "### $config ($(config_title "$config"))"
    echo
    echo '```'
    for g in $GROUPS_LIST; do
      [ -n "${RC[$config,$g]:-}" ] && cat "${RESULT_DIR[$config,$g]}/command.txt"
    done
    echo '```'
    echo
  done
  if [ -d "$WORK/rerun" ]; then
    echo "### re-runs"
    echo
    echo '```'
    cat "$WORK"/rerun/*/command.txt
    echo '```'
  fi
} > "$OUT"

if $UPDATE_PL && [ ${#BOTH[@]} -gt 0 ]; then
  for t in "${BOTH[@]}"; do
    grep -q -F "$t " "$PROBLEM_LIST" && continue
    reason=$(printf '%s' "${REASON[off,$t]}" | tr '\n' ' ' | cut -c1-200)
    {
      echo "# fails with the feature off and on ($(date -u +%Y-%m-%d), $(uname -r)): ${STATUS[off,$t]}. $reason"
      echo "$t 0000000 generic-all"
    } >> "$PROBLEM_LIST"
    say "added to ${PROBLEM_LIST}: $t"
  done
fi

# -- console summary --
echo
printf '%-42s' "group"
for config in $CONFIGS; do printf ' %-24s' "$config"; done
echo
for g in $GROUPS_LIST; do
  printf '%-42s' "${g#test/jdk/}"
  for config in $CONFIGS; do
    read -r p f e <<< "${COUNT[$config,$g]}"
    if [ -z "${RC[$config,$g]:-}" ]; then printf ' %-24s' "not run"; continue; fi
    printf ' %-24s' "$p/$f/$e ($(fmt_time "${SECONDS_TAKEN[$config,$g]}"))"
  done
  echo
done
echo "(passed/failed/error (m:ss))"
if [ ${#BUGS[@]} -gt 0 ]; then
  echo
  for b in "${BUGS[@]}"; do
    config=${b%%$'\t'*}; t=${b#*$'\t'}
    echo "BUG: $t passes with off, ${STATUS[$config,$t]} with $config: ${REASON[$config,$t]}"
    echo "     ${JTR[$config,$t]}"
    failure_excerpt "${JTR[$config,$t]}"
  done
fi
for t in ${BOTH[@]+"${BOTH[@]}"}; do
  echo "fails with the feature off too (problem-list candidate): $t: ${REASON[off,$t]}"
done
echo "report: $OUT"
echo "commands: $COMMANDS_FILE"
[ ${#BUGS[@]} -eq 0 ] || exit 2
