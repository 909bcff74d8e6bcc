#!/usr/bin/env bash
# jtreg-failures.sh WORK REPORT: after a jtreg run that did not pass, print
# each test that did not pass with the end of its failing section, then a
# short list (test, jtreg's result with the exception; for a JUnit test each
# failed method with its exception and the test's line) as the last lines,
# where a log that keeps only its tail still shows them.
set -euo pipefail
work=$1 report=$2
summary=$report/text/summary.txt
[ -f "$summary" ] || { echo "jtreg-failures.sh: no $summary (jtreg did not get as far as its report)" >&2; exit 0; }

not_passed=$(awk '$2 != "Passed."' "$summary")
[ -n "$not_passed" ] || exit 0
failed=$(awk '{ print $1 }' <<< "$not_passed")

# jtr_of TEST: java/x/Foo.java#id -> WORK/java/x/Foo_id.jtr
jtr_of() {
  local t=$1 base id
  base=${t%%#*}; base=${base%.java}
  case $t in *'#'*) id=_${t#*#} ;; *) id= ;; esac
  echo "$work/$base$id.jtr"
}

# failing_section JTR: the last #section of the file, without its rerun block.
failing_section() {
  awk '/^#section:/ { n = 0 } { buf[n++] = $0 }
       END { skip = 0
             for (i = 0; i < n; i++) {
               if (buf[i] ~ /^----------rerun:/) { skip = 1; continue }
               if (skip && buf[i] ~ /^----------/) skip = 0
               if (!skip) print buf[i] } }' "$1"
}

# junit_failures JTR: one line per JUnit method that failed or aborted: the
# method, the first line of its exception and the test class's deepest frame.
junit_failures() {
  awk '/^\[[0-9:.]+\] STARTED / { exc = ""; frame = ""; pending = 0; next }
       /^\[[0-9:.]+\] (FAILED|ABORTED) / {
         name = $0; sub(/^\[[0-9:.]+\] (FAILED|ABORTED) +/, "", name); sub(/ \[[0-9]+ms\]$/, "", name)
         print "    " $2 " " name ": " (exc == "" ? "(no exception printed)" : exc) frame
         exc = ""; frame = ""; pending = 0; next }
       exc == "" && /^([A-Za-z_$][A-Za-z0-9_$]*\.)+[A-Za-z_$][A-Za-z0-9_$]*(Error|Exception|Throwable)(: |$)/ { exc = $0; pending = 1; next }
       pending && /^\tat / { f = $0; sub(/^\tat /, "", f)
         if (f ~ /^[A-Za-z0-9_$]+\.[A-Za-z0-9_$<>]+\(/) { sub(/^[^(]*\(/, "", f); sub(/\)$/, "", f); frame = " (" f ")"; pending = 0 } }' "$1"
}

for t in $failed; do
  jtr=$(jtr_of "$t")
  echo "======== $t ($(basename "$jtr"))"
  if [ -f "$jtr" ]; then failing_section "$jtr" | tail -n 60; else echo "(no $jtr)"; fi
done
echo "======== did not pass ($(echo "$failed" | wc -l) of $(wc -l < "$summary")):"
while read -r t rest; do
  echo "  $t: $rest"
  jtr=$(jtr_of "$t")
  [ -f "$jtr" ] && junit_failures "$jtr"
done <<< "$not_passed"
