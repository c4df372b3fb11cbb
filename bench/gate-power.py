#!/usr/bin/env python3
"""Tabulates bench/gate-power.sh: each session's verdict on height time and
latency p50, its change and interval, and the rounds it took."""
import json
import os
import re
import sys

work, n, planted = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
FIGURES = ["height time", "latency p50"]


def session(name):
    """The session's rows by figure, its rounds, and the round each figure
    was first called regressed or improved (from ab's standing lines)."""
    try:
        with open(os.path.join(work, name + ".json")) as f:
            res = json.load(f)
        with open(os.path.join(work, name + ".log")) as f:
            log = f.read()
    except OSError:
        return None
    m = re.search(r"^(\d+) round\(s\)", log, re.M)
    first = {}
    for rnd, standing in re.findall(r"^  after round (\d+): (.*)$", log, re.M):
        for f in FIGURES:
            if re.search(re.escape(f) + r" (regressed|improved) ", standing) and int(rnd) >= 3:
                first.setdefault(f, int(rnd))
    rows = {r["figure"]: r for r in res["figures"]}
    why = (res.get("why") or ["-"])[0]
    return rows, int(m.group(1)) if m else 0, first, why


def cell(row):
    if row is None:
        return "-"
    if not row.get("tested"):
        return "%s" % row["verdict"]
    return "%s %+.1f %% (%+.1f..%+.1f)" % (row["verdict"], row["change"], row["ci_low"], row["ci_high"])


with open(os.path.join(work, "machine.txt")) as f:
    print("machine:", f.read().strip())
with open(os.path.join(work, "height.txt")) as f:
    print(f.read().strip())
print()
print("| session | rounds | " + " | ".join(FIGURES) + " | why, first line |")
print("|---|---|" + "---|" * len(FIGURES) + "---|")
summary = {}
for kind, count in (("aa", n), ("p5", planted), ("p3", planted), ("knob", 3)):
    for i in range(1, count + 1):
        s = session("%s-%d" % (kind, i))
        if s is None:
            continue
        rows, rounds, first, why = s
        print("| %s %d | %d | %s | %s |" % (kind, i, rounds, " | ".join(cell(rows.get(f)) for f in FIGURES), why[:120]))
        for f in FIGURES:
            v = rows.get(f, {}).get("verdict", "missing")
            summary.setdefault((kind, f), []).append((v, first.get(f, rounds)))
print()
for (kind, f), vs in sorted(summary.items()):
    called = [r for v, r in vs if v in ("regressed", "improved")]
    print("%s, %s: %d of %d sessions called a change (at rounds %s); %s" % (
        kind, f, len(called), len(vs), called, ", ".join("%s %d" % (v, sum(1 for x, _ in vs if x == v)) for v in sorted({x for x, _ in vs}))))
