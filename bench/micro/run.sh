#!/usr/bin/env bash
# bench/micro/run.sh (make bench-poller): ONESHOT vs edge-triggered (ET) read
# pollers, side by side.
#
# Runs the JMH micro benchmark org.openjdk.bench.java.net.SocketReadPollerBench
# (test/micro) on one JDK image with -Djdk.pollerEdgeTriggered=false (ONESHOT)
# and =true (ET) (or the --variant list) alternately, for each poller mode and
# scheduler parallelism, and writes a Markdown page with tables, plots and CPU
# profile shares. See doc/bench-poller-usage.md and bench/README.md.
#
# Usage: bench/micro/run.sh --jdk <image jdk> [options]
# Run with --help for the options.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$SCRIPT_DIR/../.." && pwd)
# shellcheck source=../lib/guard.sh
. "$REPO_DIR/bench/lib/guard.sh"
ET_JDK_CACHE=${ET_JDK_CACHE:-$HOME/.cache/et-jdk}
BENCH=org.openjdk.bench.java.net.SocketReadPollerBench
PERF_EVENTS="task-clock,context-switches,syscalls:sys_enter_epoll_ctl,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_read,syscalls:sys_enter_write,raw_syscalls:sys_enter"

die() { echo "bench-poller: error: $*" >&2; exit 1; }
note() { echo "bench-poller: $*" >&2; }

shell_words() { bench_shell_words "$@"; }

usage() {
  cat <<'EOF'
Usage: bench/micro/run.sh --jdk DIR [options]

Runs SocketReadPollerBench with ONESHOT (-Djdk.pollerEdgeTriggered=false) and
ET (-Djdk.pollerEdgeTriggered=true) alternately and writes a Markdown page.

Required:
  --jdk DIR            JDK image under test (e.g. build/<conf>/images/jdk)

Options (defaults in brackets):
  --jar PATH           JMH benchmarks jar [DIR/../test/micro/benchmarks.jar, i.e.
                       build/<conf>/images/test/micro/benchmarks.jar from
                       'make build-microbenchmark']
  --out FILE           page [doc/results/poller-micro.md, relative to the
                       current directory]; FILE.csv beside it, plots and
                       collapsed CPU profiles in a directory named after it
                       (doc/results/poller-micro/); raw runs (JMH JSON, logs,
                       flame graphs) under build/bench/micro/<UTC timestamp>/
  --pairs N            pairs per configuration [5]
  --variant NAME='OPTS'  a variant and its JVM options, repeatable; the first is
                       the baseline of the ratios [ONESHOT='-Djdk.pollerEdgeTriggered=false'
                       ET='-Djdk.pollerEdgeTriggered=true']
  --allow-busy         run even if the load guard (bench/README.md) finds the
                       machine busy; the page is stamped "measured on a busy machine"
  --modes LIST         jdk.pollerMode values [2,3]
  --parallelism LIST   jdk.virtualThreadScheduler.parallelism values [1,2]
  --sizes LIST         readSize values [1,64,1024,16384]
  --transports LIST    transport values: socket, channel [socket]
  --threads N          JMH threads (virtual threads, one connection each) [100]
  --servers N          serverCount (one-thread Selector servers) [1]
  --forks N            JMH forks per run [1]
  --wi N / --w SEC     warmup iterations / seconds per warmup iteration [3 / 1]
  --i N / --r SEC      measurement iterations / seconds per iteration [5 / 1]
  --jvm-args "ARGS"    extra options for the benchmark JVMs
  --quick              smaller matrix: --sizes 1,1024 --modes 2 --parallelism 1
                       --wi 2 --i 3 (options given explicitly still win)
  --no-profile         skip the async-profiler runs
  --profile-event EV   async-profiler event: cpu or itimer [cpu; falls back to
                       itimer when cpu yields no samples]
  --async-profiler P   libasyncProfiler.so, or the async-profiler jar carrying it
                       [fetched from Maven Central into $ET_JDK_CACHE]
  -h, --help           this text

Environment: BENCH_POLLER_OPTS holds more options, split on blanks (so no
value with a blank in it), read before the command line's; ET_JDK_CACHE
[~/.cache/et-jdk] is the download cache.
EOF
}

