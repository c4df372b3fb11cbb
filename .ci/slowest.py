#!/usr/bin/env python3
"""Prints where a CI run's time went: each stage of .ci/run (STAGES, a
"name<TAB>seconds" line each) and the 25 slowest tests (TIMES, written by
.ci/gotest.py). Usage: slowest.py STAGES TIMES"""
import sys

stages_path, times_path = sys.argv[1], sys.argv[2]
stages = []
with open(stages_path) as f:
    for line in f:
        name, secs = line.rstrip("\n").rsplit("\t", 1)
        stages.append((name, int(secs)))
tests, packages = [], []
try:
    with open(times_path) as f:
        for line in f:
            kind, pkg, test, action, secs = line.rstrip("\n").split("\t")
            short = pkg.replace("github.com/chainperf/chainperf/", "")
            if kind == "package":
                packages.append((float(secs), short))
            elif "/" not in test:  # top-level tests: a subtest's time is in its parent's
                tests.append((float(secs), short, test, action))
except FileNotFoundError:
    pass

# Indented stages ran inside the one above them (side by side): not added.
total = sum(s for name, s in stages if not name.startswith(" "))
print(f"\nwhere the time went ({total} s, {total / 60:.1f} min):")
for name, secs in stages:
    print(f"  {secs:6d} s  {name}")
print("\nslowest packages:")
for secs, pkg in sorted(packages, reverse=True)[:10]:
    print(f"  {secs:8.1f} s  {pkg}")
print("\n25 slowest tests:")
for secs, pkg, test, action in sorted(tests, reverse=True)[:25]:
    mark = "" if action == "pass" else f"  ({action})"
    print(f"  {secs:8.1f} s  {pkg} {test}{mark}")
