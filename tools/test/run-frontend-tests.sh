#!/usr/bin/env bash
# Tests of the front end: each patch-check failure mode, and configure's
# errors, provoked on a scratch copy of the repo, and the benchmarks' load
# guard. Run by 'make check'.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
scratch_root=$(mktemp -d)
trap 'rm -rf "$scratch_root"' EXIT
passed=0 failed=0

# scratch: a fresh copy of the repo's front end and patches; prints its path.
scratch() {
  local d
  d=$(mktemp -d "$scratch_root/repo.XXXX")
  cp -a "$top/configure" "$top/upstream.conf" "$top/Makefile" "$top/tools" "$top/patches" "$d/"
  git -C "$d" init -q
  # patch-check reuses build/src's pristine upstream when there is one
  if [ -d "$top/build/src/.git" ]; then mkdir -p "$d/build"; ln -s "$top/build/src" "$d/build/src"; fi
  echo "$d"
}

# expect_failure NAME PATTERN COMMAND...: COMMAND must fail and print PATTERN.
expect_failure() {
  local name=$1 pattern=$2; shift 2
  local out rc
  out=$("$@" 2>&1); rc=$?
  if [ $rc -ne 0 ] && grep -Eq -- "$pattern" <<< "$out"; then
    echo "PASS: $name"; passed=$((passed + 1))
  else
    echo "FAIL: $name (exit $rc, expected output matching /$pattern/), got:"
    sed 's/^/    /' <<< "$out"
    failed=$((failed + 1))
  fi
}

expect_success() {
  local name=$1; shift
  local out
  if out=$("$@" 2>&1); then
    echo "PASS: $name"; passed=$((passed + 1))
  else
    echo "FAIL: $name, got:"; sed 's/^/    /' <<< "$out"; failed=$((failed + 1))
  fi
}

first_patch() { sed -n '1p' "$1/patches/series"; }

# --- patch-check ------------------------------------------------------------
d=$(scratch)
expect_success "patch-check passes on the committed patches" "$d/tools/patch-check.sh"

d=$(scratch); rm -f "$d/build/src"
expect_success "patch-check passes without a working tree (from the tarball)" "$d/tools/patch-check.sh"

if [ -z "$(first_patch "$d")" ]; then
  echo "FAIL: patches/series is empty; the patch-check failure tests need a patch"; exit 1
fi

d=$(scratch); echo "missing.patch" >> "$d/patches/series"
expect_failure "series names a missing file" "missing.patch is listed in patches/series but does not exist" "$d/tools/patch-check.sh"

d=$(scratch); cp "$d/patches/$(first_patch "$d")" "$d/patches/unlisted.patch"
expect_failure "patch file not in series" "unlisted.patch is not listed in patches/series" "$d/tools/patch-check.sh"

d=$(scratch); first_patch "$d" >> "$d/patches/series"
expect_failure "patch listed twice" "is listed twice" "$d/tools/patch-check.sh"

d=$(scratch); p=$(first_patch "$d"); mv "$d/patches/$p" "$d/patches/0001-$p"; sed -i "s/^$p\$/0001-$p/" "$d/patches/series"
expect_failure "number prefix in a patch name" "no number prefixes" "$d/tools/patch-check.sh"

d=$(scratch); p=$(first_patch "$d"); sed -i '0,/^Subject: /s/^Subject: /X-Subject: /' "$d/patches/$p"
expect_failure "no Subject header" "$p: no 'Subject:' header" "$d/tools/patch-check.sh"

d=$(scratch); p=$(first_patch "$d"); sed -i '0,/^Why: /s/^Why: /Because: /' "$d/patches/$p"
expect_failure "no Why line" "$p: no 'Why:' line" "$d/tools/patch-check.sh"

d=$(scratch); p=$(first_patch "$d"); sed -i '0,/^Upstream-Status: /s/^Upstream-Status: .*/Upstream-Status: maybe later/' "$d/patches/$p"
expect_failure "invalid Upstream-Status" "$p: no valid 'Upstream-Status:'" "$d/tools/patch-check.sh"

# A context line that upstream does not have: the patch no longer applies.
d=$(scratch); p=$(first_patch "$d")
f=$(sed -n 's|^diff --git a/\([^ ]*\) .*|\1|p' "$d/patches/$p" | head -n 1)
awk -v f="$f" '
  /^diff --git / { infile = ($3 == "a/" f) }
  infile && !done && /^ / && length($0) > 3 { print " // not upstream" substr($0, 2); done = 1; next }
  { print }' "$d/patches/$p" > "$d/tmp" && mv "$d/tmp" "$d/patches/$p"
expect_failure "patch does not apply (names patch and file)" "$p does not apply.*" "$d/tools/patch-check.sh"
expect_failure "patch does not apply: file named" "$f" "$d/tools/patch-check.sh"

# Still applies, but is not what format-patch writes: the round trip catches it.
d=$(scratch); p=$(first_patch "$d"); printf -- '-- \n2.39.5\n\n' >> "$d/patches/$p"
expect_failure "re-export differs from the committed patch" "$p: a re-export differs" "$d/tools/patch-check.sh"

d=$(scratch); p=$(first_patch "$d")
printf 'diff --git a/NEWFILE b/NEWFILE\nnew file mode 100644\nindex 0000000000000000000000000000000000000000..e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\n' >> "$d/patches/$p"
expect_failure "patch adds a file" "$p: adds files \(NEWFILE" "$d/tools/patch-check.sh"

# --- configure ----------------------------------------------------------------
d=$(scratch)
expect_failure "configure: unknown option" "unknown option '--frobnicate'" bash "$d/configure" --frobnicate
expect_failure "configure: boot JDK of the wrong version" "needs a boot JDK 26 or 27" \
  bash "$d/configure" --with-boot-jdk=/usr/lib/jvm/temurin-25-jdk-amd64
expect_failure "configure: --with-upstream-src that does not exist" "neither a file nor a directory" \
  bash "$d/configure" --with-upstream-src=/nonexistent

# too little disk: the checks run before anything is written
huge=999999  # the largest figure ET_JDK_MIN_FREE_GIB takes
d2=$(scratch); rm -f "$d2/build/src"
expect_failure "configure: too little free space names what needs how much" \
  "configure \(and then the first 'make images'\) needs about $huge GiB free" \
  env ET_JDK_MIN_FREE_GIB=$huge bash "$d2/configure"
[ -z "$(ls -A "$d2/build" 2>/dev/null)" ] && { echo "PASS: configure refused for space and wrote nothing"; passed=$((passed + 1)); } ||
  { echo "FAIL: configure refused for space but left: $(ls -A "$d2/build")"; failed=$((failed + 1)); }
expect_failure "make images: too little free space for a first build" "make images \(a first build\) needs about $huge GiB free" \
  env ET_JDK_MIN_FREE_GIB=$huge "$d2/tools/check-disk.sh" "$d2/build/linux-x86_64-server-release"
expect_failure "make images: too little free space names the fix" "Free some space .* and run it again" \
  env ET_JDK_MIN_FREE_GIB=$huge "$d2/tools/check-disk.sh" "$d2/build/linux-x86_64-server-release"
expect_failure "make images: ET_JDK_MIN_FREE_GIB that is not a number" "ET_JDK_MIN_FREE_GIB=lots is not a whole number" \
  env ET_JDK_MIN_FREE_GIB=lots "$d2/tools/check-disk.sh" "$d2/build/linux-x86_64-server-release"
expect_success "make images: ET_JDK_MIN_FREE_GIB=0 skips the check" \
  env ET_JDK_MIN_FREE_GIB=0 "$d2/tools/check-disk.sh" "$d2/build/linux-x86_64-server-release"

expect_failure "upstream-image: before configure" "build/src/build/nope is not configured: run 'bash configure' first" \
  bash "$d/tools/upstream-image.sh" nope
[ ! -e "$d/build/upstream-src" ] && { echo "PASS: upstream-image refused before configure wrote nothing"; passed=$((passed + 1)); } ||
  { echo "FAIL: upstream-image refused but left $d/build/upstream-src"; failed=$((failed + 1)); }

# checksum mismatch: a corrupt upstream tarball passed as a local copy
bad=$scratch_root/openjdk-27_27~34ea.orig.tar.xz; echo corrupt > "$bad"
expect_failure "configure: checksum mismatch names file and both hashes" \
  "checksum mismatch for .*orig.tar.xz" bash "$d/configure" --with-upstream-src="$bad"
expect_failure "configure: checksum mismatch shows the actual hash" \
  "actual   sha256 $(sha256sum "$bad" | cut -d' ' -f1)" bash "$d/configure" --with-upstream-src="$bad"

