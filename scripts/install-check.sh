#!/usr/bin/env bash
# Checks the README's install line as a newcomer would run it once a tag
# is published: `go install github.com/chainperf/chainperf/cmd/chainperf@VERSION`
# from an empty GOPATH and module cache. This tree is written as VERSION
# into a file-based module proxy (scripts/modproxy); the dependencies come
# from this machine's module cache used as a proxy, so nothing is fetched
# (and the checksum database, which this machine cannot reach, is not
# asked: GOSUMDB=off; the cache's files were checked when first fetched).
# Then the installed binary's `chainperf version` must name VERSION.
# Usage: bash scripts/install-check.sh [v0.0.0-check]
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:-v0.0.0-check}
cache=$(go env GOMODCACHE)/cache/download
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
go run ./scripts/modproxy "$tmp/proxy" "$version"
start=$(date +%s)
env -u GOFLAGS HOME="$tmp/home" GOPATH="$tmp/gopath" GOMODCACHE="$tmp/gopath/pkg/mod" GOCACHE="$tmp/gocache" \
  GOPROXY="file://$tmp/proxy,file://$cache" GOSUMDB=off \
  GOFLAGS=-mod=mod GOTOOLCHAIN=local \
  go install "github.com/chainperf/chainperf/cmd/chainperf@$version"
out=$("$tmp/gopath/bin/chainperf" version)
echo "$out"
echo "installed in $(( $(date +%s) - start )) s from an empty GOPATH"
grep -q "$version" <<<"$out" || { echo "install-check: chainperf version does not name $version" >&2; exit 1; }
