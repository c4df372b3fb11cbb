#!/usr/bin/env python3
"""Tabulates bench/calibrate.sh: the verdicts of interleaved A/A sessions,
of the same runs compared in blocks (all of one session against all of the
next, as without interleaving), and of the planted changes."""
import json
import os
import subprocess
import sys

work, n = sys.argv[1], int(sys.argv[2])
planted = int(sys.argv[3]) if len(sys.argv) > 3 else 1
GATED = ["committed tx/s", "latency p50", "latency p99", "rejected share"]


def load(name):
    path = os.path.join(work, name + ".json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def tally(results):
    """Per gated figure: counts of each verdict."""
    out = {g: {} for g in GATED}
    for res in results:
        for row in res["figures"]:
            if row["figure"] in out and row["gated"]:
                v = row["verdict"]
                out[row["figure"]][v] = out[row["figure"]].get(v, 0) + 1
    return out


def row(label, results, rounds=""):
    t = tally(results)
    false = sum(t[g].get("regressed", 0) + t[g].get("improved", 0) for g in GATED)
    cells = []
    for g in GATED:
        c = t[g]
        cells.append("%d / %d / %d" % (c.get("regressed", 0) + c.get("improved", 0), c.get("unchanged", 0), c.get("inconclusive", 0)))
    print("| %s | %d | %s | %s | %d |" % (label, len(results), rounds, " | ".join(cells), false))


aa = [r for r in (load("aa-%d" % i) for i in range(1, n + 1)) if r]
blocks = []
for k in range(0, len(aa) - 1, 2):
    a, b = aa[k], aa[k + 1]
    ids = lambda r: ",".join(r["baseline_runs"] + r["candidate_runs"])
    p = subprocess.run([os.path.join(work, "chainperf"), "compare", "--db", os.path.join(work, "runs.db"),
                        "--format", "json", ids(a), ids(b)], capture_output=True, text=True)
    if p.returncode in (0, 1, 3):
        blocks.append(json.loads(p.stdout))
    else:
        print("compare failed:", p.stdout, p.stderr, file=sys.stderr)

with open(os.path.join(work, "machine.txt")) as f:
    print("machine:", f.read().strip())
print()
print("| comparison | count | rounds a side | " + " | ".join(g + " false / unchanged / inconclusive" for g in GATED) + " | false verdicts |")
print("|---|---|---|" + "---|" * len(GATED) + "---|")
rounds = [max(x.get("rounds", 0) for x in r["figures"]) for r in aa]
row("A/A interleaved", aa, "%d-%d" % (min(rounds), max(rounds)) if rounds else "")
row("A/A in blocks (session vs next)", blocks, "6-8 runs, not paired")
print()
# The smallest change each interleaved A/A session could have shown
# (the farther end of its interval), median over sessions.
for g in GATED:
    d = sorted(max(abs(x["ci_low"]), abs(x["ci_high"])) for r in aa for x in r["figures"] if x["figure"] == g and x.get("tested"))
    if d:
        print("A/A %s: smallest change it could have seen, median %.1f %% (%.1f..%.1f)" % (g, d[len(d) // 2], d[0], d[-1]))
print()
for name, figure in (("p99", "latency p99"), ("capacity", "committed tx/s")):
    called, rounds = 0, []
    for i in range(1, planted + 1):
        r = load("%s-%d" % (name, i)) or load(name)
        if r is None:
            print("%s %d: no verdict (see %s-%d.log)" % (name, i, name, i))
            continue
        x = next(x for x in r["figures"] if x["figure"] == figure)
        rounds.append(x.get("rounds", 0))
        called += x["verdict"] == "regressed"
        first = "-"
        log = os.path.join(work, "%s-%d.log" % (name, i))
        if os.path.exists(log):
            for line in open(log):
                if line.startswith("  after round") and (figure + " regressed") in line:
                    first = line.split()[2].rstrip(":")
                    break
        print("planted %s %d: %s %s %+.1f %% (interval %+.1f..%+.1f) after %d rounds, first called at round %s" % (
            name, i, figure, x["verdict"], x["change"], x["ci_low"], x["ci_high"], x.get("rounds", 0), first))
    print("planted %s: called regressed in %d of %d sessions, %s rounds" % (name, called, planted, rounds))
