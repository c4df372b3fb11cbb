#!/usr/bin/env bash
# Memory over a long run: chainperf's RSS and the results database, minute
# by minute, in one of two soaks:
#   bench/soak.sh testnet [MINUTES]  the default testnet (4 validators + 1
#                                    full node) at 1,000 tx/s, `chainperf run`
#   bench/soak.sh sink [MINUTES]     `chainperf load` at 20,000 tx/s against
#                                    `chainperf sink` (no chain, no follower)
# MINUTES defaults to 30. Prints a row a minute (RSS of the chainperf that
# drives the load; from its --metrics-addr its Go heap in use, goroutine
# stacks, heap pages kept but idle, and goroutines; the database with its
# WAL), then the growth of RSS from minute 5 to the end and the
# database's growth per minute. RSS swings with the GC cycle (GC percent
# 400) and counts the binary's mapped pages; the anonymous part (RssAnon)
# and the live heap the last GC of each minute left (GODEBUG=gctrace=1,
# "A->B->C MB": C) tell growth from swing. Each soak keeps heap profiles
# of minutes 1, 5 and the last in $OUT/MODE (default
# /tmp/chainperf-soak/MODE) to compare with `go tool pprof -top -base`,
# and the database there. Not part of CI.
#
# PAUSE_EVERY=S (sink soak) stops the sink (SIGSTOP) for 50 ms every S
# seconds, the pause a busy node or a shared machine makes now and then:
# the generator keeps its schedule by opening up to max_in_flight
# requests, and the soak shows whether that memory comes back.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-testnet} minutes=${2:-30}
out=${OUT:-/tmp/chainperf-soak}/$mode
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; kill -CONT "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$out"
go build -o "$work/chainperf" ./cmd/chainperf
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
metrics=""
case $mode in
testnet)
  cat >"$work/s.toml" <<TOML
name = "soak-testnet"
[load]
rate = 1000
duration = "${minutes}m"
[experiment]
kind = "steady"
warmup = "10s"
TOML
  metrics=127.0.0.1:$(free_port)
  GODEBUG=gctrace=1 "$work/chainperf" run "$work/s.toml" --db "$work/runs.db" --report-dir "$work/reports" --metrics-addr "$metrics" >"$work/run.log" 2>&1 &
  ;;
sink)
  sink=127.0.0.1:$(free_port)
  metrics=127.0.0.1:$(free_port)
  taskset -c 1 "$work/chainperf" sink --listen "$sink" >"$work/sink.log" 2>&1 &
  sinkpid=$!
  pids+=("$sinkpid")
  if [ -n "${PAUSE_EVERY:-}" ]; then
    (while sleep "$PAUSE_EVERY"; do kill -STOP "$sinkpid" && sleep 0.05; kill -CONT "$sinkpid" || exit 0; done) &
    pids=("$!" "${pids[@]}")
  fi
  sleep 1
  GODEBUG=gctrace=1 taskset -c 0 "$work/chainperf" load --rpc "http://$sink" --no-follow --rate 20000 --duration "${minutes}m" \
    --db "$work/runs.db" --report-dir "$work/reports" --metrics-addr "$metrics" >"$work/run.log" 2>&1 &
  ;;
