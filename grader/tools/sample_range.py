#!/usr/bin/env python3
"""The score range a sample's expect.yaml implies for one grading (grader/samples/README.md,
"The score range"; the C++ twin is grader/tests/sample_expect.h): the points of the tests in
must_pass, up to all the points graded less those of the tests in must_fail (on the CPU backend
cpu_stricter's tests too), [0, 0] for a grading that is not `graded`, narrowed by
gpu_score_fraction on the GPU backend. The points are those the grading's results.json reports
(each test's max_score), so the range follows whatever suite was used.
Needs no YAML library (GPU machines may lack one): expect.yaml's keys are read line by line.
  sample_range.py EXPECT_YAML RESULTS_JSON [gpu|cpu]   prints "lo-hi"
"""
import json
import re
import sys


def flow_list(v):
    v = v.strip()
    if not (v.startswith("[") and v.endswith("]")):
        return None
    return [x.strip().strip('"').strip("'") for x in v[1:-1].split(",") if x.strip()]


def read_expect(path):
    """Top-level `key: value` lines (flow lists as lists); `parent: {key: value}` for the
    two-space-indented lines of a block such as cpu_stricter."""
    e, parent = {}, None
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        m = re.match(r"^(  )?([a-z_]+):\s*(.*)$", line)
        if not m:
            continue
        indented, key, val = m.group(1), m.group(2), m.group(3)
        lst = flow_list(val)
        value = lst if lst is not None else val.strip().strip('"')
        if indented and parent is not None:
            if not isinstance(e.get(parent), dict):
                e[parent] = {}
            e[parent][key] = value
        elif not indented:
            e[key] = value
            parent = key if value == "" else None
    return e


def expected_range(e, results, backend="gpu"):
    """(lo, hi) for a results.json (its "tests", each with max_score) and expect dict e."""
    if e.get("state", "graded") != "graded":
        return (0.0, 0.0)
    tests = results.get("tests", [])
    passing = set(e.get("must_pass") or [])
    failing = set(e.get("must_fail") or [])
    if backend == "cpu" and isinstance(e.get("cpu_stricter"), dict):
        failing |= set(e["cpu_stricter"].get("tests") or [])
    total = sum(float(t.get("max_score", 0)) for t in tests)
    lo = sum(float(t.get("max_score", 0)) for t in tests if t["name"] in passing)
    hi = total - sum(float(t.get("max_score", 0)) for t in tests if t["name"] in failing)
    f = e.get("gpu_score_fraction")
    if backend == "gpu" and isinstance(f, list) and len(f) == 2:
        lo, hi = max(lo, float(f[0]) * total), min(hi, float(f[1]) * total)
    return (lo, hi)


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    lo, hi = expected_range(read_expect(sys.argv[1]), json.load(open(sys.argv[2])),
                            sys.argv[3] if len(sys.argv) == 4 else "gpu")
    print(f"{lo:g}-{hi:g}")
