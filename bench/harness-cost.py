#!/usr/bin/env python3
"""The harness's own cost in the default job: chainperf's CPU over the steady phase (500 tx/s for
30 s against 4 validators and a full node of the embedded kvstore chain, the nodes at nice 19),
as the run's summary says it ("harness: C cores over S s: component share, ..."), K runs of each
build, the builds taken in turn so that the machine's drift falls on both alike.

The run is `chainperf run` of the default scenario with its find-max phase left out
(experiment.kind = ["steady"]), in a temporary directory (its own results database and reports).
For each build: the median of the cores over the runs, the least and the most, and each
component's median. The components come from the run itself: a CPU profile of chainperf split by
goroutine labels, the pacer's thread by its own CPU clock (builds before 2026-11-27 sampled it).

--before REF adds chainperf built from git REF (git archive, go build) as a second build.
--rate R runs the steady phase at R tx/s instead of the default job's (the issue's 600 tx/s).

Usage: bench/harness-cost.py [K] [--before REF] [--rate R]
"""
import argparse, os, re, statistics, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINE = re.compile(r"harness:\s+([0-9.]+) cores over ([0-9.]+) s(?:: ([^;]*))?")


def build(src, out):
    subprocess.run(["go", "build", "-o", out, "./cmd/chainperf"], cwd=src, check=True)


def run(bin_, work, rate=None):
    scen = os.path.join(work, "steady.toml")
    with open(scen, "w") as f:
        f.write('name = "default-steady"\n[experiment]\nkind = ["steady"]\n')
        if rate:
            f.write(f'[load]\nrate = {rate}\n')
    p = subprocess.run([bin_, "run", scen, "--db", os.path.join(work, "runs.db"), "--report-dir", os.path.join(work, "reports")],
                       cwd=work, capture_output=True, text=True)
    m = LINE.search(p.stdout)
    if not m:
        sys.exit(f"{bin_}: no harness line (exit {p.returncode}):\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    parts = {}
    for kv in (m.group(3) or "").split(","):
        if kv.strip():
            k, v = kv.strip().rsplit(" ", 1)
            parts[k] = float(v)
    return float(m.group(1)), parts, ": PASS in " in p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("k", nargs="?", type=int, default=3)
    ap.add_argument("--before")
    ap.add_argument("--rate", type=int)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="chainperf-harness-") as work:
        builds = [("this tree", os.path.join(work, "chainperf"))]
        build(ROOT, builds[0][1])
        if a.before:
            src = os.path.join(work, "before")
            os.makedirs(src)
            subprocess.run(f"git archive {a.before} | tar -x -C {src}", shell=True, cwd=ROOT, check=True)
            builds.append((a.before, os.path.join(work, "chainperf-before")))
            build(src, builds[1][1])
        got = {name: [] for name, _ in builds}
        for i in range(a.k):
            for name, bin_ in builds:
                d = os.path.join(work, f"run-{name.replace(' ', '-')}-{i}")
                os.makedirs(d)
                cores, parts, passed = run(bin_, d, a.rate)
                got[name].append((cores, parts))
                print(f"run {i + 1}/{a.k} {name}: {cores:.3f} cores ({'PASS' if passed else 'not PASS'}): " +
                      ", ".join(f"{k} {v:.3f}" for k, v in parts.items()), flush=True)
        print(f"\n{'build':<12} {'cores median [least-most]':<28} components (median)")
        for name, rows in got.items():
            cores = [c for c, _ in rows]
            comps = sorted({k for _, p in rows for k in p})
            med = {k: statistics.median([p.get(k, 0) for _, p in rows]) for k in comps}
            print(f"{name:<12} {statistics.median(cores):.3f} [{min(cores):.3f}-{max(cores):.3f}]{'':<8} " +
                  ", ".join(f"{k} {v:.3f}" for k, v in sorted(med.items(), key=lambda kv: -kv[1])))


if __name__ == "__main__":
    main()
