#!/usr/bin/env bash
# Build the boot JDK (OpenJDK 26, from its pinned Debian source) once per
# machine, with a JDK 25 from the machine. Prints the JDK's path.
#
# The boot JDK only runs the build's tools (java, javac, jar), so it is built
# lean: the C1-only "client" VM without the collectors and features the build
# never uses, no debug symbols, no docs. The result lands atomically in
# $ET_JDK_CACHE/bootjdk/jdk-<version>; a failed build leaves only its log.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# --check: only say whether a boot JDK can be had (configure calls this first).
check=false; [ "${1:-}" = --check ] && check=true
dest=$ET_JDK_CACHE/bootjdk/jdk-$BOOTJDK_VERSION
if [ -x "$dest/bin/javac" ]; then
  $check || printf '%s\n' "$dest"; exit 0
fi
for c in ${JAVA_HOME:-} /usr/lib/jvm/*; do   # a JDK 26/27 makes the bootstrap unnecessary
  if $check && [ -x "$c/bin/javac" ]; then case $(java_feature_version "$c") in 26|27) exit 0 ;; esac; fi
done

bootstrap_jdk=
for c in ${ET_JDK_BOOTSTRAP_JDK:-} $BOOTSTRAP_JDK_CANDIDATES; do
  if [ -x "$c/bin/javac" ]; then
    case $(java_feature_version "$c") in 25|26) bootstrap_jdk=$c; break ;; esac
  fi
done
[ -n "$bootstrap_jdk" ] || die "cannot bootstrap the boot JDK: building OpenJDK $BOOTJDK_VERSION needs a JDK 25 or 26
  (looked in: ${ET_JDK_BOOTSTRAP_JDK:-} $BOOTSTRAP_JDK_CANDIDATES). Debian 12 packages none; on Debian 12
  install Temurin 25 from Adoptium's apt repository (README.md, 'Prerequisites'):
    $ADOPTIUM_INSTALL
  or set ET_JDK_BOOTSTRAP_JDK=/path/to/a/jdk-25, or pass a JDK 26/27 with --with-boot-jdk."
$check && exit 0

# source, build and image; a margin, the lean build's size was not measured
require_free_space "$ET_JDK_CACHE" 4 "bootstrapping the boot JDK"
tarball=$(fetch_pinned "$BOOTJDK_TARBALL" "$BOOTJDK_TARBALL_SHA256" source "$BOOTJDK_PKG" "$BOOTJDK_PKG_VERSION")

work=$ET_JDK_CACHE/bootjdk/build.tmp
log=$ET_JDK_CACHE/bootjdk/build.log
rm -rf "$work" "$dest.tmp"
mkdir -p "$work"
say "bootstrapping boot JDK $BOOTJDK_VERSION with $bootstrap_jdk (once per machine; about 10 minutes on 2 cores); log: $log"
start=$(date +%s)
fail() {
  tail -n 40 "$log" >&2 || true
  rm -rf "$work" "$dest.tmp"
  die "failed to bootstrap the boot JDK ($1); full log: $log
  Fix the cause and run configure again, or pass a JDK 26/27 with --with-boot-jdk=DIR."
}
tar -C "$work" --strip-components=1 -xf "$tarball" > "$log" 2>&1 || fail "unpacking $tarball"
(
  cd "$work"
  bash configure \
    --with-boot-jdk="$bootstrap_jdk" \
    --with-jvm-variants=client \
    --with-jvm-features=-cds,-dtrace,-epsilongc,-g1gc,-jfr,-parallelgc,-shenandoahgc,-zgc \
    --with-debug-level=release --with-native-debug-symbols=none \
    --disable-warnings-as-errors --disable-full-docs \
    --with-jtreg=no --with-gtest=no \
    --with-zlib=system --with-giflib=system --with-libpng=system \
    --with-libjpeg=system --with-lcms=system --with-harfbuzz=system \
    --with-extra-cflags=-I/usr/include/PCSC \
    --enable-ccache \
    --with-version-opt=et-jdk-bootstrap
) >> "$log" 2>&1 || fail "upstream configure"
CCACHE_DIR=${CCACHE_DIR:-$ET_JDK_CACHE/ccache} make -C "$work" images >> "$log" 2>&1 || fail "make images"
cp -a "$work"/build/*/images/jdk "$dest.tmp" || fail "copying the image"
[ "$(java_feature_version "$dest.tmp")" = "${BOOTJDK_VERSION%%.*}" ] || fail "the built JDK does not run"
mv "$dest.tmp" "$dest"
rm -rf "$work"
say "boot JDK ready in $dest ($(( ($(date +%s) - start) / 60 )) minutes)"
printf '%s\n' "$dest"
