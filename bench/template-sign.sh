#!/usr/bin/env bash
# The cost of a templated message per tx beside chainperf's own encoding:
# a bank send signed from its template (encoded with descriptors, as a
# chain's own message is) against the built-in send, same wallet, same
# signer. Target: within 2x. Usage: bash bench/template-sign.sh
set -euo pipefail
cd "$(dirname "$0")/.."
go test -run '^$' -bench 'BenchmarkSign$|BenchmarkSignTemplate' -benchtime 3s -count 3 ./internal/cosmos
