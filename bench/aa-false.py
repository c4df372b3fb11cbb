#!/usr/bin/env python3
"""Tabulates bench/aa-false.sh: for each scenario and each figure the gate
tested, how many A/A sessions called it regressed or improved (false),
unchanged or inconclusive, and the smallest change the sessions could have
shown (the interval's farther end, median over the sessions)."""
import json
import os
import statistics
import sys

work, counts = sys.argv[1], {"kvstore": int(sys.argv[2]), "sdk": int(sys.argv[3])}
DECIDED = "height time"  # what every session is decided on (--decide-on)


def role(figure, gated):
    if figure == DECIDED:
        return "decided"
    return "gated by default" if gated else "informative"


def sessions(kind):
    for i in range(1, counts[kind] + 1):
        try:
            with open(os.path.join(work, "%s-%d.json" % (kind, i))) as f:
                yield i, json.load(f)
        except (OSError, ValueError):
            print("%s %d: no verdict (see %s-%d.log)" % (kind, i, kind, i))


with open(os.path.join(work, "machine.txt")) as f:
    print("machine:", f.read().strip())
for kind in ("kvstore", "sdk"):
    table, rounds, falses = {}, [], []
    for i, res in sessions(kind):
        rounds.append(max([r.get("rounds", 0) for r in res["figures"]] or [0]))
        for r in res["figures"]:
            if not r.get("tested"):
                continue
            t = table.setdefault(r["figure"], {"gated": r.get("gated"), "false": 0, "unchanged": 0, "inconclusive": 0, "reach": []})
            v = r["verdict"]
            if v in ("regressed", "improved"):
                t["false"] += 1
                falses.append("%s %d: %s %s %+.1f %% (%+.1f..%+.1f)" % (kind, i, r["figure"], v, r["change"], r["ci_low"], r["ci_high"]))
            elif v in ("unchanged", "inconclusive"):
                t[v] += 1
            t["reach"].append(max(abs(r["ci_low"]), abs(r["ci_high"])))
    n = len(rounds)
    print()
    print("%s: %d sessions, rounds %s" % (kind, n, rounds))
    print("| figure | role | false / unchanged / inconclusive | smallest change shown (median) |")
    print("|---|---|---|---|")
    order = {"decided": 0, "gated by default": 1, "informative": 2}
    informative = [0, 0]
    for fig, t in sorted(table.items(), key=lambda kv: (order[role(kv[0], kv[1]["gated"])], kv[0])):
        r = role(fig, t["gated"])
        if r == "informative":
            informative[0] += t["false"]
            informative[1] += t["false"] + t["unchanged"] + t["inconclusive"]
            continue
        print("| %s | %s | %d / %d / %d | %.1f %% |" % (fig, r, t["false"], t["unchanged"], t["inconclusive"],
                                                  statistics.median(t["reach"]) if t["reach"] else 0))
    print("| %d informative figures | informative | %d of %d verdicts false | |" % (
        sum(1 for f, t in table.items() if role(f, t["gated"]) == "informative"), informative[0], informative[1]))
    for line in falses:
        print("false:", line)
