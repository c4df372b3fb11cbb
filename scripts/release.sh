#!/usr/bin/env bash
# A release build: versioned chainperf binaries for linux/amd64 and
# linux/arm64 with their SHA-256 checksums, into dist/VERSION/. Nothing is
# published. Usage: bash scripts/release.sh v0.3.0
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:?usage: scripts/release.sh VERSION (e.g. v0.3.0)}
case "$version" in v[0-9]*.[0-9]*.[0-9]*) ;; *) echo "version $version: write vMAJOR.MINOR.PATCH" >&2; exit 2 ;; esac
commit=$(git rev-parse HEAD)
if [ -n "$(git status --porcelain)" ]; then echo "the work tree has changes: commit them first" >&2; exit 2; fi
out=dist/$version
rm -rf "$out"; mkdir -p "$out"
for arch in amd64 arm64; do
  name=chainperf-$version-linux-$arch
  CGO_ENABLED=0 GOOS=linux GOARCH=$arch go build -trimpath \
    -ldflags "-s -w -X main.version=$version -X main.commit=$commit" -o "$out/$name" ./cmd/chainperf
done
(cd "$out" && sha256sum chainperf-* > SHA256SUMS)
cat "$out/SHA256SUMS"
