#!/usr/bin/env python3
"""Repeats bench/generator.py and gives each row's spread.

The machine drifts between runs (a row's CPU per 1,000 txs moved by a third between two runs of the
same build minutes apart on this project's VM), so one run of generator.py cannot tell two builds
apart by less than that. This runs it K times with the same arguments (with --before, both builds
in every run, one after the other) and prints, for each generator and rate, the median, least and
most CPU-s per 1,000 txs and p99 lag over the K runs.

Usage: bench/generator-repeat.py K [generator.py arguments...]
  e.g. bench/generator-repeat.py 5 --duration 10 --no-profile --only chainperf,loadtime --rates 1000,5000,10000 --before 0f50011
"""
import os, re, statistics, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROW = re.compile(r"^(\S.*?)\s+(\d+)\s+(\d+)\s+(yes|no)\s+\S+\s+([\d.]+)\s+\S+\s+\d+\s+(\S+)")


def main():
    if len(sys.argv) < 2 or not sys.argv[1].isdigit():
        sys.exit(__doc__)
    k, args = int(sys.argv[1]), sys.argv[2:]
    rows = {}  # (generator, rate) -> [(cpu, lag, ok)]
    for i in range(k):
        out = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "generator.py")] + args,
                             capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"run {i + 1}: generator.py failed:\n{out.stdout}{out.stderr}")
        head = next((l for l in out.stdout.splitlines() if l.startswith("#")), "")
        print(f"run {i + 1} of {k}: {head.lstrip('# ')}", flush=True)
        for line in out.stdout.splitlines():
            m = ROW.match(line)
            if m:
                lag = float(m[6]) if m[6] != "-" else None
                rows.setdefault((m[1], int(m[2])), []).append((float(m[5]), lag, m[4] == "yes"))
    print(f"\n{'generator':<22}{'tx/s':>8}  cpu-s/1000 median [least-most]   p99 lag ms median [least-most]  held")
    for (gen, rate), v in rows.items():
        cpu = [c for c, _, _ in v]
        lags = [l for _, l, _ in v if l is not None]
        lag = f"{statistics.median(lags):.3f} [{min(lags):.3f}-{max(lags):.3f}]" if lags else "-"
        print(f"{gen:<22}{rate:>8}  {statistics.median(cpu):.4f} [{min(cpu):.4f}-{max(cpu):.4f}]"
              f"   {lag:<30} {sum(ok for *_, ok in v)}/{len(v)}")


if __name__ == "__main__":
    main()
