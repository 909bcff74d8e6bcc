# Shared helpers for the ET-JDK front end. Sourced, not executed.
# shellcheck shell=bash

ET_JDK_TOP=${ET_JDK_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
ET_JDK_CACHE=${ET_JDK_CACHE:-$HOME/.cache/et-jdk}
ET_JDK_DOWNLOADS=$ET_JDK_CACHE/downloads

# shellcheck source=../upstream.conf
. "$ET_JDK_TOP/upstream.conf"

say()  { printf '%s\n' "${0##*/}: $*" >&2; }
die()  { printf '%s\n' "${0##*/}: error: $*" >&2; exit 1; }

# require_free_space DIR GIB WHAT: stop before WHAT when DIR's file system has
# less than GIB GiB free, rather than let a long build fail at its link step.
# ET_JDK_MIN_FREE_GIB=N replaces GIB (0 skips the check).
require_free_space() {
  local dir=$1 need=${ET_JDK_MIN_FREE_GIB:-$2} what=$3 free_kib
  case $need in
    ''|*[!0-9]*|???????*) die "ET_JDK_MIN_FREE_GIB=$need is not a whole number of GiB up to 999999 (0 skips the check)" ;;
  esac
  need=$((10#$need))
  [ "$need" -gt 0 ] || return 0
  while [ ! -d "$dir" ]; do dir=$(dirname "$dir"); done
  free_kib=$(df -Pk "$dir" 2>/dev/null | awk 'NR == 2 { print $4 }') || true
  [ -n "$free_kib" ] || die "cannot read the free space of $dir (df -Pk $dir)"
  [ "$free_kib" -ge $((need * 1024 * 1024)) ] || die "$what needs about $need GiB free on the file system of $dir; $((free_kib / 1024)) MiB are free.
  Free some space (old clones' build/ directories take about 9 GiB each) and run it again,
  or set ET_JDK_MIN_FREE_GIB=0 to skip this check."
}

# verify_sha256 FILE EXPECTED: hard error naming the file and both hashes.
verify_sha256() {
  local file=$1 want=$2 got
  got=$(sha256sum "$file" | cut -d' ' -f1)
  [ "$got" = "$want" ] || die "checksum mismatch for $file
  expected sha256 $want
  actual   sha256 $got
  Delete the file to download it again, or pass a good copy (see 'bash configure --help')."
}

# debian_mirror: the Debian archive URI of this machine's own apt sources.
debian_mirror() {
  local uri
  uri=$( { cat /etc/apt/sources.list 2>/dev/null
           cat /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null; } |
    awk '
      /^[[:space:]]*deb(-src)?[[:space:]]/ { for (i = 2; i <= NF; i++) if ($i !~ /^\[/ && $i !~ /\]$/) { print $i; break } }
      /^URIs:/ { print $2 }' |
    grep -v -- '-security' | grep '/debian/\?$' | head -n 1)
  [ -n "$uri" ] || die "no Debian archive found in /etc/apt/sources.list*; pass local copies instead (see 'bash configure --help')"
  printf '%s\n' "${uri%/}"
}

# With a private apt configuration (never touching the system's), fetch into
# $ET_JDK_DOWNLOADS: "source PKG VERSION" or "binary PKG VERSION".
# The pinned SHA-256 values are the trust anchor, so the suites are marked
# trusted: an older system keyring may not know the testing archive key; for
# the same reason an expired Release file (a stale mirror, a wrong clock) is accepted.
apt_fetch() {
  local kind=$1 pkg=$2 version=$3 mirror tmp suite rc=1
  mirror=$(debian_mirror)
  tmp=$(mktemp -d) || die "mktemp failed"
  mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$ET_JDK_DOWNLOADS"
  for suite in $DEBIAN_SUITES; do
    if [ "$kind" = source ]; then
      echo "deb-src [trusted=yes] $mirror $suite main"
    else
      echo "deb [trusted=yes] $mirror $suite main"
    fi
  done > "$tmp/sources.list"
  local opts=(-q -o "Dir::Etc::SourceList=$tmp/sources.list" -o Dir::Etc::SourceParts=/nonexistent
              -o "Dir::State::Lists=$tmp/lists" -o "Dir::Cache=$tmp/cache"
              -o Dir::Etc::Preferences=/nonexistent -o Dir::Etc::PreferencesParts=/nonexistent
              -o APT::Sandbox::User=root -o Acquire::Check-Valid-Until=false)
  say "fetching $kind package $pkg $version via $mirror ($DEBIAN_SUITES)"
  if ! apt-get "${opts[@]}" update > "$tmp/update.log" 2>&1; then
    cat "$tmp/update.log" >&2; rm -rf "$tmp"
    die "package source unreachable: apt-get update against $mirror failed (log above).
  Check the network or the apt sources, or pass local copies (see 'bash configure --help')."
  fi
  if [ "$kind" = source ]; then
    (cd "$ET_JDK_DOWNLOADS" && apt-get "${opts[@]}" source --download-only "$pkg=$version") > "$tmp/get.log" 2>&1 && rc=0
  else
    (cd "$ET_JDK_DOWNLOADS" && apt-get "${opts[@]}" download "$pkg=$version") > "$tmp/get.log" 2>&1 && rc=0
  fi
  if [ $rc -ne 0 ]; then
    cat "$tmp/get.log" >&2; rm -rf "$tmp"
    die "$pkg $version is not in Debian $DEBIAN_SUITES at $mirror any more (log above).
  The pins in upstream.conf name that exact version; pass a local copy of the file instead
  (see 'bash configure --help' for --with-upstream-src, --with-boot-jdk and --with-jtreg)."
  fi
  rm -rf "$tmp"
}

# fetch_pinned FILE SHA256 KIND PKG VERSION: make sure a verified FILE is in
# the download cache; prints its path.
fetch_pinned() {
  local file=$1 sha=$2 kind=$3 pkg=$4 version=$5
  local path=$ET_JDK_DOWNLOADS/$file
  if [ ! -f "$path" ]; then
    apt_fetch "$kind" "$pkg" "$version"
    [ -f "$path" ] || die "apt fetched $pkg $version but $file is not among its files"
  fi
  verify_sha256 "$path" "$sha"
  printf '%s\n' "$path"
}

# java_feature_version JAVA_HOME: prints the feature version (e.g. 26), or nothing.
java_feature_version() {
  local v
  v=$("$1/bin/java" -XshowSettings:properties -version 2>&1 | awk -F' = ' '/java.specification.version/ {print $2; exit}')
  printf '%s\n' "$v"
}