# package source unreachable: apt-get fails (shimmed), nothing cached
shim=$scratch_root/shim; mkdir -p "$shim"
printf '#!/bin/sh\necho "E: Failed to fetch (test shim)" >&2\nexit 100\n' > "$shim/apt-get"; chmod +x "$shim/apt-get"
expect_failure "configure: package source unreachable" "package source unreachable" \
  env PATH="$shim:$PATH" ET_JDK_CACHE="$scratch_root/emptycache" bash "$d/configure"
[ ! -e "$scratch_root/emptycache/downloads/$(. "$d/upstream.conf"; echo "$UPSTREAM_TARBALL")" ] ||
  { echo "FAIL: a download was left behind"; failed=$((failed + 1)); }

# missing system packages when not root: shim id and dpkg-query
shim2=$scratch_root/shim2; mkdir -p "$shim2"
printf '#!/bin/sh\n[ "$1" = -u ] && { echo 1000; exit 0; }\nexec /usr/bin/id "$@"\n' > "$shim2/id"
printf '#!/bin/sh\nexit 1\n' > "$shim2/dpkg-query"; chmod +x "$shim2"/*
expect_failure "configure: missing packages when not root" "Install them with: sudo apt-get install .*libasound2-dev" \
  env PATH="$shim2:$PATH" bash "$d/configure"

# failed bootstrap: no JDK 25/26 to build the boot JDK with, no 26/27 found
d=$(scratch); sed -i 's|^BOOTSTRAP_JDK_CANDIDATES=.*|BOOTSTRAP_JDK_CANDIDATES=/nonexistent|' "$d/upstream.conf"
expect_failure "bootstrap: no JDK to build the boot JDK with" "cannot bootstrap the boot JDK" \
  env ET_JDK_CACHE="$scratch_root/emptycache2" "$d/tools/bootstrap-boot-jdk.sh"

# --- working tree (make-tree.sh, patch-export) on a tiny fake upstream -------
fake=$scratch_root/fake-upstream
mkdir -p "$fake/make/conf" "$fake/src/demo"
echo "DEFAULT_VERSION_FEATURE=27" > "$fake/make/conf/version-numbers.conf"
printf 'line 1\nline 2\nline 3\n' > "$fake/src/demo/Upstream.java"
gtest=$(. "$top/tools/lib.sh"; echo "$ET_JDK_DOWNLOADS/$GTEST_TARBALL")
d=$(scratch); rm -f "$d/build/src" "$d"/patches/*.patch; : > "$d/patches/series"
mt() { "$d/tools/make-tree.sh" "$fake" "$gtest" false; }
g() { git -C "$d/build/src" "$@"; }
expect_success "make-tree: create a tree from upstream + an empty series" mt
printf 'line 1\nline 2 (patched)\nline 3\n' > "$d/build/src/src/demo/Upstream.java"
g -c user.name=t -c user.email=t@t commit -qam "demo: patch line 2

Why: test
Upstream-Status: Inappropriate [test]"
expect_success "patch-export writes the patch" "$d/tools/patch-export.sh"
expect_success "patch-check accepts the exported patch" "$d/tools/patch-check.sh"
head_before=$(g rev-parse HEAD)
expect_success "make-tree: nothing changed" mt
[ "$(g rev-parse HEAD)" = "$head_before" ] || { echo "FAIL: make-tree moved HEAD with nothing changed"; failed=$((failed + 1)); }
mkdir -p "$d/src/demo"; echo "class New {}" > "$d/src/demo/New.java"
expect_success "make-tree: a new file in the repo updates the tree" mt
[ -f "$d/build/src/src/demo/New.java" ] || { echo "FAIL: new file not in the tree"; failed=$((failed + 1)); }
echo "local edit" >> "$d/build/src/src/demo/Upstream.java"
echo "class New2 {}" > "$d/src/demo/New2.java"
expect_failure "make-tree: refuses a tree with uncommitted changes" "uncommitted changes" mt
grep -q "local edit" "$d/build/src/src/demo/Upstream.java" || { echo "FAIL: uncommitted edit was wiped"; failed=$((failed + 1)); }
g -c user.name=t -c user.email=t@t commit -qam "demo: local work

Why: test
Upstream-Status: Pending"
expect_failure "make-tree: refuses a tree with commits not exported" "commits that are not exported" mt
expect_failure "patch-status reports the unexported commit" "not exported" "$d/tools/patch-status.sh"
g reset -q --hard HEAD~1
sed -i 's/^ line 1$/ line one/' "$d/patches/demo-patch-line-2.patch"
head_before=$(g rev-parse HEAD)
expect_failure "make-tree: a patch that does not apply is named, with its file" \
  "patch demo-patch-line-2.patch does not apply" mt
[ "$(g rev-parse HEAD)" = "$head_before" ] && [ -z "$(g status --porcelain)" ] ||
  { echo "FAIL: a failed update changed the tree"; failed=$((failed + 1)); }
git -C "$d" checkout -q -- . 2>/dev/null; cp "$top/tools/make-tree.sh" "$d/tools/"
sed -i 's/^ line one$/ line 1/' "$d/patches/demo-patch-line-2.patch"
mkdir -p "$d/make/conf"; echo "shadow" > "$d/make/conf/version-numbers.conf"
expect_failure "make-tree: a new file that shadows upstream" "shadows an upstream file" mt
rm -f "$d/make/conf/version-numbers.conf"

# --- test harnesses (harness/): option checks and --dry-run commands, on a fake
# JDK, jtreg and tree (nothing runs) --------------------------------------------
h=$scratch_root/harness; mkdir -p "$h/jdk/bin" "$h/jtreg/bin"
printf '#!/bin/sh\necho "openjdk version \\"27-ea\\" (fake)" >&2\n' > "$h/jdk/bin/java"
printf '#!/bin/sh\nexit 0\n' > "$h/jtreg/bin/jtreg"; chmod +x "$h/jdk/bin/java" "$h/jtreg/bin/jtreg"
t=$h/tree/test; mkdir -p "$t/jdk/java/net/httpclient/lib" "$t/jtreg_test_thread_factory/src/share/classes"
touch "$t/jdk/TEST.ROOT" "$t/jdk/ProblemList.txt" "$t/jdk/ProblemList-Virtual.txt" "$t/jtreg_test_thread_factory/src/share/classes/Virtual.java"
for f in net/Socket/Basic.java net/vthread/V.java net/httpclient/Plain.java net/httpclient/http2/H2.java \
         net/httpclient/http3/H3.java nio/channels/vthread/V.java nio/channels/SocketChannel/S.java \
         nio/channels/DatagramChannel/D.java lang/Thread/virtual/T.java; do
  mkdir -p "$(dirname "$t/jdk/java/$f")"
  printf '/*\n * @test\n * @run main X\n */\nclass X {}\n' > "$t/jdk/java/$f"
done
echo "class Lib {}" > "$t/jdk/java/net/httpclient/lib/Lib.java"
conf() { "$top/harness/conformance.sh" --jdk "$h/jdk" --jtreg "$h/jtreg" --src "$h/tree" --work "$h/work" \
           --problem-list "$h/pl.txt" --problem-list-virtual "$h/pl-virtual.txt" "$@"; }
# expect_output NAME PATTERN COMMAND...: COMMAND must succeed and print PATTERN.
expect_output() {
  local name=$1 pattern=$2; shift 2
  local out rc
  out=$("$@" 2>&1); rc=$?
  if [ $rc -eq 0 ] && grep -Eq -- "$pattern" <<< "$out"; then
    echo "PASS: $name"; passed=$((passed + 1))
  else
    echo "FAIL: $name (exit $rc, expected output matching /$pattern/), got:"
    sed 's/^/    /' <<< "$out"
    failed=$((failed + 1))
  fi
}
expect_failure "conformance: unknown option" "unknown option '--frobnicate'" conf --frobnicate
expect_failure "conformance: unknown config" "unknown config 'et-mode9'" conf --dry-run --configs "off et-mode9"
expect_failure "conformance: unknown factory" "unknown factory 'carrier'" conf --dry-run --factories carrier
expect_failure "conformance: missing group" "group 'test/jdk/java/net/Nope' not found" conf --dry-run --groups test/jdk/java/net/Nope
expect_failure "conformance: --configs selecting nothing of the plan" "select nothing of the plan" conf --dry-run --quick --configs et-mode3
expect_output "conformance: 'off' sets jdk.pollerEdgeTriggered=false explicitly" \
  "-vmoption:-Djdk.pollerEdgeTriggered=false .*java/net/Socket$" conf --dry-run --groups test/jdk/java/net/Socket --configs off
