#!/usr/bin/env bash
# Tests of the front end: each patch-check failure mode, and configure's
# errors, provoked on a scratch copy of the repo. Run by 'make check'.
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

echo "front-end tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
