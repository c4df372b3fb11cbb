#!/usr/bin/env python3
"""Prints a -run pattern for cmd/chainperf's tests of one kind:
  alone   the tests that do not call t.Parallel: they time something and
          run one at a time, alone on the machine;
  beside  the tests that call t.Parallel in their own body: they time
          nothing and run several at once, beside the unit tests and fuzz.
Exits 1 when a test is in neither list or a name is given twice, so that no
test is left out of CI by the split."""
import glob
import re
import sys

kind, root = sys.argv[1], sys.argv[2]
alone, beside = [], []
for path in sorted(glob.glob(root + "/*_test.go")):
    text = open(path).read()
    heads = list(re.finditer(r"^func (Test\w+)\(t \*testing\.T\) \{$", text, re.M))
    for m in heads:
        end = text.find("\n}\n", m.end())
        body = text[m.end():end if end >= 0 else len(text)]
        (beside if re.search(r"^\tt\.Parallel\(\)$", body, re.M) else alone).append(m.group(1))
every = set(re.findall(r"^func (Test\w+)\(t \*testing\.T\)", "".join(open(p).read() for p in glob.glob(root + "/*_test.go")), re.M))
if set(alone) | set(beside) != every or len(alone) + len(beside) != len(every):
    sys.exit("cmdtests.py: the split misses or repeats a test: " + ", ".join(sorted(every ^ (set(alone) | set(beside)))))
names = {"alone": alone, "beside": beside}[kind]
print("^(" + "|".join(sorted(names)) + ")$")