expect_output "conformance: et-mode1 sets the feature and the mode" \
  "-vmoption:-Djdk.pollerEdgeTriggered=true -vmoption:-Djdk.pollerMode=1 .*java/net/Socket$" \
  conf --dry-run --groups test/jdk/java/net/Socket --configs et-mode1
expect_output "conformance: the virtual factory and its problem lists" \
  "-testThreadFactory:Virtual -testThreadFactoryPath:[^ ]*jtregTestThreadFactory.jar -exclude:[^ ]*ProblemList-Virtual.txt -exclude:[^ ]*pl-virtual.txt .*java/net/Socket$" \
  conf --dry-run --groups test/jdk/java/net/Socket --configs off --factories virtual
out=$(conf --dry-run --groups 'test/jdk/java/net/httpclient!http2,http3' --configs off 2>&1)
if grep -q ' test/jdk/java/net/httpclient/Plain.java$' <<< "$out" && ! grep -q ' test/jdk/java/net/httpclient/http[23]' <<< "$out" &&
   ! grep -q ' test/jdk/java/net/httpclient/lib' <<< "$out"; then
  echo "PASS: conformance: a group without its subdirectories"; passed=$((passed + 1))
else
  echo "FAIL: conformance: a group without its subdirectories, got:"; sed 's/^/    /' <<< "$out"; failed=$((failed + 1))
fi
expect_output "conformance: the quick plan runs ET modes 2 and 1 and carrier polling" \
  "virtual +test/jdk/java/net/Socket .*et-mode2 et-mode1 mode4$" conf --dry-run --quick
expect_output "conformance: mode4 sets jdk.pollerMode=4 only" \
  "vmoption:-Djdk.pollerMode=4 test/jdk/java/lang/Thread/virtual" conf --dry-run --quick --configs mode4
printf '# why\ntest/jdk/java/net/Socket/Basic.java 0000000 generic-all\n' > "$h/pl.txt"
expect_failure "conformance: problem-list path not relative to test/jdk" "must be relative to test/jdk" conf --dry-run --groups test/jdk/java/net/Socket
printf 'java/net/Socket/Basic.java 8000001 generic-all\n' > "$h/pl.txt"
expect_failure "conformance: problem-list entry without a reason" "no comment above the entry" conf --dry-run --groups test/jdk/java/net/Socket
printf '# why\njava/net/Socket/Basic.java JDK-8000001 generic-all\n' > "$h/pl.txt"
expect_failure "conformance: problem-list bug id not numeric" "bug id 'JDK-8000001' is not numeric" conf --dry-run --groups test/jdk/java/net/Socket
printf '# why\njava/net/Socket/Gone.java 8000001 generic-all\n' > "$h/pl.txt"
expect_failure "conformance: problem-list entry for a missing test" "no test java/net/Socket/Gone.java" conf --dry-run --groups test/jdk/java/net/Socket
printf '# why\njava/net/Socket/Basic.java 8000001 generic-all\n' > "$h/pl.txt"
expect_success "conformance: a well-formed problem-list entry" conf --dry-run --groups test/jdk/java/net/Socket
expect_failure "torture: --jdk is required" "--jdk IMAGE is required" "$top/harness/torture.sh" --jtreg "$h/jtreg"
expect_failure "conformance: --jdk not an image" "is not a JDK image" conf --no-native --configs off --groups test/jdk/java/net/Socket --out "$h/resume.md"
# --resume keeps a completed run and runs again one that was killed (exit 137)
mkdir -p "$h/jdk/lib"; echo fake > "$h/jdk/lib/modules"
resume_run() { conf --resume --no-native --no-rerun --configs off --groups test/jdk/java/net/Socket --out "$h/resume.md"; }
resume_dir=$h/work/platform/off/java_net_Socket
if resume_run > /dev/null 2>&1 && [ -f "$resume_dir/rc" ]; then
  expect_output "conformance: --resume keeps a completed run" "kept the completed run" resume_run
  if grep -q "kept the completed run" <<< "$(echo 137 > "$resume_dir/rc"; resume_run 2>&1)"; then
    echo "FAIL: conformance: --resume kept a run killed by SIGKILL"; failed=$((failed + 1))
  else
    echo "PASS: conformance: --resume does not keep a killed run"; passed=$((passed + 1))
  fi
else
  echo "FAIL: conformance: a run with the fake jtreg did not complete (no $resume_dir/rc)"; failed=$((failed + 1))
fi

# --- benchmark load guard (bench/lib/guard.sh) --------------------------------
# Every entry point refuses a busy machine by default; --allow-busy goes on and
# stamps the page. The guard reads a fake load average and process sample here.
T25=/usr/lib/jvm/temurin-25-jdk-amd64
bench_scratch() { local d; d=$(mktemp -d "$scratch_root/bench.XXXX"); cp -a "$top/bench" "$d/"; echo "$d"; }
fake=$scratch_root/fake-load; mkdir -p "$fake"
echo "3.00 2.00 1.00 2/100 4242" > "$fake/loadavg-busy"
echo "85 4242 yes" > "$fake/procs-busy"
echo "0.00 0.01 0.05 1/100 4242" > "$fake/loadavg-quiet"
echo "0.30 0.01 0.05 1/100 4242" > "$fake/loadavg-low"
: > "$fake/procs-quiet"
busy_env=(env ET_BENCH_LOADAVG_FILE="$fake/loadavg-busy" ET_BENCH_PROC_SAMPLE_FILE="$fake/procs-busy" ET_BENCH_LOCK="$fake/lock")
quiet_env=(env ET_BENCH_LOADAVG_FILE="$fake/loadavg-quiet" ET_BENCH_PROC_SAMPLE_FILE="$fake/procs-quiet" ET_BENCH_LOCK="$fake/lock")
busy_msg="the machine is busy: 1-minute load average 3.00 > 0.5; other processes using > 10% of a core: yes \(pid 4242\) 85%"

# the live sampler sees a spinning process (started and stopped here, by pid)
yes > /dev/null & spin=$!
sampled=$(bash -c '. "$1/bench/lib/guard.sh"; guard_sample' _ "$top" 2>&1)
kill "$spin"; wait "$spin" 2>/dev/null
if grep -Eq "^[0-9]+ $spin yes$" <<< "$sampled"; then echo "PASS: guard: the CPU sample names a spinning process"; passed=$((passed + 1))
else echo "FAIL: guard: the CPU sample does not name 'yes' (pid $spin), got:"; sed 's/^/    /' <<< "$sampled"; failed=$((failed + 1)); fi

# between runs, the load a run left behind is its own (guard_run_ended); more is not
echo "9.50 4.00 2.00 1/100 4242" > "$fake/loadavg-after-db"
between_busy() {   # between_busy LOAD1_AT_RUN_END: 0 if the next between check finds the machine busy
  ET_BENCH_LOADAVG_FILE="$fake/loadavg-after-db" ET_BENCH_PROC_SAMPLE_FILE="$fake/procs-quiet" ET_BENCH_LOCK="$fake/lock" \
    bash -c '. "$1/bench/lib/guard.sh"; [[ -z $2 ]] || GUARD_LOAD1_RUN_END=$2; _guard_measure between; exit $(( GUARD_BUSY == 0 ))' _ "$top" "$1"
}
if ! between_busy 10.00 && between_busy 5.00 && between_busy ""; then
  echo "PASS: guard: between runs, load1 up to what the last run left (+0.5) is quiet, above it is busy"; passed=$((passed + 1))
else
  echo "FAIL: guard: load1 9.50 between runs: want quiet after a run that ended at 10.00, busy after 5.00 or with no run recorded"; failed=$((failed + 1))
fi

# The capacity search's check of one step, on two steps of a real run
# (2026-11-27): the overloaded one (p99 4 s, the backend answers in 30 ms)
# achieved its rate, and passed before the latency bound.
cap_fixture=$top/tools/test/fixtures/e2e-capacity
capcheck_says() { python3 "$top/bench/e2e/report.py" capcheck "$cap_fixture/$1" 2 100 | grep -Eq -- "$2"; }
expect_success "bench-e2e capacity step: an overloaded server (p99 4 s) fails" \
  capcheck_says overloaded-4000 "^fail latency p99 3,975 ms >= 100 ms \\(overloaded\\)$"
expect_success "bench-e2e capacity step: a server that kept up passes" \
  capcheck_says kept-up-2200 "^ok \\(achieved 2,200, .* p99 43.6 ms"

