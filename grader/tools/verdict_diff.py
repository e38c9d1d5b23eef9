#!/usr/bin/env python3
"""verdict_diff.py OLD_ROOT NEW_ROOT: the gradings both roots hold (RESULTS/<name>/results.json, a
leading "0-"/"1-" stripped), test by test: status, and the first line of the test's output with
numbers masked (timings, speedups and counts move from run to run); prints what differs."""
import json, pathlib, re, sys
def load(root):
    out = {}
    for f in pathlib.Path(root).glob("*/results.json"):
        name = re.sub(r"^[01]-", "", f.parent.name)
        r = json.loads(f.read_text())
        tests = {}
        for t in r.get("tests", []):
            first = (t.get("output") or "").split("\n")[0]
            tests[t["name"]] = (t.get("status"), re.sub(r"[0-9][0-9.,e+-]*", "#", first))
        out[name] = (r.get("score"), tests)
    return out
old, new = load(sys.argv[1]), load(sys.argv[2])
both = sorted(set(old) & set(new))
same_status = same_words = 0
for n in both:
    (so, to), (sn, tn) = old[n], new[n]
    diffs = []
    for k in sorted(set(to) | set(tn)):
        a, b = to.get(k), tn.get(k)
        if a is None or b is None or a[0] != b[0]: diffs.append(f"  {k}: status {a and a[0]} -> {b and b[0]}")
        elif a[1] != b[1]: diffs.append(f"  {k}: words\n    - {a[1][:150]}\n    + {b[1][:150]}")
    if not any("status" in d for d in diffs): same_status += 1
    if not diffs: same_words += 1
    if diffs: print(f"{n} (score {so} -> {sn})\n" + "\n".join(diffs))
print(f"{len(both)} gradings in both: {same_status} with every test's status the same, {same_words} also word for word (numbers masked)")
