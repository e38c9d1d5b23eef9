#!/usr/bin/env bash
# Grades the real-student corpus and the classic-bug samples on the GPU
# backend and holds each to its expect.yaml: state, score range (derived from
# the lists and the points the grading reports: grader/tools/sample_range.py),
# tests that must fail or pass, and the first hint a student reads
# (first_hint words, first_hint_id). One line per sample, a summary last.
#   bash grader/tools/gpu_check_hints.sh K        # K in 0..SHARDS-1: every SHARDS-th sample
# SHARDS (default 2) shards may run at once: GPU_LOCK=FILE makes them share
# the batch's lock (--gpu-lock), so that no shard's timing overlaps another's
# launches. LIMIT: seconds per grading (default 300: a kernel that deadlocks
# runs every case to its limit).
# BACKEND=cpu tries the script without a GPU (expectations are still the GPU's:
# no cpu_stricter);
# ONLY=REGEX grades only the samples whose folder matches.
# Run from the kit's root on a GPU machine. Logs and reports: $OUT/hints/ (or
# gpu-logs/hints/). The real corpus must be materialised first
# (grader/samples/real/.upstream/, grader/tools/real_corpus.sh); samples that
# are not are listed as "not materialised".
set -u
half=${1:-${HALF:-0}}
shards=${SHARDS:-2}
[[ "$half" =~ ^[0-9]+$ && "$shards" =~ ^[0-9]+$ && "$half" -lt "$shards" ]] || {
  echo "usage: $0 K (0 <= K < SHARDS=$shards)" >&2; exit 2; }
lock=(); [ -n "${GPU_LOCK:-}" ] && lock=(--gpu-lock "$GPU_LOCK")
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
out=${OUT:-$root/gpu-logs}/hints
mkdir -p "$out"
make -j"$(nproc)" build/grade >"$out/build-$half.log" 2>&1 || { echo "build failed: $out/build-$half.log" >&2; exit 3; }

mapfile -t samples < <(find grader/samples/real grader/samples/bugs -mindepth 2 -maxdepth 2 -name expect.yaml \
  -not -path '*/.upstream/*' -printf '%h\n' | sort)
i=0
for dir in "${samples[@]}"; do
  i=$((i + 1))
  [ $(( (i - 1) % shards )) -eq "$half" ] || continue
  [[ -z "${ONLY:-}" || "$dir" =~ ${ONLY:-} ]] || continue
  name=$(basename "$(dirname "$dir")")_$(basename "$dir")
  src=$(sed -n 's/^source:[[:space:]]*\([^[:space:]#]*\).*/\1/p' "$dir/expect.yaml" | head -1)
  sub="$dir/${src:-kernel.cu}"
  mkdir -p "$out/$name/tmp"
  if [ ! -f "$sub" ]; then
    echo "not materialised" >"$out/$name/status"
    continue
  fi
  t0=$(date +%s)
  TMPDIR="$out/$name/tmp" timeout -k 10 "${LIMIT:-300}" build/grade --quiet --seed 12345 --backend "${BACKEND:-gpu}" "${lock[@]}" \
    --out "$out/$name/reports" "$sub" >"$out/$name/terminal.txt" 2>&1
  echo "rc=$? seconds=$(( $(date +%s) - t0 ))" >"$out/$name/status"
done

# The table: expected vs actual, read back from each results.json.
python3 - "$out" "$half" "$shards" "${samples[@]}" <<'PY'
import json, os, re, sys
out, half, shards, dirs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
only = os.environ.get("ONLY", "")
sys.path.insert(0, "grader/tools")
from sample_range import expected_range, read_expect as expect

rows, held, failed, missing = [], 0, 0, 0
for i, d in enumerate(dirs):
    if i % shards != half:
        continue
    name = os.path.basename(os.path.dirname(d)) + "_" + os.path.basename(d)
    e = expect(os.path.join(d, "expect.yaml"))
    status = open(os.path.join(out, name, "status")).read().strip() if os.path.exists(os.path.join(out, name, "status")) else "?"
    res = os.path.join(out, name, "reports", "results.json")
    if only and not re.search(only, d):
        continue
    if status == "not materialised" or not os.path.exists(res):
        rows.append((name, "-", "-", "-", status if status == "not materialised" else "no results.json (" + status + ")"))
        missing += 1
        continue
    r = json.load(open(res))
    x = r.get("extra_data", {})
    state, score = x.get("state", "?"), r.get("score", 0)
    problems = []
    want_state = e.get("state", "graded")
    if state != want_state:
        problems.append(f"state {state} != {want_state}")
    rng = expected_range(e, r)
    if not (rng[0] - 1e-6 <= score <= rng[1] + 1e-6):
        problems.append(f"score {score:g} outside {rng[0]:g}-{rng[1]:g}")
    tests = {t["name"]: t for t in r.get("tests", [])}
    for n in e.get("must_fail", []) or []:
        if n in tests and tests[n].get("status") != "failed":
            problems.append(f"{n} should fail")
    for n in e.get("must_pass", []) or []:
        if n in tests and tests[n].get("status") != "passed":
            problems.append(f"{n} should pass")
    hint_id, hint = "-", ""
    for t in x.get("tests", []):
        if t.get("diagnoses"):
            hint_id, hint = t["diagnoses"][0].get("id", ""), t["diagnoses"][0].get("text", "")
            break
        if t.get("status") == "failed":
            hint_id, hint = "(verdict)", t.get("verdict", "")
            break
    for w in e.get("first_hint", []) or []:
        if w.lower() not in hint.lower():
            problems.append(f"first hint lacks '{w}'")
    ids = e.get("first_hint_id")
    if ids and hint_id not in ids:
        problems.append(f"first hint id {hint_id} not in {ids}")
    marks = [k for k in ("known_unfair", "hint_known_unfair", "gpu_hint_known_unfair") if k in e]
    verdict = "ok" if not problems else "NO: " + "; ".join(problems)
    if marks:
        verdict += " (marked " + ",".join(marks) + ")"
    held += not problems
    failed += bool(problems)
    exp = f"{want_state} {rng[0]:g}-{rng[1]:g}"
    rows.append((name, exp, f"{state} {score:g}", hint_id, verdict))
    with open(os.path.join(out, name, "first_hint.txt"), "w") as f:
        f.write(f"[{hint_id}] {hint}\n")

w = [max(len(r[c]) for r in rows + [("sample", "expected", "actual", "first hint id", "holds")]) for c in range(4)]
print(f'{"sample":<{w[0]}}  {"expected":<{w[1]}}  {"actual":<{w[2]}}  {"first hint id":<{w[3]}}  holds')
for r in rows:
    print(f"{r[0]:<{w[0]}}  {r[1]:<{w[1]}}  {r[2]:<{w[2]}}  {r[3]:<{w[3]}}  {r[4]}")
print(f"shard {half} of {shards}: {held} hold, {failed} do not, {missing} not graded; first hints in {out}/*/first_hint.txt")
PY
