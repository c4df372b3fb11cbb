#!/usr/bin/env bash
# Memory of decoding a node's /block answer of 64 MiB of one-byte txs
# (9.6 million of them, none the run's), what a hostile or broken node can
# send within the answer cap: MB allocated a decode and the process's peak
# RSS, for this tree and, given a commit from before the txs were read one
# at a time (e.g. c036338), for that commit's decodeBlock with what the
# follower then did to every tx (hash it, size the block).
# Usage: bench/blockmem.sh [old-commit]
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'git worktree remove --force "$work/old" 2>/dev/null || true; rm -rf "$work"' EXIT
printf '%s, %s cores, %s GiB, %s\n' "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)" "$(nproc)" \
  "$(awk '/MemTotal/ {printf "%.0f", $2/1048576}' /proc/meminfo)" "$(date -u +%F)"
bench() { # DIR LABEL
  (cd "$1" && go test -run '^$' -bench '^BenchmarkDecodeTinyTxs$' -benchmem -benchtime 3x -count 1 ./internal/observe) |
    awk -v who="$2" '/^BenchmarkDecodeTinyTxs/ { for (i = 1; i <= NF; i++) { if ($i == "B/op") alloc = $(i-1); if ($i == "peak-RSS-MB") rss = $(i-1) }
      printf "%-10s allocated %.1f MB a decode, peak RSS %s MB\n", who, alloc / 1048576, rss }'
}
bench . this
if [ $# -ge 1 ]; then
  git worktree add -q --detach "$work/old" "$1"
  # The old decodeBlock(data, h) made every tx a []byte; the follower then
  # hashed each and took the block's size by marshalling it again.
  sed -n '/^func tinyTxs/,/^}/p' internal/observe/block_test.go >"$work/tiny.go.part"
  cat >"$work/old/internal/observe/blockmem_old_test.go" <<'GO'
package observe

import (
	"bytes"
	"os"
	"regexp"
	"strconv"
	"testing"
)

func BenchmarkDecodeTinyTxs(b *testing.B) {
	data := tinyTxs(b, (64<<20-4096)/7)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		blk, err := decodeBlock(data, 42)
		if err != nil {
			b.Fatal(err)
		}
		_ = blk.Size()
		for _, tx := range blk.Txs {
			_ = tx.Hash()
		}
	}
	b.StopTimer()
	if status, err := os.ReadFile("/proc/self/status"); err == nil {
		if m := regexp.MustCompile(`VmHWM:\s+(\d+) kB`).FindSubmatch(status); m != nil {
			kb, _ := strconv.Atoi(string(m[1]))
			b.ReportMetric(float64(kb)/1024, "peak-RSS-MB")
		}
	}
}
GO
  cat "$work/tiny.go.part" >>"$work/old/internal/observe/blockmem_old_test.go"
  bench "$work/old" "$1"
fi
