# ET-JDK front end. Run 'bash configure' first; it writes build/et-jdk.gmk.
# Upstream targets (images, jdk, test, clean, ...) are forwarded to the
# upstream build in build/src; the targets below are the fork's own.

TOP := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
-include $(TOP)/build/et-jdk.gmk

SRC := $(TOP)/build/src
CONF_DIR := $(TOP)/build/$(CONF_NAME)
JDK_IMAGE := $(CONF_DIR)/images/jdk
UPSTREAM_MAKE = $(MAKE) -C $(SRC) CONF_NAME=$(CONF_NAME)

# ccache hits across clones. Upstream puts the tree's absolute path into every
# compile line (-fdebug-prefix-map=<tree>/= and -fmacro-prefix-map=<tree>/=, both
# mapping it to the empty prefix, so the objects do not depend on it) and ccache
# hashes the working directory of a -g compile; leave both out of the hash.
export CCACHE_IGNOREOPTIONS := -fdebug-prefix-map=* -fmacro-prefix-map=*
export CCACHE_NOHASHDIR := 1

# Our own jtreg tests, run by 'make check' straight from the working tree
# against the image (the full upstream test image is not needed for them).
CHECK_TESTS ?= $(shell cat $(TOP)/test/check-tests.txt 2>/dev/null)
JTREG_CONCURRENCY ?= 2
JTREG_TIMEOUT_FACTOR ?= 4
# More jtreg options for check-jtreg, e.g. -vmoption:-XX:ActiveProcessorCount=1
CHECK_JTREG_OPTS ?=

.PHONY: default images test check check-frontend check-jtreg patch-export \
        patch-check patch-status dist bench-poller bench-e2e bench-pingpong bench-apps bench-bar conformance \
        conformance-quick torture-long upstream-image configured help

default: images

help:
	@echo "make images                      build the JDK image (build/$(CONF_NAME)/images/jdk)"
	@echo "make test TEST=<selector>        upstream test runner (jtreg paths, micro:<name>)"
	@echo "make check                       the fork's own tests (front end + jtreg)"
	@echo "make patch-export                working tree -> patches/ and new files"
	@echo "make patch-check                 validate patches/ (CI runs this)"
	@echo "make patch-status                what in build/src is not exported yet"
	@echo "make dist                        tar.gz of the image"
	@echo "make bench-poller                ONESHOT vs ET micro benchmark -> doc/results/poller-micro.md"
	@echo "make bench-e2e                   server benchmark, poller variants alternating -> doc/results/e2e.md"
	@echo "make bench-pingpong              syscalls per round trip, ping-pong and waiting client -> build/bench-pingpong/*.md"
	@echo "make bench-apps                  Jetty 12, MariaDB Connector/J, HikariCP on virtual threads -> doc/results/apps.md"
	@echo "make bench-bar                   every cell of the carrier-polling bar, UPSTREAM/ET2/MODE4 -> build/bench-bar/<time>/summary.md"
	@echo "make conformance                 upstream NIO/net/httpclient suites, feature off and on -> doc/results/conformance.md"
	@echo "make conformance-quick           the subset for every poller change -> build/conformance-quick.md"
	@echo "make torture-long                long torture runs"
	@echo "make upstream-image              pristine upstream build, the benchmarks' baseline -> build/upstream-src/build/upstream/images/jdk"

configured:
	@test -f $(TOP)/build/et-jdk.gmk -a -d $(SRC)/.git || \
	  { echo "make: the tree is not configured; run: bash configure" >&2; exit 1; }

images jdk: configured
	@$(TOP)/tools/check-disk.sh "$(CONF_DIR)" $@
	+$(UPSTREAM_MAKE) $@

test: configured
	+$(UPSTREAM_MAKE) test TEST="$(TEST)" $(if $(MICRO),MICRO="$(MICRO)") $(if $(JTREG),JTREG="$(JTREG)")

patch-export: configured
	@$(TOP)/tools/patch-export.sh

patch-check:
	@$(TOP)/tools/patch-check.sh

patch-status:
	@$(TOP)/tools/patch-status.sh

