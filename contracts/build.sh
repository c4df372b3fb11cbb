#!/usr/bin/env bash
# Compiles contracts/Token.sol with the pinned compiler (solc-js 0.8.28 from
# npm, kept in $CHAINPERF_BUILD_CACHE or ~/.cache/chainperf/solc-0.8.28) and
# writes its creation bytecode, as hex, to internal/evm/token.bin, which
# chainperf embeds and deploys.
#   contracts/build.sh           write internal/evm/token.bin
#   contracts/build.sh --check   fail if token.bin is not what the source compiles to
set -euo pipefail
cd "$(dirname "$0")/.."
version=0.8.28
cache=${CHAINPERF_BUILD_CACHE:-$HOME/.cache/chainperf}/solc-$version
if [ ! -x "$cache/node_modules/.bin/solcjs" ]; then
  mkdir -p "$cache"
  npm install --silent --no-audit --no-fund --prefix "$cache" "solc@$version" >/dev/null
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# The source is named by its path relative to contracts/, which the
# bytecode's metadata hash covers: keep the command as it is.
(cd contracts && "$cache/node_modules/.bin/solcjs" --bin --optimize --optimize-runs 200 -o "$out" Token.sol)
bin=$(cat "$out"/Token_sol_Token.bin)
if [ "${1:-}" = "--check" ]; then
  if [ "$bin" != "$(cat internal/evm/token.bin)" ]; then
    echo "internal/evm/token.bin is not what contracts/Token.sol compiles to with solc $version: run contracts/build.sh" >&2
    exit 1
  fi
  echo "internal/evm/token.bin matches contracts/Token.sol (solc $version)"
else
  printf '%s' "$bin" > internal/evm/token.bin
  echo "wrote internal/evm/token.bin (${#bin} hex digits, solc $version)"
fi