*) echo "usage: bench/soak.sh testnet|sink [MINUTES]" >&2; exit 2 ;;
esac
pid=$!
pids+=("$pid")
echo "soak $mode: $minutes min${PAUSE_EVERY:+, the sink stopped 50 ms every ${PAUSE_EVERY} s}, chainperf pid $pid, $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
echo "| minute | chainperf RSS MiB (mean, max of 5 s samples) | anonymous MiB (mean) | live heap after the minute's last GC MB | Go heap in use MiB | stacks MiB | heap idle, not released MiB | goroutines | database MiB |"
echo "|---|---|---|---|---|---|---|---|---|"
rows=()
start=$(date +%s)
for ((m = 1; ; m++)); do
  # RSS swings with the GC cycle (chainperf runs with a GC percent of
  # 400): sampled every 5 s, a minute is given by its mean and its peak.
  samples=()
  while (( $(date +%s) < start + 60 * m )); do
    kill -0 "$pid" 2>/dev/null || break 2
    s=$(awk '/VmRSS/{r=$2} /RssAnon/{a=$2} END{if (r) print r, a}' "/proc/$pid/status" 2>/dev/null) && samples+=("$s")
    sleep 5
  done
  [ ${#samples[@]} -gt 0 ] || break
  read -r rss peak anon < <(printf '%s\n' "${samples[@]}" | awk '{s+=$1; a+=$2; if ($1>m) m=$1} END{printf "%.1f %.1f %.1f\n", s/NR/1024, m/1024, a/NR/1024}')
  # The last gctrace line so far: "gc N @T s ...: A->B->C MB, ...".
  live=$(grep -a '^gc [0-9]* @' "$work/run.log" | tail -1 | sed -n 's/.* [0-9]*->[0-9]*->\([0-9]*\) MB.*/\1/p')
  heap=- gor=- stack=- idle=-
  if [ -n "$metrics" ]; then
    heap=$(curl -s -m 10 "http://$metrics/debug/pprof/heap?debug=1" | awk '/^# HeapInuse = /{printf "%.1f", $4/1048576}') || true
    read -r gor stack idle < <(curl -s -m 10 "http://$metrics/metrics" | awk '
      /^go_goroutines /{g=$2} /^go_memstats_stack_inuse_bytes /{s=$2}
      /^go_memstats_heap_idle_bytes /{i=$2} /^go_memstats_heap_released_bytes /{r=$2}
      END{if (g == "") print "- - -"; else printf "%d %.1f %.1f\n", g, s/1048576, (i-r)/1048576}') || true
    case $m in 1 | 5 | "$minutes") curl -s -m 10 -o "$out/heap-$m.pb" "http://$metrics/debug/pprof/heap" || true ;; esac
  fi
  db=$(du -cm --apparent-size "$work"/runs.db* 2>/dev/null | awk 'END{print $1}')
  echo "| $m | $rss, $peak | $anon | ${live:--} | ${heap:--} | ${stack:--} | ${idle:--} | ${gor:--} | $db |"
  rows+=("$m $rss $db $peak $anon ${live:-0}")
done
wait "$pid" || echo "(chainperf exited with $?: see below)"
grep -av -e '^gc [0-9]* @' -e '^GC forced' "$work/run.log" | tail -15
cp "$work"/runs.db* "$out/" 2>/dev/null || true # kept for per-row sizes (docs/SCALE.md)
printf '%s\n' "${rows[@]}" | python3 -c '
import sys
rows = [tuple(map(float, l.split())) for l in sys.stdin if l.strip()]
five = [r for r in rows if r[0] == 5]
if five and len(rows) > 5:
    m5, last = five[0], rows[-1]
    print(f"RSS minute 5 -> {last[0]:.0f}: mean {m5[1]:.1f} -> {last[1]:.1f} MiB ({100 * (last[1] / m5[1] - 1):+.1f} %), "
          f"peak {m5[3]:.1f} -> {last[3]:.1f} MiB ({100 * (last[3] / m5[3] - 1):+.1f} %)")
    # The trend, less at the mercy of where the GC cycle was: a line through
    # the mean of each minute from minute 5 on.
    xs, ys = zip(*[(r[0], r[1]) for r in rows if r[0] >= 5])
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / (sum((x - mx) ** 2 for x in xs) or 1)
    print(f"RSS trend from minute 5: {slope:+.2f} MiB a minute ({100 * slope * (xs[-1] - 5) / m5[1]:+.1f} % over the run)")
    print(f"anonymous RSS minute 5 -> {last[0]:.0f}: {m5[4]:.1f} -> {last[4]:.1f} MiB ({100 * (last[4] / m5[4] - 1):+.1f} %)")
    if m5[5] and last[5]:
        print(f"live heap after GC minute 5 -> {last[0]:.0f}: {m5[5]:.0f} -> {last[5]:.0f} MB; from minute 5 between {min(r[5] for r in rows if r[0] >= 5):.0f} and {max(r[5] for r in rows if r[0] >= 5):.0f} MB")
    print(f"database: {(last[2] - m5[2]) / (last[0] - 5):.2f} MiB a minute from minute 5 ({last[2]:.0f} MiB at minute {last[0]:.0f})")
'