# ---------------------------------------------------------------- options
jdk="" jar="" out="doc/results/poller-micro.md" allow_busy=0 vnames=() vopts=()
pairs=5 modes="2,3" pars="1,2" sizes="1,64,1024,16384" transports="socket"
threads=100 servers=1 forks=1 wi=3 w=1 iters=5 r=1 jvm_args="" profile=1
profile_event=cpu async_profiler=""
orig_args=("$@")
env_args=()
read -r -a env_args <<<"${BENCH_POLLER_OPTS:-}" || true
all_args=("${env_args[@]}" "$@")

for a in "${all_args[@]}"; do
  if [[ $a == --quick ]]; then
    sizes="1,1024" modes="2" pars="1" wi=2 iters=3
  fi
done

need() { [[ $# -ge 2 && -n $2 ]] || die "option $1 needs a value (see --help)"; }
set -- "${all_args[@]}"
while [[ $# -gt 0 ]]; do
  case $1 in
    --jdk) need "$@"; jdk=$2; shift 2 ;;
    --jar) need "$@"; jar=$2; shift 2 ;;
    --out) need "$@"; out=$2; shift 2 ;;
    --pairs) need "$@"; pairs=$2; shift 2 ;;
    --variant)
      need "$@"
      [[ $2 =~ ^[A-Za-z][A-Za-z0-9_-]*= ]] || die "--variant needs NAME='JVM options' (a name of letters, digits, _ or -), got '$2'"
      vnames+=("${2%%=*}"); vopts+=("${2#*=}"); shift 2 ;;
    --allow-busy) allow_busy=1; shift ;;
    --modes) need "$@"; modes=$2; shift 2 ;;
    --parallelism) need "$@"; pars=$2; shift 2 ;;
    --sizes) need "$@"; sizes=$2; shift 2 ;;
    --transports) need "$@"; transports=$2; shift 2 ;;
    --threads) need "$@"; threads=$2; shift 2 ;;
    --servers) need "$@"; servers=$2; shift 2 ;;
    --forks) need "$@"; forks=$2; shift 2 ;;
    --wi) need "$@"; wi=$2; shift 2 ;;
    --w) need "$@"; w=$2; shift 2 ;;
    --i) need "$@"; iters=$2; shift 2 ;;
    --r) need "$@"; r=$2; shift 2 ;;
    --jvm-args) need "$@"; jvm_args=$2; shift 2 ;;
    --quick) shift ;;
    --no-profile) profile=0; shift ;;
    --profile-event) need "$@"; profile_event=$2; shift 2 ;;
    --async-profiler) need "$@"; async_profiler=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done

is_uint() { [[ $1 =~ ^[0-9]+$ ]]; }
is_list() { [[ $1 =~ ^[0-9]+(,[0-9]+)*$ ]]; }
[[ -n $jdk ]] || die "--jdk DIR is required (the image, e.g. build/<conf>/images/jdk)"
for v in pairs threads servers forks wi w iters r; do
  is_uint "${!v}" || die "--${v/iters/i} must be a non-negative integer, got '${!v}'"
done
(( pairs >= 1 )) || die "--pairs must be at least 1"
(( threads >= 1 && servers >= 1 && forks >= 1 && iters >= 1 && r >= 1 )) \
  || die "--threads, --servers, --forks, --i and --r must be at least 1"
(( wi >= 1 && w >= 1 )) || die "--wi and --w must be at least 1: the perf counting window needs a warmup before it (see the report's method section)"
is_list "$modes" || die "--modes must be a comma-separated list of numbers, got '$modes'"
is_list "$pars" || die "--parallelism must be a comma-separated list of numbers, got '$pars'"
is_list "$sizes" || die "--sizes must be a comma-separated list of numbers, got '$sizes'"
[[ $transports =~ ^(socket|channel)(,(socket|channel))*$ ]] \
  || die "--transports must be a comma-separated list of socket/channel, got '$transports'"