check: check-frontend check-jtreg

check-frontend:
	@$(TOP)/tools/test/run-frontend-tests.sh
	@python3 $(TOP)/harness/test_conformance.py
	@python3 $(TOP)/bench/bar/test_summary.py
	@python3 $(TOP)/bench/pingpong/test_cpu_by_part.py
	@python3 $(TOP)/bench/pingpong/test_wakeup_delay.py
	@python3 $(TOP)/bench/pingpong/test_max_in_pause.py
	@python3 $(TOP)/bench/pingpong/test_switches_by_thread.py
	@python3 $(TOP)/bench/lib/test_report.py

check-jtreg: configured
	@test -x $(JDK_IMAGE)/bin/java || { echo "make: no image; run: make images" >&2; exit 1; }
	@rm -rf $(TOP)/build/check && mkdir -p $(TOP)/build/check/native
	@# The one native test library these tests need (upstream builds it with the test image).
	gcc -shared -fPIC -o $(TOP)/build/check/native/libVThreadPinner.so \
	  -I$(JDK_IMAGE)/include -I$(JDK_IMAGE)/include/linux -I$(SRC)/test/lib/native \
	  $(SRC)/test/lib/jdk/test/lib/thread/libVThreadPinner.c
	$(JTREG_HOME)/bin/jtreg -jdk:$(JDK_IMAGE) -dir:$(SRC) -nativepath:$(TOP)/build/check/native \
	  -w:$(TOP)/build/check/JTwork -r:$(TOP)/build/check/JTreport \
	  -conc:$(JTREG_CONCURRENCY) -timeoutFactor:$(JTREG_TIMEOUT_FACTOR) \
	  -agentvm -verbose:summary,fail $(CHECK_JTREG_OPTS) $(CHECK_TESTS) || \
	  { $(TOP)/tools/jtreg-failures.sh $(TOP)/build/check/JTwork $(TOP)/build/check/JTreport; exit 2; }

dist: configured
	@test -x $(JDK_IMAGE)/bin/java || { echo "make: no image; run: make images" >&2; exit 1; }
	@v=$$($(JDK_IMAGE)/bin/java -XshowSettings:properties -version 2>&1 | awk -F' = ' '/java.runtime.version/ {print $$2}'); \
	  tar -C $(CONF_DIR)/images -czf $(TOP)/build/et-jdk-$$v-linux-$$(uname -m).tar.gz \
	    --transform "s|^jdk|et-jdk-$$v|" jdk && \
	  echo "build/et-jdk-$$v-linux-$$(uname -m).tar.gz"

# Benchmarks live in bench/ (bench/README.md: load guard, paired statistics).
# BENCH_POLLER_OPTS (e.g. --quick, --allow-busy) is passed through the environment.
bench-poller: configured
	+$(UPSTREAM_MAKE) build-microbenchmark
	$(TOP)/bench/micro/run.sh --jdk $(JDK_IMAGE) --out $(TOP)/doc/results/poller-micro.md

# BENCH_E2E_OPTS (e.g. --quick, --capacity, --allow-busy) is passed on the command line.
bench-e2e: configured
	$(TOP)/bench/e2e/run.sh --jdk $(JDK_IMAGE) --out $(TOP)/doc/results/e2e.md $(BENCH_E2E_OPTS)

# BENCH_PINGPONG_OPTS (e.g. --pairs 7, --variant NAME='OPTS', --allow-busy) goes to both cells.
# The generated pages go to build/bench-pingpong/: doc/results/pingpong-syscalls.md
# is a hand-written summary of such runs, which it names.
bench-pingpong: configured
	@test -x $(JDK_IMAGE)/bin/java || { echo "make: no image; run: make images" >&2; exit 1; }
	$(TOP)/bench/pingpong/syscalls-per-round-trip.sh --jdk $(JDK_IMAGE) --out $(TOP)/build/bench-pingpong/syscalls.md \
	  --jvm-args -Djdk.virtualThreadScheduler.parallelism=1 $(BENCH_PINGPONG_OPTS)
	$(TOP)/bench/pingpong/waiting-client.sh --jdk $(JDK_IMAGE) --out $(TOP)/build/bench-pingpong/waiting-client.md \
	  $(BENCH_PINGPONG_OPTS)

