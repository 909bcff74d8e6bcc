#!/usr/bin/env bash
# upstream-image.sh: builds pristine upstream (the pinned source, no patch of
# ours) as the baseline of the benchmarks: a git worktree of build/src at
# et-jdk/upstream in build/upstream-src, configured with the options configure
# gave build/src (same boot JDK, ccache, system libraries; no gtest, no vendor
# strings), image in build/upstream-src/build/upstream/images/jdk.
# Run by 'make upstream-image' after 'bash configure'.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ME=upstream-image.sh
# shellcheck source=lib.sh
. "$TOP/tools/lib.sh"

conf=${1:?usage: $ME CONF_NAME (the configuration of build/src whose options to reuse)}
stamp=$TOP/build/src/build/$conf/et-jdk-configure-args
[[ -f $stamp ]] || die "build/src/build/$conf is not configured: run 'bash configure' first"
git -C "$TOP/build/src" rev-parse -q --verify et-jdk/upstream >/dev/null \
  || die "build/src has no tag et-jdk/upstream: run 'bash configure' again"
wt=$TOP/build/upstream-src
image=$wt/build/upstream/images/jdk

# The worktree takes 1.4 GiB, its first build 5.5 GiB (no gtest, 2026-11-25).
[[ -x $image/bin/java ]] || require_free_space "$TOP/build" 8 "the first 'make upstream-image'"

if [[ -d $wt ]]; then
  [[ $(git -C "$wt" rev-parse HEAD) == $(git -C "$TOP/build/src" rev-parse et-jdk/upstream^{commit}) ]] \
    || die "build/upstream-src is not at et-jdk/upstream: remove it (git -C build/src worktree remove --force build/upstream-src) and run again"
  [[ -z $(git -C "$wt" status --porcelain --untracked-files=no) ]] \
    || die "build/upstream-src has local changes: it must stay pristine; remove it (git -C build/src worktree remove --force build/upstream-src) and run again"
else
  say "creating the worktree build/upstream-src at et-jdk/upstream"
  git -C "$TOP/build/src" worktree add -q --detach "$wt" et-jdk/upstream
fi

args=()
while IFS= read -r a; do
  case $a in
    --with-conf-name=*|--with-gtest=*|--with-vendor-name=*|--with-vendor-version-string=*|--with-version-opt=*) ;;
    *) args+=("$a") ;;
  esac
done < "$stamp"
args+=(--with-conf-name=upstream --with-version-opt=upstream)
if [[ ! -f $wt/build/upstream/spec.gmk ]]; then
  say "running upstream configure in build/upstream-src (log: build/upstream-configure.log)"
  (cd "$wt" && bash configure "${args[@]}") > "$TOP/build/upstream-configure.log" 2>&1 || {
    tail -n 30 "$TOP/build/upstream-configure.log" >&2
    rm -rf "$wt/build/upstream"
    die "upstream configure failed; full log: build/upstream-configure.log"
  }
fi
say "building the pristine image (log: build/upstream-images.log)"
make -C "$wt" CONF_NAME=upstream images > "$TOP/build/upstream-images.log" 2>&1 || {
  tail -n 30 "$TOP/build/upstream-images.log" >&2
  die "the upstream build failed; full log: build/upstream-images.log"
}
"$image/bin/java" -version 2>&1 | grep -q -- '-upstream' \
  || die "$image/bin/java -version does not name the upstream build"
say "pristine upstream image: build/upstream-src/build/upstream/images/jdk"