# The ping-pong runner's page, on the raw files of a real waiting-client run:
# each run's CPU speed (the guard's awk loop just before it) is a column of the
# page's list of runs and of the CSV; runs recorded before that column read n/a.
pp_fixture=$top/tools/test/fixtures/pingpong-waiting
pingpong_page_says() {  # RUNS_TSV PATTERN
  local t; t=$(mktemp -d) || return 1
  cp -r "$pp_fixture/." "$t/" && cp "$pp_fixture/$1" "$t/runs.tsv" &&
    python3 "$top/bench/pingpong/report.py" summary "$t" "$t/page.md" >/dev/null &&
    grep -Eq -- "$2" "$t/page.md" && grep -q 'cpu_speed_ms' "$t/page.csv"
  local rc=$?; rm -rf "$t"; return $rc
}
expect_success "pingpong page: each run's CPU speed (ms per CPU) is listed beside its load" \
  pingpong_page_says runs.tsv "^\\| 2 \\| MODE4 \\| 47,501 \\| .* \\| 1\\.71 \\| 9\\.90 \\| 45/61 \\|$"
expect_success "pingpong page: runs recorded before the CPU speed column read n/a" \
  pingpong_page_says runs-before-speed.tsv "^\\| 2 \\| MODE4 \\| 47,501 \\| .* \\| 9\\.90 \\| n/a \\|$"

