#!/usr/bin/env bash
# A CPython other than the system's, built from source into PREFIX (kept: a second run does
# nothing), for the cp312-abi3 wheel (ci/wheel.sh) and its tests. Debian 12 has only 3.11;
# the source is CPython's release tarball as Debian's newer suite ships it (checked against
# the suite's signed index), built with the system compiler against Debian 12's glibc.
#   ci/cpython.sh VERSION PREFIX       e.g. ci/cpython.sh 3.13 build/cpython-3.13
set -euo pipefail
version="$1"
prefix="$(realpath -m "$2")"
[ -f "$prefix/.cutwin-complete" ] && exit 0
rm -rf "$prefix"
mirror="${CUTWIN_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
suite="${CUTWIN_CPYTHON_SUITE:-trixie}"
package="python$version"

# What to build for: the headers and modules pip, venv and the tests need.
need_pkgs=()
for p in libssl-dev libffi-dev zlib1g-dev libbz2-dev liblzma-dev libsqlite3-dev; do
  dpkg -s "$p" >/dev/null 2>&1 || need_pkgs+=("$p")
done
if [ ${#need_pkgs[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_pkgs[@]}" >/dev/null
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The suite's source index names the upstream tarball and its SHA-256 (apt verifies the
# index's signature chain; here the index comes over the same mirror apt uses).
curl -sfL "$mirror/dists/$suite/main/source/Sources.xz" | xz -d >"$work/Sources"
read -r sha256 _ tarball < <(awk -v p="$package" '
  $0 == "Package: " p { found = 1; next }
  found && /^Package: / { exit }
  found && /^Checksums-Sha256:/ { sums = 1; next }
  found && sums && /^ / && $3 ~ /\.orig\.tar\.xz$/ { print $1, $2, $3; exit }
  found && sums && !/^ / { sums = 0 }' "$work/Sources")
directory="$(awk -v p="$package" '$0 == "Package: " p { found = 1 } found && /^Directory: / { print $2; exit }' "$work/Sources")"
if [ -z "${tarball:-}" ] || [ -z "$directory" ]; then
  echo "ci/cpython.sh: $suite has no $package source" >&2
  exit 1
fi
curl -sfL -o "$work/$tarball" "$mirror/$directory/$tarball"
echo "$sha256  $work/$tarball" | sha256sum -c --quiet -
tar -xf "$work/$tarball" -C "$work"
cd "$work"/Python-*/
./configure -q --prefix="$prefix" --with-ensurepip=install >"$work/configure.log" 2>&1 ||
  { tail -20 "$work/configure.log"; exit 1; }
make -j"$(nproc)" -s >"$work/make.log" 2>&1 || { tail -30 "$work/make.log"; exit 1; }
make -s install >"$work/install.log" 2>&1 || { tail -30 "$work/install.log"; exit 1; }
"$prefix/bin/python$version" -c "import ssl, ctypes, sqlite3, lzma, bz2, zlib"
touch "$prefix/.cutwin-complete"
echo "ci/cpython.sh: Python $("$prefix/bin/python$version" -c 'import platform; print(platform.python_version())') in $prefix"