# BENCH_APPS_OPTS (e.g. --quick, --parts "peak db", --variant NAME='OPTS', --allow-busy) is passed on the command line.
bench-apps: configured
	@test -x $(JDK_IMAGE)/bin/java || { echo "make: no image; run: make images" >&2; exit 1; }
	$(TOP)/bench/apps/run.sh --jdk $(JDK_IMAGE) --out $(TOP)/doc/results/apps.md $(BENCH_APPS_OPTS)

# BENCH_BAR_OPTS (e.g. --cells "pingpong-p2 latency-p1", --pairs 7, --out DIR) is passed on the
# command line. Needs the pristine upstream image (make upstream-image); about 85 minutes.
bench-bar: configured
	@test -x $(JDK_IMAGE)/bin/java || { echo "make: no image; run: make images" >&2; exit 1; }
	$(TOP)/bench/bar/run.sh --jdk $(JDK_IMAGE) $(if $(SERIES_ID),--series $(SERIES_ID)) $(BENCH_BAR_OPTS)

# The test harnesses (conformance and torture drivers) live in harness/.
# CONFORMANCE_OPTS (e.g. --resume, --report-only, --configs "off et-mode2",
# --factories virtual, --dry-run, --stop-after MIN) is passed on the command
# line. Do not rebuild the image while it runs.
#
# The full run takes hours: each completed group/config run is recorded in
# doc/results/conformance/ under the committed series' id (an image rebuilt
# from the same patches/, src/ and upstream.conf counts as the same image), so
# that '--resume' in a fresh clone of a commit holding the record runs only the
# rest; '--stop-after MIN' starts no run after MIN minutes. patches/experiments/
# (mutants, experiments) does not go into the image, so not into the id either.
SERIES_ID = $(shell cd $(TOP) && \
	git diff --quiet HEAD -- patches src upstream.conf ':!patches/experiments' 2>/dev/null && \
	git ls-tree -r HEAD -- patches src upstream.conf | grep -v '	patches/experiments/' | \
	sha256sum | cut -c1-12)

conformance: configured
	@$(TOP)/tools/patch-status.sh >/dev/null || { echo "make conformance: build/src and the repo disagree (see make patch-status); the run would not be the committed series'" >&2; exit 1; }
	@[ -n "$(SERIES_ID)" ] || { echo "make conformance: patches/, src/ or upstream.conf have uncommitted changes; commit them first (the run is recorded under the committed series' id)" >&2; exit 1; }
	$(TOP)/harness/conformance.py --jdk $(JDK_IMAGE) --jtreg $(JTREG_HOME) --src $(SRC) --out $(TOP)/doc/results/conformance.md \
	    --record $(TOP)/doc/results/conformance --image-id series:$(SERIES_ID) $(CONFORMANCE_OPTS)

# The quick subset (httpclient/http3, the vthread groups, virtual-thread Socket,
# SocketChannel, DatagramChannel; ET modes 2 and 1), for every poller change.
conformance-quick: configured
	$(TOP)/harness/conformance.py --quick --jdk $(JDK_IMAGE) --jtreg $(JTREG_HOME) --src $(SRC) --out $(TOP)/build/conformance-quick.md $(CONFORMANCE_OPTS)

torture-long: configured
	$(TOP)/harness/torture.sh --jdk $(JDK_IMAGE) --jtreg $(JTREG_HOME) --src $(SRC) --long

# The benchmarks' baseline: the pinned upstream source with no patch of ours.
upstream-image: configured
	+$(TOP)/tools/upstream-image.sh $(CONF_NAME)

# Anything else goes to the upstream build.
.DEFAULT:
	@test -f $(TOP)/build/et-jdk.gmk -a -d $(SRC)/.git || \
	  { echo "make: the tree is not configured; run: bash configure" >&2; exit 1; }
	+$(UPSTREAM_MAKE) $@

Makefile $(TOP)/build/et-jdk.gmk: ;
