#!/usr/bin/env bash
# A known answer for the gate, the seeds' story: one SDK application, wasmd
# v0.61.14 (Cosmos SDK v0.53.6, cosmossdk.io/store v1.1.2), built twice from
# its Go module version: as released, and with a per-transaction cache pool
# written here
# (cmd/chainperf/testdata/cachekv-pool: cachekv stores come from a
# sync.Pool and baseapp returns a tx's store branches to it when the tx
# ends), applied to local copies of the two modules through
# [testnet.cosmos.replace]. Then `chainperf ab` runs them interleaved and
# decides on the validators' allocation per committed tx; its why lists the
# allocators whose share moved most.
# Usage: bench/cachekv-pool.sh [ROUNDS] [RATE]   (default 6 rounds at 300 tx/s)
#        bench/cachekv-pool.sh prepare DIR [RATE] [DURATION]
#          the patched copies and the two scenarios (DIR/released.toml,
#          DIR/pooled.toml) only; what the test in CI runs.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
patches=$repo/cmd/chainperf/testdata/cachekv-pool

prepare() { # DIR RATE DURATION
  local dir=$1 rate=$2 duration=$3 src
  mkdir -p "$dir"
  for m in cosmossdk.io/store@v1.1.2:store github.com/cosmos/cosmos-sdk@v0.53.6:cosmos-sdk; do
    src=$(cd "$dir" && GOFLAGS= go mod download -json "${m%%:*}" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
    rm -rf "${dir:?}/${m##*:}"
    cp -r "$src" "$dir/${m##*:}"
    chmod -R u+w "$dir/${m##*:}"
  done
  patch -s -p1 -d "$dir/store" <"$patches/store.patch"
  patch -s -p1 -d "$dir/cosmos-sdk" <"$patches/baseapp.patch"
  for side in released pooled; do
    {
      echo "name = \"wasmd-store-$side\""
      printf '\n[testnet]\nvalidators = 2\nfull_nodes = 0\nchain = "cosmos"\n'
      printf '\n[testnet.cosmos]\nbinary = "module:github.com/CosmWasm/wasmd/cmd/wasmd@v0.61.14"\nwallets = 2000\ngas_price = 0.001\n'
      if [ $side = pooled ]; then
        printf '\n[testnet.cosmos.replace]\n"cosmossdk.io/store" = "%s/store"\n"github.com/cosmos/cosmos-sdk" = "%s/cosmos-sdk"\n' "$dir" "$dir"
      fi
      printf '\n[workload]\nkind = "cosmos-send"\nmode = "pregenerate"\ngas_limit = 0\n'
      printf '\n[load]\nrate = %s\nmax_in_flight = 2000\nduration = "%s"\n' "$rate" "$duration"
      printf '\n[experiment]\nkind = "steady"\n'
    } >"$dir/$side.toml"
  done
}

if [ "${1:-}" = prepare ]; then
  prepare "$2" "${3:-300}" "${4:-20s}"
  exit 0
fi
rounds=${1:-6} rate=${2:-300}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The copies' path is part of the pooled build's cache key: a fixed one
# ($CHAINPERF_CACHEKV_POOL, as CI sets it) builds once.
pool=${CHAINPERF_CACHEKV_POOL:-$work/pool}
prepare "$pool" "$rate" 20s
go build -o "$work/chainperf" "$repo/cmd/chainperf"
cd "$work"
./chainperf scenario build "$pool/released.toml" | tail -1
./chainperf scenario build "$pool/pooled.toml" | tail -1
./chainperf ab "$pool/released.toml" "$pool/pooled.toml" --db runs.db --report-dir reports \
  --min-rounds 3 --max-rounds "$rounds" --decide-on "allocated per committed tx" || true
