#!/usr/bin/env bash
# Fetches the pinned uPlot release (the dashboard's charting library) from
# the npm registry into internal/dashboard/assets, where go:embed takes it.
# The files are checked in; run this only to move to another version
# (change VERSION and SHA512, run, commit the result).
set -euo pipefail
VERSION=1.6.32
cd "$(dirname "$0")/.."
dest=internal/dashboard/assets
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "uplot@$VERSION" >/dev/null)
tar -xzf "$tmp/uplot-$VERSION.tgz" -C "$tmp"
cp "$tmp/package/dist/uPlot.iife.min.js" "$dest/uPlot.iife.min.js"
cp "$tmp/package/dist/uPlot.min.css" "$dest/uPlot.min.css"
cp "$tmp/package/LICENSE" "$dest/uPlot.LICENSE"
echo "uPlot $VERSION from https://registry.npmjs.org/uplot/-/uplot-$VERSION.tgz (MIT, see uPlot.LICENSE)" > "$dest/uPlot.VERSION"
sha256sum "$dest"/uPlot.iife.min.js "$dest"/uPlot.min.css
