#!/usr/bin/env bash
# Builds the Linux packages from build/bin/carrel (built by `go tool task build`):
# build/dist/carrel_VERSION_amd64.deb and build/dist/carrel-VERSION-1.x86_64.rpm, with nfpm
# (a tool in go.mod). Prints the binary's and the packages' sizes.
# Usage: package-linux.sh VERSION
set -euo pipefail
version=${1:?usage: package-linux.sh VERSION}
cd "$(dirname "$0")/.."
bin=build/bin/carrel
stage=build/dist/linux
[ -x "$bin" ] || { echo "no $bin: run go tool task build first" >&2; exit 1; }
got=$("$bin" --version)
[ "$got" = "carrel $version" ] || { echo "$bin --version says '$got', not 'carrel $version': rebuild it" >&2; exit 1; }

rm -rf "$stage"
mkdir -p "$stage"
go run ./internal/packaging/icons -src build/appicon.png -out "$stage/icons"
gzip -9n < build/linux/carrel.1 > "$stage/carrel.1.gz"

export VERSION=$version
go tool nfpm package --config build/linux/nfpm.yaml --packager deb --target build/dist/
go tool nfpm package --config build/linux/nfpm.yaml --packager rpm --target build/dist/

deb=build/dist/carrel_${version}-1_amd64.deb
rpm=build/dist/carrel-${version}-1.x86_64.rpm
# Debian's own name for a first release is NAME_VERSION-1_ARCH.deb; the plain name is
# the one the release and its docs link to.
mv "$deb" "build/dist/carrel_${version}_amd64.deb"
deb=build/dist/carrel_${version}_amd64.deb
mb() { awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.1f MB (%d bytes)", b / 1e6, b }'; }
echo "binary  $bin: $(mb "$bin")"
echo "deb     $deb: $(mb "$deb")"
echo "rpm     $rpm: $(mb "$rpm")"