[[ $profile_event == cpu || $profile_event == itimer ]] \
  || die "--profile-event must be cpu or itimer, got '$profile_event'"
(( pairs >= 5 )) || note "warning: --pairs $pairs is below the 5 pairs the method asks for"
if (( ${#vnames[@]} == 0 )); then
  vnames=(ONESHOT ET); vopts=("-Djdk.pollerEdgeTriggered=false" "-Djdk.pollerEdgeTriggered=true")
fi
(( ${#vnames[@]} >= 2 )) || note "warning: one variant only: no ratios"

[[ -d $jdk ]] || die "--jdk '$jdk' is not a directory"
jdk=$(cd "$jdk" && pwd)
java=$jdk/bin/java
[[ -x $java ]] || die "no executable $java: --jdk must be a JDK image (e.g. build/<conf>/images/jdk)"
if [[ -z $jar ]]; then
  jar=$(dirname "$jdk")/test/micro/benchmarks.jar
  [[ -f $jar ]] || die "no benchmarks jar at $jar: build it with 'make build-microbenchmark' (configure with --with-jmh), or pass --jar PATH"
fi
[[ -f $jar ]] || die "--jar '$jar' does not exist"
jar=$(cd "$(dirname "$jar")" && pwd)/$(basename "$jar")
command -v python3 >/dev/null || die "python3 not found (needed for the report)"
perf=$(command -v perf || true)
[[ -n $perf ]] || die "perf not found: install linux-perf (Debian) or put perf on PATH"

case $out in /*) ;; *) out=$PWD/$out ;; esac
[[ $out == *.md ]] || die "--out must name a .md file, got '$out'"
# the page's own files: OUT.md, OUT.csv and OUT/ (plots, collapsed profiles);
# OUT/ may hold nothing else, since it is replaced as a whole
assets=${out%.md}
if [[ -d $assets ]] && find "$assets" -type f ! \( -name '*.svg' -o -name '*.png' -o -name '*.gz' \) | grep -q .; then
  die "refusing to replace $assets: it holds files that are not plots or profiles (choose another --out)"
fi

guard_init bench-poller "$allow_busy"
guard_check start "the first run"
guard_lock
trap 'guard_unlock' EXIT

mkdir -p "$(dirname "$out")"
raw=$REPO_DIR/build/bench/micro/$(date -u +%Y%m%dT%H%M%SZ)-$(basename "$assets")
mkdir -p "$raw/json" "$raw/logs" "$raw/profiles"
guard_log_to "$raw/guard.log"
note "raw runs: $raw"

# ---------------------------------------------------------------- checks
note "checking perf can count the syscall tracepoints"
if ! "$perf" stat -x, -o "$raw/logs/perf-check.csv" -e "$PERF_EVENTS" -- true 2>"$raw/logs/perf-check.err"; then
  cat "$raw/logs/perf-check.err" >&2
  die "'perf stat -e $PERF_EVENTS' failed: run as root or lower /proc/sys/kernel/perf_event_paranoid, and make sure tracefs is mounted (/sys/kernel/tracing)"
fi
if grep -q -E '<not supported>|<not counted>' "$raw/logs/perf-check.csv"; then
  cat "$raw/logs/perf-check.csv" >&2
  die "perf does not support some of the events $PERF_EVENTS here"
fi

note "checking $jar contains $BENCH"
if ! "$java" -jar "$jar" -l "$BENCH" >"$raw/logs/jar-list.txt" 2>&1 \
    || ! grep -q "^$BENCH\.roundTrip\$" "$raw/logs/jar-list.txt"; then
  cat "$raw/logs/jar-list.txt" >&2
  die "$jar does not contain $BENCH (rebuild the micro benchmarks: make build-microbenchmark)"
fi

# async-profiler: a .so, a jar carrying linux-x64/libasyncProfiler.so, or the
# pinned Maven artifact (upstream.conf ASYNC_PROFILER_ARTIFACT)
asprof_lib=""
find_async_profiler() {
  local coord sha a v jarfile dir
  if [[ -n $async_profiler ]]; then
    [[ -f $async_profiler ]] || die "--async-profiler '$async_profiler' does not exist"
    case $async_profiler in
      *.so) asprof_lib=$(cd "$(dirname "$async_profiler")" && pwd)/$(basename "$async_profiler"); return ;;
      *.jar) jarfile=$async_profiler; dir=$ET_JDK_CACHE/async-profiler-from-jar ;;
      *) die "--async-profiler must name a .so or a .jar" ;;
    esac
  else
    coord="" sha=""
    [[ -f $REPO_DIR/upstream.conf ]] \
      && read -r coord sha < <(sed -n 's/^ASYNC_PROFILER_ARTIFACT="\(.*\)"/\1/p' "$REPO_DIR/upstream.conf") || true
    [[ -n ${coord:-} && -n ${sha:-} ]] || die "ASYNC_PROFILER_ARTIFACT not found in upstream.conf; pass --async-profiler or --no-profile"
    IFS=: read -r _ a v <<<"$coord"
    dir=$ET_JDK_CACHE/async-profiler-$v
    if [[ -f $dir/linux-x64/libasyncProfiler.so ]]; then
      asprof_lib=$dir/linux-x64/libasyncProfiler.so; return
    fi
    jarfile=$ET_JDK_CACHE/maven/$a-$v.jar
    if [[ ! -f $jarfile ]]; then
      command -v mvn >/dev/null || die "async-profiler not in $ET_JDK_CACHE and mvn not found: install maven, pass --async-profiler, or use --no-profile"
      note "fetching $coord from Maven Central"
      mkdir -p "$ET_JDK_CACHE/maven"
      mvn -q -B dependency:copy "-Dartifact=$coord" "-DoutputDirectory=$ET_JDK_CACHE/maven" >"$raw/logs/mvn-async-profiler.log" 2>&1 \
        || { cat "$raw/logs/mvn-async-profiler.log" >&2; die "could not fetch $coord"; }
    fi
    [[ $(sha256sum "$jarfile" | cut -d' ' -f1) == "$sha" ]] \
      || die "$jarfile does not match the SHA-256 in upstream.conf ($sha); delete it and retry"
  fi
  mkdir -p "$dir"
  unzip -q -o "$jarfile" linux-x64/libasyncProfiler.so -d "$dir" \
    || die "$jarfile does not carry linux-x64/libasyncProfiler.so"
  asprof_lib=$dir/linux-x64/libasyncProfiler.so
}
if (( profile )); then
  find_async_profiler
  note "async-profiler: $asprof_lib"
fi

# ---------------------------------------------------------------- metadata
"$java" -version >"$raw/jdk-version.txt" 2>&1 || die "$java -version failed"
bench_meta_start "$raw/meta.env" "$java" bench/micro/run.sh "${orig_args[@]}"
echo "perf=$("$perf" --version 2>&1)" >>"$raw/meta.env"
printf 'name\topts\n' >"$raw/variants.tsv"
for i in "${!vnames[@]}"; do printf '%s\t%s\n' "${vnames[$i]}" "${vopts[$i]}" >>"$raw/variants.tsv"; done
{
  echo "bench_poller_opts=${BENCH_POLLER_OPTS:-}"
  echo "jdk=$jdk"
  echo "jar=$jar"
  echo "pairs=$pairs"; echo "modes=$modes"; echo "parallelism=$pars"
  echo "sizes=$sizes"; echo "transports=$transports"; echo "threads=$threads"
  echo "servers=$servers"; echo "forks=$forks"; echo "wi=$wi"; echo "w=$w"
  echo "i=$iters"; echo "r=$r"; echo "jvm_args=$jvm_args"; echo "profile=$profile"
  echo "perf_events=$PERF_EVENTS"
  echo "perfnorm_interval_ms=100"
  echo "async_profiler=$asprof_lib"
} >"$raw/config.txt"

# ---------------------------------------------------------------- runs
IFS=, read -r -a mode_list <<<"$modes"
IFS=, read -r -a par_list <<<"$pars"
IFS=, read -r -a size_list <<<"$sizes"
IFS=, read -r -a transport_list <<<"$transports"
nparams=$(( ${#size_list[@]} * ${#transport_list[@]} ))
# bound of one JMH invocation: generous, so that a hang fails instead of
# blocking forever (JMH's own -to interrupts a stuck iteration first)
per_fork=$(( wi * w + iters * r + 30 ))
run_timeout=$(( 3 * nparams * forks * per_fork + 180 ))
iter_timeout=$(( r * 10 > 60 ? r * 10 : 60 ))

variant_opts() { local i; for i in "${!vnames[@]}"; do [[ ${vnames[$i]} == "$1" ]] && echo "${vopts[$i]}"; done; return 0; }

# run_jmh KIND VARIANT MODE PAR PAIR [extra JMH options...]
# KIND: time (ops/s, -prof gc), count (-prof perfnorm), profile (-prof async)
run_jmh() {
  local kind=$1 variant=$2 mode=$3 par=$4 pair=$5; shift 5
  local id="$kind-$variant-m$mode-p$par-$pair"
  local vmopts="-Djmh.executor=VIRTUAL -DSocketReadPollerBench.requireVirtual=true"
  vmopts+=" -Djdk.pollerMode=$mode -Djdk.virtualThreadScheduler.parallelism=$par"
  vmopts+=" $(variant_opts "$variant")"
  [[ -n $jvm_args ]] && vmopts+=" $jvm_args"
  local cmd=(timeout --kill-after=30 "$run_timeout" "$java" -jar "$jar" "$BENCH.roundTrip"
    -f "$forks" -wi "$wi" -w "${w}s" -i "$iters" -r "${r}s" -t "$threads" -to "${iter_timeout}s"
    -foe true -p "readSize=$sizes" -p "transport=$transports" -p "serverCount=$servers"
    -jvmArgsAppend "$vmopts" -rf json -rff "json/$id.json" "$@")
  { printf '%s\t' "$id"; shell_words "${cmd[@]:3}"; } >>"$raw/commands.txt"
  (( run_no == 0 )) || guard_check between "run $id"
  run_no=$(( run_no + 1 ))
  local psi0 t0 t1 psi1
  psi0=$(guard_psi_total); t0=$(date +%s.%N)
  local ran_mode=$mode own
  own=$(grep -o -- '-Djdk.pollerMode=[^ ]*' <<<"$(variant_opts "$variant")" | tail -n 1) || true
  [[ -n $own ]] && ran_mode="${own#-Djdk.pollerMode=} (the variant's own)"
  note "[$run_no/$runs_total] $kind $variant pollerMode=$ran_mode parallelism=$par pair $pair"
  local rc=0
  (cd "$raw" && "${cmd[@]}") >"$raw/logs/$id.log" 2>&1 || rc=$?
  if (( rc != 0 )) || [[ ! -s $raw/json/$id.json ]]; then
    tail -40 "$raw/logs/$id.log" >&2
    (( rc == 124 || rc == 137 )) && die "run $id timed out after ${run_timeout}s (log: $raw/logs/$id.log)"
    die "run $id failed (exit $rc; log: $raw/logs/$id.log)"
  fi
  t1=$(date +%s.%N); psi1=$(guard_psi_total)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$variant" "$mode" "$par" "$pair" "json/$id.json" \
    "$GUARD_LOAD1" "$GUARD_PSI10" "$GUARD_BUSY" "$(guard_load1)" \
    "$(awk -v a="${psi0:-}" -v b="${psi1:-}" -v t0="$t0" -v t1="$t1" \
        'BEGIN { if (a == "" || b == "") print "n/a"; else printf "%.1f", (b - a) / 1e4 / (t1 - t0) }')" >>"$raw/runs.tsv"
}

printf 'kind\tvariant\tmode\tparallelism\tpair\tjson\tload1_before\tpsi10_before\tbusy_before\tload1_after\tpsi_run_pct\n' >"$raw/runs.tsv"
: >"$raw/commands.txt"
nvar=${#vnames[@]}
runs_total=$(( pairs * ${#mode_list[@]} * ${#par_list[@]} * 2 * nvar + (profile ? nvar * ${#mode_list[@]} : 0) ))
run_no=0
est_min=$(( (runs_total * (nparams * forks * (wi * w + iters * r + 3) + 5) + 59) / 60 ))
note "$runs_total JMH runs of up to $nparams parameter sets each, about $est_min minutes; data in $raw"

# A B A B ...: each pair runs the variants back to back, for throughput
# (no perf attached) and then for counts (perf attached), and the pairs are
# spread over the whole session.
for pair in $(seq 1 "$pairs"); do
  for mode in "${mode_list[@]}"; do
    for par in "${par_list[@]}"; do
      for variant in "${vnames[@]}"; do
        run_jmh time "$variant" "$mode" "$par" "$pair" -prof gc
      done
      for variant in "${vnames[@]}"; do
        run_jmh count "$variant" "$mode" "$par" "$pair" -prof "perfnorm:events=$PERF_EVENTS;interval=100"
      done
    done
  done
done

# CPU profiles: first readSize, transport and parallelism given.
if (( profile )); then
  printf 'variant\tmode\tparallelism\treadSize\ttransport\tevent\tcollapsed\tflamegraph\n' >"$raw/profiles.tsv"
  psize=${size_list[0]} ptransport=${transport_list[0]} ppar=${par_list[0]}
  for mode in "${mode_list[@]}"; do
    for variant in "${vnames[@]}"; do
      pdir=profiles/$variant-m$mode-p$ppar
      event=$profile_event
      for attempt in 1 2; do
        rm -rf "${raw:?}/$pdir"
        sizes=$psize transports=$ptransport run_jmh profile "$variant" "$mode" "$ppar" "$attempt" \
          -prof "async:libPath=$asprof_lib;event=$event;interval=1000000;output=flamegraph,collapsed;dir=$pdir"
        collapsed=$(cd "$raw" && find "$pdir" -name 'collapsed-*.csv' 2>/dev/null | head -1 || true)
        if [[ -n $collapsed && -s $raw/$collapsed ]]; then
          printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$variant" "$mode" "$ppar" "$psize" "$ptransport" "$event" \
            "$collapsed" "$(cd "$raw" && find "$pdir" -name 'flame-*-forward.html' | head -1)" \
            >>"$raw/profiles.tsv"
          break
        fi
        if [[ $event == cpu && $attempt == 1 ]]; then
          note "no samples with event=cpu (perf events refused?); retrying with event=itimer"
          event=itimer
          runs_total=$(( runs_total + 1 ))
        else
          die "async-profiler produced no samples for $variant pollerMode=$mode (see $raw/logs/)"
        fi
      done
    done
  done
fi

bench_meta_end "$raw/meta.env"

# the page, its CSV and its assets are written to a staging place first and
# moved in place together: a failed report leaves the previous page alone
stage=$raw/page
rm -rf "$stage"; mkdir -p "$stage/assets"
python3 "$SCRIPT_DIR/report.py" "$raw" "$stage/assets" "$stage/page.md" "$(basename "$assets")" \
  || die "the report could not be written (raw runs kept in $raw)"
rm -rf "$assets"
mv "$stage/assets" "$assets"
mv "$stage/assets.csv" "${out%.md}.csv"
mv "$stage/page.md" "$out"
note "page: $out, ${out%.md}.csv and $assets/ (raw runs in $raw)"
