#!/usr/bin/env python3
"""Reads `go test -json` on stdin and prints what `go test` would: a line a
package, and the whole output of every test that failed. Keeps each test's
and package's seconds in a TSV (--times) for the table .ci/run prints at
its end (.ci/slowest.py). Exits 1 when a test or package failed or the
stream ended without a package's result (a crash of go test itself)."""
import json
import sys

times_path = sys.argv[sys.argv.index("--times") + 1] if "--times" in sys.argv else None
out = {}          # (package, test) -> lines of output, dropped when it passed
pending = set()   # packages started and not yet ended
failed = False
rows = []

for raw in sys.stdin:
    try:
        ev = json.loads(raw)
    except ValueError:
        sys.stdout.write(raw)  # build errors come as plain text
        continue
    pkg, test, action = ev.get("Package", ""), ev.get("Test"), ev.get("Action")
    key = (pkg, test)
    if action == "start":
        pending.add(pkg)
    elif action == "output":
        out.setdefault(key, []).append(ev.get("Output", ""))
    elif action in ("pass", "fail", "skip"):
        secs = ev.get("Elapsed", 0.0)
        lines = out.pop(key, [])
        if test is None:
            pending.discard(pkg)
            rows.append(("package", pkg, "", action, secs))
            if action == "fail":
                failed = True
                sys.stdout.write("".join(lines))
            print(f"{'ok  ' if action != 'fail' else 'FAIL'}\t{pkg}\t{secs:.1f}s", flush=True)
        else:
            rows.append(("test", pkg, test, action, secs))
            if "/" not in test and secs >= 10:  # the slow ones, as they end
                print(f"    {action} {test} {secs:.1f}s", flush=True)
            if action == "fail":
                failed = True
                sys.stdout.write("".join(lines))
                sys.stdout.flush()

if pending:
    failed = True
    print("go test ended without a result for: " + ", ".join(sorted(pending)))
if times_path:
    with open(times_path, "a") as f:
        for kind, pkg, test, action, secs in rows:
            f.write(f"{kind}\t{pkg}\t{test}\t{action}\t{secs:.2f}\n")
sys.exit(1 if failed else 0)