if [ -x "$T25/bin/javac" ]; then
  d=$(bench_scratch); jar=$d/fake-benchmarks.jar; : > "$jar"
  expect_failure "bench-poller (bench/micro/run.sh) refuses a busy machine" "$busy_msg" \
    "${busy_env[@]}" "$d/bench/micro/run.sh" --jdk "$T25" --jar "$jar" --out "$d/page.md"
  expect_failure "bench-poller --allow-busy goes on past the guard" "going on because of --allow-busy" \
    "${busy_env[@]}" "$d/bench/micro/run.sh" --jdk "$T25" --jar "$jar" --out "$d/page.md" --allow-busy --no-profile
  expect_failure "pingpong refuses a busy machine" "$busy_msg" \
    "${busy_env[@]}" "$d/bench/pingpong/syscalls-per-round-trip.sh" "$T25" 1 2 10
  expect_failure "waiting client refuses a busy machine" "$busy_msg" \
    "${busy_env[@]}" "$d/bench/pingpong/waiting-client.sh" --jdk "$T25"
  expect_output "latency: --help prints the usage without the load guard" "Usage: bench/pingpong/latency.sh" \
    "${busy_env[@]}" "$d/bench/pingpong/latency.sh" --help
  expect_output "idle: --help prints the usage without the load guard" "Usage: bench/idle/idle-cpu.sh" \
    "${busy_env[@]}" "$d/bench/idle/idle-cpu.sh" --help
  expect_failure "idle refuses a busy machine" "$busy_msg" \
    "${busy_env[@]}" "$d/bench/idle/idle-cpu.sh" --jdk "$T25" --pairs 1 --connections 0 --seconds 1
  expect_failure "idle: --connections must be a number" "--connections must be a whole number, got 'many'" \
    "$d/bench/idle/idle-cpu.sh" --jdk "$T25" --connections many
  expect_failure "latency: --warmup must be a number" "--warmup must be a whole number of round trips, got 'long'" \
    "$d/bench/pingpong/latency.sh" --jdk "$T25" --warmup long
  expect_failure "latency: --warmup-s must be a number" "--warmup-s must be a number of seconds up to 300, got 'long'" \
    "$d/bench/pingpong/latency.sh" --jdk "$T25" --warmup-s long
  expect_failure "latency: --busy-task-us must be a number" "--busy-task-us must be a whole number" \
    "$d/bench/pingpong/latency.sh" --jdk "$T25" --busy-task-us fast
  expect_failure "latency refuses a busy machine" "$busy_msg" \
    "${busy_env[@]}" "$d/bench/pingpong/latency.sh" --jdk "$T25" --pairs 1
  expect_failure "latency: --variant-jdk without a JDK there" "no bin/java there" \
    "$d/bench/pingpong/latency.sh" --jdk "$T25" --variant A= --variant-jdk A="$d/nope"
  expect_failure "latency: --variant-c needs a known C mode" "--variant-c needs NAME=epoll.read.spin, got 'C=poll'" \
    "$d/bench/pingpong/latency.sh" --jdk "$T25" --variant-c C=poll
  expect_failure "latency: --variant-c with busy carriers" "--variant-c runs no carriers: drop --busy-task-us" \
    "$d/bench/pingpong/latency.sh" --jdk "$T25" --variant A= --variant-c C=epoll --busy-task-us 100
  expect_failure "latency: --long-task-us must be a number" "--long-task-us must be a whole number of microseconds, got 'long'" \
    "$d/bench/pingpong/latency.sh" --jdk "$T25" --long-task-us long
  expect_failure "latency: --long-task-every-ms must be at least 1" "--long-task-every-ms must be a whole number of milliseconds >= 1, got '0'" \
    "$d/bench/pingpong/latency.sh" --jdk "$T25" --long-task-every-ms 0
  expect_failure "latency: --idle-connections must be a number" "--idle-connections must be a whole number, got 'many'" \
    "$d/bench/pingpong/latency.sh" --jdk "$T25" --idle-connections many
  expect_output "latency: --idle-connections keeps that many readers blocked to the end" \
    "^# idle connections A run 1: 3 still in their reads at the end$" \
    "${busy_env[@]}" "$d/bench/pingpong/latency.sh" --jdk "$T25" --pairs 1 --round-trips 300 --warmup 100 --allow-busy --idle-connections 3 --variant A=
  expect_output "latency: --max-cause says whether each run's slowest round trip was in a VM pause" \
    "^# max A run 1: [0-9.]+ us: (no VM pause|in safepoint .* \\(pause [0-9.]+ ms, overlap [0-9.]+ ms\\))$" \
    "${busy_env[@]}" "$d/bench/pingpong/latency.sh" --jdk "$T25" --pairs 1 --round-trips 300 --warmup 100 --allow-busy --max-cause --variant A=
  expect_output "latency: --max-cause counts the runs whose max was in a VM pause" \
    "^# max in a VM pause: A [01] of 1 runs$" \
    "${busy_env[@]}" "$d/bench/pingpong/latency.sh" --jdk "$T25" --pairs 1 --round-trips 300 --warmup 100 --allow-busy --max-cause --variant A=
  # the JIT compiler threads and the GC threads must be found (n/a otherwise): on
  # Temurin 25 and, when it is built, on the image, whose JDK 27 shortens thread
  # names in the middle ("C2 Comp..hread0"); --warmup-s 1 with no warm-up round trips
  # still warms up for a second
  timed_re="^# timed A run 1: 300 round trips in [0-9.]+ ms, after [1-9][0-9]* warm-up round trips in (1[0-9]{3}|[2-9][0-9]{3})\\.[0-9] ms; JIT compiler threads [0-9.]+ ms on a CPU meanwhile, GC threads [0-9.]+ ms$"
  for tj in "$T25" "$top/build/linux-x86_64-server-release/images/jdk"; do
    [ -x "$tj/bin/javac" ] || continue
    expect_output "latency on ${tj##*/build/}: the timed line finds the JIT and GC threads, and --warmup-s 1 warms up for 1 s" \
      "$timed_re" \
      "${busy_env[@]}" "$d/bench/pingpong/latency.sh" --jdk "$tj" --pairs 1 --round-trips 300 --warmup 0 --warmup-s 1 --allow-busy --variant A=
  done
  expect_failure "latency: --timed-s must be a number" "--timed-s must be a number of seconds up to 300, got 'long'" \
    "$d/bench/pingpong/latency.sh" --jdk "$T25" --timed-s long
  expect_failure "latency: --timed-s and --round-trips together" "--timed-s and --round-trips both set the timed part" \
    "$d/bench/pingpong/latency.sh" --jdk "$T25" --timed-s 2 --round-trips 1000
  expect_failure "latency: --timed-s with a C variant" "--variant-c .floor.c. times a count of round trips: drop --timed-s" \
    "$d/bench/pingpong/latency.sh" --jdk "$T25" --variant A= --variant-c C=epoll --timed-s 2
  # a timed part of fixed duration: 0.3 s and under 1 s of whole batches of 1,000 round
  # trips (the default count, 200,000, takes longer); with --max-cause the start times
  # are kept as well
  expect_output "latency: --timed-s 0.3 times the round trips of 0.3 s" \
    "^# timed A run 1: [1-9][0-9]*000 round trips in [3-9][0-9]{2}\\.[0-9] ms, after [0-9]+ warm-up" \
    "${busy_env[@]}" "$d/bench/pingpong/latency.sh" --jdk "$T25" --pairs 1 --timed-s 0.3 --warmup 100 --allow-busy --variant A=
  expect_output "latency: --timed-s with --max-cause names the slowest timed round trip" \
    "^# max A run 1: [0-9.]+ us: " \
    "${busy_env[@]}" "$d/bench/pingpong/latency.sh" --jdk "$T25" --pairs 1 --timed-s 0.3 --warmup 100 --allow-busy --max-cause --variant A=
  fakeperf=$d/fake-perf; mkdir -p "$fakeperf"
  printf '#!/bin/sh\necho "event syntax error: syscalls:sys_enter_read" >&2; exit 1\n' > "$fakeperf/perf"; chmod +x "$fakeperf/perf"
  expect_failure "latency: --count-syscalls without tracepoints names the fix" "cannot open the syscall tracepoints.*mount -t tracefs" \
    env PATH="$fakeperf:$PATH" "$d/bench/pingpong/latency.sh" --jdk "$T25" --count-syscalls --allow-busy
  if perf stat -x, -e syscalls:sys_enter_read -- true >/dev/null 2>&1; then
    expect_output "latency: --count-syscalls adds calls per round trip to the table" \
      "^\\| A \\| .*\\| 2\\.0[0-9]{2} \\[2\\.0[0-9]{2}–2\\.0[0-9]{2}\\] \\| [0-9.]+ \\[.*\\] \\| [0-9.]+ \\[.*\\] \\| [0-9.]+ \\[.*\\] \\|$" \
      "$d/bench/pingpong/latency.sh" --jdk "$T25" --pairs 1 --round-trips 500 --warmup 200 --allow-busy --count-syscalls --variant A=
    # with --timed-s the counts are divided by the round trips the run made, not by --round-trips' default
    expect_output "latency: --timed-s counts calls per round trip made" \
      "^\\| A \\| .*\\| 2\\.0[0-9]{2} \\[2\\.0[0-9]{2}–2\\.0[0-9]{2}\\] \\| [0-9.]+ \\[.*\\] \\| [0-9.]+ \\[.*\\] \\| [0-9.]+ \\[.*\\] \\|$" \
      "$d/bench/pingpong/latency.sh" --jdk "$T25" --pairs 1 --timed-s 0.5 --warmup 200 --allow-busy --count-syscalls --variant A=
  fi
  # busy only between runs (load1 0.30: under the start limit 0.5, over a between limit of
  # 0.2): the check runs inside the loop over the pairs, whose verdict must reach the report
  echo "0.30 0.20 0.10 1/100 4242" > "$fake/loadavg-between"
  between_env=(env ET_BENCH_LOADAVG_FILE="$fake/loadavg-between" ET_BENCH_PROC_SAMPLE_FILE="$fake/procs-quiet"
               ET_BENCH_LOCK="$fake/lock" ET_BENCH_MAX_LOAD_BETWEEN=0.2 ET_BENCH_WAIT_S=0)
  expect_output "latency: busy between runs with --allow-busy, the report says so" \
    "^MEASURED ON A BUSY MACHINE \\(--allow-busy\\): A, pair 2: 1-minute load average 0.30 > 0.2" \
    "${between_env[@]}" "$d/bench/pingpong/latency.sh" --jdk "$T25" --pairs 2 --round-trips 300 --warmup 100 --allow-busy --variant A=
  expect_output "latency: the CPUs' speed before and after the runs" \
    "^# CPU speed after \\(a fixed awk loop pinned to each CPU, 3 times, ms per loop\\): [0-9]+-[0-9]+ ms$" \
    "${busy_env[@]}" "$d/bench/pingpong/latency.sh" --jdk "$T25" --pairs 1 --round-trips 300 --warmup 100 --allow-busy --variant A=
  out=$("${between_env[@]}" "$d/bench/pingpong/latency.sh" --jdk "$T25" --pairs 2 --round-trips 300 --warmup 100 --variant A= 2>&1); rc=$?
  if [ $rc -ne 0 ] && grep -q "stayed busy for 0s before A, pair 2" <<< "$out" && ! grep -q '^| A |' <<< "$out"; then
    echo "PASS: latency: busy between runs without --allow-busy, the run stops with no table"; passed=$((passed + 1))
  else
    echo "FAIL: latency: busy between runs without --allow-busy: want exit != 0, 'stayed busy for 0s before A, pair 2' and no '| A |' row (exit $rc), got:"
    sed 's/^/    /' <<< "$out"; failed=$((failed + 1))
  fi
  expect_failure "waiting client: --delay-dist must be fixed or exp" "--delay-dist must be fixed or exp, got 'uniform'" \
    "$d/bench/pingpong/waiting-client.sh" --jdk "$T25" --delay-dist uniform
  expect_failure "pingpong: --waiting-client with --compute" "three cells: choose one" \
    "$d/bench/pingpong/syscalls-per-round-trip.sh" --jdk "$T25" --waiting-client --compute
  expect_failure "pingpong: --echo-peer must be jvm, process or pinned" "--echo-peer must be jvm, process or pinned, got 'elsewhere'" \
    "$d/bench/pingpong/syscalls-per-round-trip.sh" --jdk "$T25" --echo-peer elsewhere
  expect_failure "pingpong: --echo-peer outside the ping-pong cell" "--echo-peer is an option of the ping-pong cell only" \
    "$d/bench/pingpong/waiting-client.sh" --jdk "$T25" --echo-peer process
  expect_failure "waiting client: --read-buffer must be a number" "read-buffer must be a whole number, got '8k'" \
    "$d/bench/pingpong/waiting-client.sh" --jdk "$T25" --read-buffer 8k
  expect_failure "pingpong: --read-buffer outside the waiting-client and bulk cells" "--read-buffer is an option of the waiting-client and bulk cells only" \
    "$d/bench/pingpong/syscalls-per-round-trip.sh" --jdk "$T25" --read-buffer 8192
  expect_failure "pingpong: --chunk outside the bulk cell" "--chunk is an option of the bulk cell only" \
    "$d/bench/pingpong/waiting-client.sh" --jdk "$T25" --chunk 1024
  expect_failure "bulk: --read-buffer 0" "--read-buffer and --chunk must be at least 1 in the bulk cell" \
    "$d/bench/pingpong/syscalls-per-round-trip.sh" --bulk --jdk "$T25" --read-buffer 0
  expect_failure "bulk: --chunk must be a number" "chunk must be a whole number, got '1k'" \
    "$d/bench/pingpong/syscalls-per-round-trip.sh" --bulk --jdk "$T25" --chunk 1k
  expect_failure "bulk: --rate must be a number" "--rate must be a number of MiB/s per connection \(0: unpaced\), got 'fast'" \
    "$d/bench/pingpong/syscalls-per-round-trip.sh" --bulk --jdk "$T25" --rate fast
  expect_failure "pingpong: --rate outside the bulk cell" "--rate is an option of the bulk cell only" \
    "$d/bench/pingpong/waiting-client.sh" --jdk "$T25" --rate 10
  expect_failure "pingpong: --bulk with --waiting-client" "three cells: choose one" \
    "$d/bench/pingpong/syscalls-per-round-trip.sh" --jdk "$T25" --bulk --waiting-client
  expect_failure "pingpong: --warmup-round-trips must be a number" "--warmup-round-trips must be a whole number of round trips per client, got 'some'" \
    "$d/bench/pingpong/syscalls-per-round-trip.sh" --jdk "$T25" --warmup-round-trips some
  expect_failure "pingpong: --warmup-round-trips outside the ping-pong cell" "--warmup-round-trips is an option of the ping-pong cell" \
    "$d/bench/pingpong/waiting-client.sh" --jdk "$T25" --warmup-round-trips 10
  # a warmed-up run counts the timed round trips only: the CPU it counts fits in their wall
  # time on the CPUs it can use, at most 3 (2 carriers and the echo server; counted from the JVM's start, the start-up alone is more
  # than that at this size), and the page says so; a scratch copy of its own, so that the
  # refused benchmarks below are seen to write nothing
  dw=$(bench_scratch); pp=$dw/pp-warm.md
  expect_output "pingpong: --warmup-round-trips runs and writes its page" "wrote $pp" \
    "$dw/bench/pingpong/syscalls-per-round-trip.sh" --jdk "$T25" --pairs 1 --clients 2 --round-trips 200 \
    --warmup-round-trips 100 --variant A= --out "$pp" --allow-busy
  if grep -q "first does 100 untimed round trips" "$pp" 2>/dev/null &&
     awk -F, -v cpus="$(( $(nproc) < 3 ? $(nproc) : 3 ))" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
       { ms = $col["task_ms"]; s = $col["seconds"] } END { exit !(ms > 0 && ms <= cpus * s * 1000 * 1.1) }' "${pp%.md}.csv"; then
    echo "PASS: pingpong: the warmed-up page names its warm-up, and its CPU fits in the timed round trips"; passed=$((passed + 1))
  else
    echo "FAIL: pingpong: the warmed-up page names its warm-up, and its CPU fits in the timed round trips"
    sed 's/^/    /' "${pp%.md}.csv" 2>/dev/null; failed=$((failed + 1))
  fi
  expect_failure "bench-bar: --echo-peer must be jvm or process" "--echo-peer must be jvm or process, got 'nearby'" \
    "$d/bench/bar/run.sh" --jdk "$T25" --upstream-jdk "$T25" --echo-peer nearby --out "$d/bar-bad"
  # a busy machine stops the cell at its guard, after the command is recorded
  "${busy_env[@]}" "$d/bench/bar/run.sh" --jdk "$T25" --upstream-jdk "$T25" --cells pingpong-p2 \
    --echo-peer process --out "$d/bar-echo" >/dev/null 2>&1
  grep -q -- "--echo-peer process --out $d/bar-echo/pingpong-p2.md" "$d/bar-echo/commands.txt" 2>/dev/null &&
    { echo "PASS: bench-bar --echo-peer process reaches the ping-pong cell's command"; passed=$((passed + 1)); } ||
    { echo "FAIL: bench-bar --echo-peer process: not in $d/bar-echo/commands.txt"; failed=$((failed + 1)); }
  expect_failure "switches-by-thread: --echo-peer must be jvm, process or pinned" "--echo-peer must be jvm, process or pinned, got 'far'" \
    "$d/bench/pingpong/switches-by-thread.sh" --jdk "$T25" --echo-peer far
  expect_failure "switches-by-thread: --warmup-round-trips must be a number" "--warmup-round-trips must be a whole number >= 0, got 'some'" \
    "$d/bench/pingpong/switches-by-thread.sh" --jdk "$T25" --warmup-round-trips some
  if perf list 'sched:sched_switch' 2>/dev/null | grep -q sched_switch; then
    # real runs: the round trips counted are the timed ones (4 clients x 300), the site
    # table names Java callers, and the uprobes and the JIT's perf map are gone after it
    expect_output "switches-by-thread: --warmup-round-trips divides by the timed round trips" \
      "^A 1 1200 " \
      "${busy_env[@]}" "$d/bench/pingpong/switches-by-thread.sh" --jdk "$T25" --pairs 1 --clients 4 --round-trips 300 \
      --warmup-round-trips 200 --allow-busy --variant A=
    maps_before=$(ls /tmp/perf-*.map 2>/dev/null | sort)
    if [ -w /sys/kernel/tracing/uprobe_events ] || [ -w /sys/kernel/debug/tracing/uprobe_events ]; then
      expect_output "switches-by-thread: --sites --warmup-round-trips counts the timed round trips by site" \
        "^\\| carrier sleep \\| (blocking poll|park): ForkJoinPool\\." \
        "${busy_env[@]}" "$d/bench/pingpong/switches-by-thread.sh" --jdk "$T25" --pairs 1 --clients 4 --round-trips 300 \
        --warmup-round-trips 200 --sites --allow-busy --variant A=
    else
      echo "SKIP: switches-by-thread --sites (no writable uprobe_events in tracefs)"
    fi
    expect_output "switches-by-thread: --placement says where the wakeups put the threads" \
      "^\\| wakeup placement \\| (carrier|echo server|poller thread) by .*: onto (the waker's|another) CPU, (another|no other) CPU idle \\| " \
      "${busy_env[@]}" "$d/bench/pingpong/switches-by-thread.sh" --jdk "$T25" --pairs 1 --clients 4 --round-trips 300 \
      --placement --allow-busy --variant A=
    if perf probe -l 2>/dev/null | grep -q etjdk_; then
      echo "FAIL: switches-by-thread --sites left its uprobes: $(perf probe -l 2>&1 | grep etjdk_)"; failed=$((failed + 1))
    elif [ "$(ls /tmp/perf-*.map 2>/dev/null | sort)" != "$maps_before" ]; then
      echo "FAIL: switches-by-thread --sites or --placement left a perf map in /tmp"; failed=$((failed + 1))
    else
      echo "PASS: switches-by-thread --sites and --placement leave no uprobe or perf map behind"; passed=$((passed + 1))
    fi
  fi
  expect_failure "pingpong: --depth too large" "at most 20" \
    "$d/bench/pingpong/syscalls-per-round-trip.sh" --jdk "$T25" --compute --depth 30
  expect_failure "pingpong: --variant-jdk for an unknown variant" "no --variant named B" \
    "$d/bench/pingpong/syscalls-per-round-trip.sh" --jdk "$T25" --variant A= --variant-jdk B="$T25"
  expect_failure "pingpong: --variant-jdk without a JDK there" "no bin/java there" \
    "$d/bench/pingpong/syscalls-per-round-trip.sh" --jdk "$T25" --variant A= --variant-jdk A="$d/nope"
  expect_failure "bench-e2e: an unknown variant is named with the known ones" \
    "unknown variant 'mode5' \\(upstream, oneshot, et, et2, mode4\\)" \
    "$d/bench/e2e/run.sh" --jdk "$T25" --out "$d/e2e.md" --variants "upstream mode5"
  expect_failure "bench-e2e: a CPU quota period out of range" \
    "--server-cpu-period must be a whole number of microseconds 1000-1000000, got '500'" \
    "$d/bench/e2e/run.sh" --jdk "$T25" --out "$d/e2e.md" --server-cpu-period 500
  expect_failure "bench-e2e: a bad number names its option" "--cap-start must be a number, got 'abc'" \
    "$d/bench/e2e/run.sh" --jdk "$T25" --out "$d/e2e.md" --cap-start abc
  expect_failure "bench-e2e: a bad whole number names its option" "--server-cpu must be a whole number, got '0.5'" \
    "$d/bench/e2e/run.sh" --jdk "$T25" --out "$d/e2e.md" --server-cpu 0.5
  expect_failure "bench-e2e: a capacity latency bound under the backend's think time" \
    "--cap-max-p99-ms \\(20\\) must be above the backend think time --think-ms \\(30\\)" \
    "$d/bench/e2e/run.sh" --jdk "$T25" --out "$d/e2e.md" --capacity --cap-max-p99-ms 20
  expect_failure "bench-e2e (bench/e2e/run.sh) refuses a busy machine" "$busy_msg" \
    "${busy_env[@]}" "$d/bench/e2e/run.sh" --jdk "$T25" --out "$d/e2e.md"
  # past the guard, a --connections no machine here allows stops it before any JVM
  expect_failure "bench-e2e --allow-busy goes on past the guard" "going on because of --allow-busy" \
    "${busy_env[@]}" "$d/bench/e2e/run.sh" --jdk "$T25" --out "$d/e2e.md" --allow-busy --connections 10000000
  # bench-apps: the rate part with a given peak and no CPU cap needs neither wrk nor mariadbd
  expect_failure "bench-apps (bench/apps/run.sh) refuses a busy machine" "$busy_msg" \
    "${busy_env[@]}" "$d/bench/apps/run.sh" --jdk "$T25" --out "$d/apps.md" --parts rate --peak plaintext=1000,json=1000 \
    --rate-cpu-quota 0
  expect_failure "bench-apps: a CPU quota over 100% of one CPU" "must be a whole percentage of one CPU, 0-100" \
    "$d/bench/apps/run.sh" --jdk "$T25" --out "$d/apps.md" --parts rate --rate-cpu-quota 150
  expect_failure "bench-apps: a CPU cap without a cgroup CPU controller names the way out" \
    "needs a cgroup CPU controller .* Pass --rate-cpu-quota 0" \
    env BENCH_APPS_CGROUP_ROOT="$d/no-cgroup" BENCH_APPS_WRK=true "$d/bench/apps/run.sh" --jdk "$T25" \
    --out "$d/apps.md" --parts rate
  expect_failure "bench-apps names the Debian package of a missing wrk" "in the package wrk: apt-get install wrk" \
    env BENCH_APPS_WRK=et-test-no-wrk "$d/bench/apps/run.sh" --jdk "$T25" --out "$d/apps.md" --parts peak
  expect_failure "bench-apps names the Debian package of a missing mariadbd" "in the package mariadb-server: apt-get install mariadb-server" \
    env BENCH_APPS_MARIADBD=et-test-no-mariadbd "$d/bench/apps/run.sh" --jdk "$T25" --out "$d/apps.md" --parts db
  sleep 60 & holder=$!; echo "$holder other-benchmark" > "$fake/lock"
  expect_failure "pingpong refuses while another benchmark holds the lock" "another benchmark \(pid $holder\) holds" \
    "${quiet_env[@]}" "$d/bench/pingpong/syscalls-per-round-trip.sh" "$T25" 1 2 10
  kill "$holder"; wait "$holder" 2>/dev/null; rm -f "$fake/lock"
  [ ! -e "$d/build/bench/pingpong" ] && [ ! -e "$d/page.md" ] && [ ! -e "$d/e2e.md" ] && [ ! -e "$d/apps.md" ] &&
    [ ! -e "$d/build/bench/apps" ] && [ ! -e "$fake/lock" ] &&
    { echo "PASS: a refused benchmark wrote nothing"; passed=$((passed + 1)); } ||
    { echo "FAIL: a refused benchmark left files behind"; failed=$((failed + 1)); }

  if perf stat -x, -e raw_syscalls:sys_enter -o /dev/null true 2>/dev/null; then
    d=$(bench_scratch)
    expect_success "pingpong --allow-busy runs on a busy machine" \
      "${busy_env[@]}" "$d/bench/pingpong/syscalls-per-round-trip.sh" --allow-busy --out "$d/pp.md" "$T25" 1 2 20
    grep -q "measured on a busy machine" "$d/pp.md" 2>/dev/null && grep -q "^1,ONESHOT,.*,1$" "$d/pp.csv" 2>/dev/null &&
      { echo "PASS: pingpong --allow-busy stamps the page and the CSV"; passed=$((passed + 1)); } ||
      { echo "FAIL: pingpong --allow-busy: no stamp in $d/pp.md or $d/pp.csv"; failed=$((failed + 1)); }
    expect_success "waiting client --allow-busy runs (2 variants, 1 pair, buffered reads)" \
      "${busy_env[@]}" "$d/bench/pingpong/waiting-client.sh" --allow-busy --jdk "$T25" --pairs 1 --clients 4 \
      --read-buffer 8192 --warmup 0.5 --duration 1 --out "$d/wc.md"
    grep -q "measured on a busy machine" "$d/wc.md" 2>/dev/null && grep -q "ET ÷ ONESHOT" "$d/wc.md" &&
      grep -q "through a \`BufferedInputStream\` of 8192 bytes" "$d/wc.md" &&
      { echo "PASS: waiting client page: stamp, ratio row and the read buffer"; passed=$((passed + 1)); } ||
      { echo "FAIL: waiting client page $d/wc.md lacks the stamp, the ratio row or the read buffer"; failed=$((failed + 1)); }
    expect_output "idle --allow-busy runs a JVM with nothing to do (1 pair, 1 s)" "B ÷ A" \
      "${busy_env[@]}" "$d/bench/idle/idle-cpu.sh" --allow-busy --jdk "$T25" --pairs 1 --connections 0 \
      --seconds 1 --variant A= --variant B=
    expect_success "compute cell --allow-busy runs (2 variants, 1 pair)" \
      "${busy_env[@]}" "$d/bench/pingpong/syscalls-per-round-trip.sh" --compute --allow-busy --jdk "$T25" \
      --pairs 1 --depth 4 --leaf-iters 100 --warmup 0.5 --duration 1 --out "$d/cpu.md"
    grep -q "No I/O: CPU-bound virtual threads" "$d/cpu.md" 2>/dev/null && grep -q "tasks/s" "$d/cpu.md" &&
      grep -q "ET ÷ ONESHOT" "$d/cpu.md" &&
      { echo "PASS: compute page: title, tasks/s and ratio row"; passed=$((passed + 1)); } ||
      { echo "FAIL: compute page $d/cpu.md lacks its title, tasks/s or the ratio row"; failed=$((failed + 1)); }
    expect_success "bulk cell --allow-busy runs (2 variants, 1 pair)" \
      "${busy_env[@]}" "$d/bench/pingpong/syscalls-per-round-trip.sh" --bulk --allow-busy --jdk "$T25" \
      --pairs 1 --read-buffer 4096 --chunk 512 --rate 5 --warmup 0.5 --duration 1 --out "$d/bulk.md"
    grep -q "Bulk reads: syscalls and CPU per MiB read" "$d/bulk.md" 2>/dev/null && grep -q "MiB/s" "$d/bulk.md" &&
      grep -q "read with 4096-byte reads" "$d/bulk.md" && grep -q "512-byte writes" "$d/bulk.md" &&
      grep -q "at 5 MiB/s per connection" "$d/bulk.md" &&
      grep -q "ET ÷ ONESHOT" "$d/bulk.md" && ! pgrep -f "$d/bench/pingpong/BulkPeer.java" >/dev/null &&
      { echo "PASS: bulk page: title, MiB/s, read and write sizes, pace, ratio row; the peer is gone"; passed=$((passed + 1)); } ||
      { echo "FAIL: bulk page $d/bulk.md lacks its title, MiB/s, the sizes, the pace or the ratio row, or BulkPeer.java still runs"; failed=$((failed + 1)); }
    expect_success "pingpong runs on a quiet machine, three variants" \
      "${quiet_env[@]}" "$d/bench/pingpong/syscalls-per-round-trip.sh" --jdk "$T25" --pairs 1 --clients 2 \
      --round-trips 20 --variant A=-Da=1 --variant B=-Db=1 --variant C=-Dc=1 --out "$d/quiet.md"
    ! grep -q "busy machine" "$d/quiet.md" && grep -q "C ÷ A" "$d/quiet.md" && [ ! -e "$fake/lock" ] &&
      grep -Eq "^- CPU speed \(a fixed awk loop .*\): before [0-9]+-[0-9]+ ms, after [0-9]+-[0-9]+ ms$" "$d/quiet.md" &&
      { echo "PASS: quiet page: no stamp, a ratio row per variant, the CPU speed, lock released"; passed=$((passed + 1)); } ||
      { echo "FAIL: quiet page $d/quiet.md (stamp, ratio rows, CPU speed line or lock $fake/lock)"; failed=$((failed + 1)); }
    rm -f "$d/quiet.md"
    expect_success "pingpong with the echo server in its own process" \
      "${busy_env[@]}" "$d/bench/pingpong/syscalls-per-round-trip.sh" --allow-busy --jdk "$T25" --pairs 1 \
      --clients 2 --round-trips 20 --echo-peer process --variant A= --out "$d/ext.md"
    grep -q "echo server in a process of its own" "$d/ext.md" 2>/dev/null && ! pgrep -f "$d/bench/pingpong/PingPong.java --serve" >/dev/null &&
      { echo "PASS: echo-peer process page says where the echo server ran, and the server is gone"; passed=$((passed + 1)); } ||
      { echo "FAIL: echo-peer process: $d/ext.md does not name the echo server's process, or its PingPong.java --serve still runs"; failed=$((failed + 1)); }
    expect_failure "pingpong aborts when the machine becomes busy between runs" "stayed busy for 0s before ET, pair 1" \
      env ET_BENCH_LOADAVG_FILE="$fake/loadavg-low" ET_BENCH_PROC_SAMPLE_FILE="$fake/procs-quiet" \
      ET_BENCH_LOCK="$fake/lock" ET_BENCH_MAX_LOAD_BETWEEN=0.2 ET_BENCH_WAIT_S=0 \
      "$d/bench/pingpong/syscalls-per-round-trip.sh" --out "$d/quiet.md" "$T25" 1 2 20
    [ ! -e "$d/quiet.md" ] && { echo "PASS: an aborted run wrote no page"; passed=$((passed + 1)); } ||
      { echo "FAIL: an aborted run wrote $d/quiet.md"; failed=$((failed + 1)); }
    # bench-poller end to end with a stand-in for the JMH jar: a fake java that
    # writes JMH-shaped JSON (and a collapsed profile), so no number is real
    fj=$scratch_root/fakejmh; mkdir -p "$fj/bin"; : > "$fj/benchmarks.jar"; : > "$fj/libasyncProfiler.so"
    cat > "$fj/bin/java" <<'FAKE'
#!/usr/bin/env bash
[ "$1" = -version ] && { echo 'openjdk version "fake"'; echo 'fake runtime'; exit 0; }
for a; do [ "$a" = -l ] && { echo org.openjdk.bench.java.net.SocketReadPollerBench.roundTrip; exit 0; }; done
while [ $# -gt 0 ]; do
  case $1 in -rff) rff=$2 ;; -prof) prof=$2 ;; -p) case $2 in readSize=*) sizes=${2#*=} ;; transport=*) tr=${2#*=} ;; esac ;; esac
  shift
done
sec='"gc.alloc.rate.norm":{"score":100}'
for e in task-clock context-switches syscalls:sys_enter_epoll_ctl syscalls:sys_enter_epoll_wait \
         syscalls:sys_enter_read syscalls:sys_enter_write raw_syscalls:sys_enter; do sec="$sec,\"$e\":{\"score\":1}"; done
mkdir -p "$(dirname "$rff")"; sep=""
{ echo "["; for s in ${sizes//,/ }; do
    echo "$sep{\"params\":{\"readSize\":\"$s\",\"transport\":\"$tr\"},\"primaryMetric\":{\"score\":1000,\"scoreError\":10},\"secondaryMetrics\":{$sec}}"; sep=","
  done; echo "]"; } > "$rff"
case $prof in async:*) d=${prof##*dir=}; mkdir -p "$d/x"; echo "a;sun/nio/ch/EPoll.ctl 3" > "$d/x/collapsed-cpu.csv" ;; esac
exit 0
FAKE
    chmod +x "$fj/bin/java"
    expect_success "bench-poller runs end to end (fake JMH, three variants)" \
      "${quiet_env[@]}" "$d/bench/micro/run.sh" --jdk "$fj" --jar "$fj/benchmarks.jar" --async-profiler "$fj/libasyncProfiler.so" \
      --pairs 1 --modes 2 --parallelism 1,2 --sizes 1,64 --variant A=-Da --variant B=-Db --variant C='-Dc -Djdk.pollerMode=4' --out "$d/micro.md"
    grep -q "| 64 | C ÷ A | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 |" "$d/micro.md" 2>/dev/null &&
      grep -q "^### transport=socket, pollerMode=2, parallelism=1 (C ran in mode 4: its own option)$" "$d/micro.md" &&
      [ -f "$d/micro.csv" ] && [ -f "$d/micro/ops-vs-parallelism-socket-mode2.svg" ] && [ -f "$d/micro/profiles/C-m2-p1.collapsed.gz" ] &&
      { echo "PASS: bench-poller page: ratio rows, a variant's own mode in its headings, CSV, plots, one profile per variant"; passed=$((passed + 1)); } ||
      { echo "FAIL: bench-poller page $d/micro.md or its CSV, plots and profiles"; failed=$((failed + 1)); }
    # bench-apps end to end: servers that do not start are reported and torn down,
    # and an interrupted run leaves no process, temporary directory or port
    if command -v wrk >/dev/null && PATH=$PATH:/usr/sbin command -v mariadbd >/dev/null; then
      d=$(bench_scratch); at=$scratch_root/apps-tmp; mkdir -p "$at"
      expect_failure "bench-apps: a Jetty server that does not start is reported with its log" \
        "Unrecognized VM option 'NoSuchOption'" \
        env TMPDIR="$at" "${quiet_env[@]}" "$d/bench/apps/run.sh" --jdk "$T25" --quick --parts peak \
        --jvm-opts -XX:+NoSuchOption --out "$d/apps.md"
      printf '#!/bin/sh\n[ "$1" = --version ] && { echo fake; exit 0; }\necho "fake mariadbd: cannot start" >&2\nexit 1\n' > "$fake/mariadbd"
      chmod +x "$fake/mariadbd"
      expect_failure "bench-apps: a MariaDB server that does not start is reported with its log" \
        "fake mariadbd: cannot start" \
        env TMPDIR="$at" BENCH_APPS_MARIADBD="$fake/mariadbd" "${quiet_env[@]}" "$d/bench/apps/run.sh" --jdk "$T25" \
        --quick --parts db --out "$d/apps.md"
      [ -z "$(ls -A "$at")" ] && [ ! -e "$d/apps.md" ] && [ ! -e "$fake/lock" ] &&
        { echo "PASS: bench-apps: the failed runs left no temporary directory, page or lock"; passed=$((passed + 1)); } ||
        { echo "FAIL: bench-apps: left behind: $(ls -A "$at") $(ls "$d/apps.md" "$fake/lock" 2>/dev/null)"; failed=$((failed + 1)); }
      expect_success "bench-apps: an interrupted run (SIGINT, SIGTERM) leaves no process, temp dir or port" \
        "$d/bench/apps/test/cleanup-test.sh" --jdk "$T25"
    else
      echo "SKIP: bench-apps runs (wrk or mariadbd not installed: apt-get install wrk mariadb-server)"
    fi
  else
    echo "SKIP: benchmark runs (perf cannot count raw_syscalls:sys_enter here)"
  fi
else
  echo "SKIP: benchmark guard tests ($T25 not installed)"
fi

# --- jtreg-failures: what check-jtreg prints when a test does not pass -------
jf=$(mktemp -d "$scratch_root/jf.XXXX")
mkdir -p "$jf/report/text" "$jf/work/java/x"
printf '%s\n' 'java/x/A.java#p1  Passed. Execution successful' \
  "java/x/B.java#m4  Failed. Execution failed: \`main' threw exception: java.lang.RuntimeException: waited 30 s for the reader" \
  'java/x/C.java  Passed. Execution successful' > "$jf/report/text/summary.txt"
printf '%s\n' '#section:main' '----------System.err:(2/60)----------' \
  'java.lang.RuntimeException: waited 30 s for the reader' '    at B.main(B.java:9)' 'STATUS:Failed.' \
  '----------rerun:(1/20)*----------' 'cd /tmp && java B' 'result: Failed. Execution failed' > "$jf/work/java/x/B_m4.jtr"
out=$("$top/tools/jtreg-failures.sh" "$jf/work" "$jf/report" 2>&1)
if grep -q '^======== java/x/B.java#m4 (B_m4.jtr)' <<< "$out" && grep -q 'at B.main' <<< "$out" &&
   ! grep -q 'cd /tmp && java B' <<< "$out" && ! grep -q 'A.java' <<< "$out" &&
   [ "$(tail -n 1 <<< "$out")" = "  java/x/B.java#m4: Failed. Execution failed: \`main' threw exception: java.lang.RuntimeException: waited 30 s for the reader" ] &&
   grep -q '^======== did not pass (1 of 3):' <<< "$out"; then
  echo "PASS: jtreg-failures: the failing test's output (without its rerun block), then the list last"; passed=$((passed + 1))
else
  echo "FAIL: jtreg-failures printed:"; sed 's/^/    /' <<< "$out"; failed=$((failed + 1))
fi
# a JUnit test: each failed method with its exception and the test's line, in the list
printf '%s\n' 'java/x/D.java#et  Failed. Execution failed: `main'"'"' threw exception: java.lang.Exception: JUnit test failure' \
  >> "$jf/report/text/summary.txt"
printf '%s\n' '#section:junit' '----------System.err:(12/400)----------' \
  "[16:03:43.927] STARTED    D::ok 'ok()'" "[16:03:44.028] SUCCESSFUL D::ok 'ok()' [101ms]" \
  "[16:03:44.029] STARTED    D::bad '[2] POLLED'" 'state of fd 7' \
  'org.opentest4j.AssertionFailedError: state after the read ==> expected: <POLLED> but was: <DRAINED>' \
  '	at org.junit.jupiter.api.Assertions.assertEquals(Assertions.java:563)' \
  '	at etjdk.poller.Support.check(Support.java:40)' '	at D.bad(D.java:9)' \
  "[16:03:44.064] FAILED     D::bad '[2] POLLED' [35ms]" 'STATUS:Failed.' > "$jf/work/java/x/D_et.jtr"
out=$("$top/tools/jtreg-failures.sh" "$jf/work" "$jf/report" 2>&1)
if [ "$(tail -n 2 <<< "$out")" = "  java/x/D.java#et: Failed. Execution failed: \`main' threw exception: java.lang.Exception: JUnit test failure
    FAILED D::bad '[2] POLLED': org.opentest4j.AssertionFailedError: state after the read ==> expected: <POLLED> but was: <DRAINED> (D.java:9)" ] &&
   grep -q '^======== did not pass (2 of 4):' <<< "$out"; then
  echo "PASS: jtreg-failures: a JUnit test's failed method, its exception and line, in the list"; passed=$((passed + 1))
else
  echo "FAIL: jtreg-failures printed:"; sed 's/^/    /' <<< "$out"; failed=$((failed + 1))
fi
sed -i '/^java\/x\/D.java/d' "$jf/report/text/summary.txt"
expect_success "jtreg-failures: nothing for a run that passed" \
  bash -c "sed -i '2d' '$jf/report/text/summary.txt' && [ -z \"\$('$top/tools/jtreg-failures.sh' '$jf/work' '$jf/report')\" ]"

echo "front-end tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
