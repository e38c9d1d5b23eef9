#!/usr/bin/env bash
# Do the CPU and GPU backends reach the same verdicts? Grades every sample
# submission (grader/samples/*/*) with both backends through `grade batch`
# and compares, test by test, the verdicts the CPU backend can give (every
# correctness case except the performance cases, and the checks). A benchmark
# of the kit, not a test: it needs a GPU. From the repository root after make:
#   grader/bench/backend_agreement.sh [SUITE=testcases/default.yaml]
# Environment: GRADE (default build/grade), OUT (where to keep the table,
# both batches' gradebooks and statuses-<backend>.json; default a temporary
# folder), GPU_STATUSES (a statuses-gpu.json from an earlier run, or the
# gpu-statuses.json that grader/bench/gpu_session.sh writes: compare with
# that instead of grading on a GPU here, so this runs without one). Takes
# several minutes: the hostile samples that hang wait out their time limits.
# The seed is the sample tests' (12345).
set -euo pipefail
SUITE=${1:-testcases/default.yaml}
GRADE=${GRADE:-build/grade}
[[ -x $GRADE ]] || { echo "backend_agreement: $GRADE not found; run make first" >&2; exit 2; }
WORK=$(mktemp -d /tmp/sg-agree-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
DEST=${OUT:-$WORK}
mkdir -p "$DEST"

# Every sample, the real students' kernels too where grader/tools/real_corpus.sh has
# materialised them (expect.yaml's `source:`).
for e in grader/samples/*/*/expect.yaml; do
  d=$(dirname "$e")
  src=$(sed -n 's/^source: *//p' "$e")
  k=$d/${src:-kernel.cu}
  [[ -f $k ]] || continue
  mkdir -p "$WORK/class/$(basename "$(dirname "$d")")-$(basename "$d")"
  cp "$k" "$WORK/class/$(basename "$(dirname "$d")")-$(basename "$d")/kernel.cu"
done
backends="gpu cpu"
if [[ -n ${GPU_STATUSES:-} ]]; then
  [[ -f $GPU_STATUSES ]] || { echo "backend_agreement: GPU_STATUSES=$GPU_STATUSES not found" >&2; exit 2; }
  backends=cpu
fi
for b in $backends; do
  jobs=()
  [[ $b == cpu ]] && jobs=(--jobs "$(nproc)")
  "$GRADE" batch "$WORK/class" --out "$WORK/$b" --suite "$SUITE" --backend "$b" --seed 12345 --quiet "${jobs[@]}" \
    > "$DEST/batch-$b.log" 2>&1 || { echo "backend_agreement: the $b batch failed:"; tail -20 "$DEST/batch-$b.log"; exit 1; }
  cp "$WORK/$b/gradebook.csv" "$DEST/gradebook-$b.csv"
  # Every sample's test statuses (the sample tests' seed), for comparing later without a GPU.
  python3 - "$WORK/$b" > "$DEST/statuses-$b.json" <<'PY'
import json, pathlib, sys
out = {}
for f in sorted(pathlib.Path(sys.argv[1]).glob("*/results.json")):
    r = json.loads(f.read_text())
    out[f.parent.name.replace("-", "/", 1)] = {
        "score": r["score"], "state": r["extra_data"]["state"],
        "tests": {t["name"]: t.get("status", "not measured") for t in r["tests"]}}
print(json.dumps(out, indent=1))
PY
done

python3 - "$WORK" "$DEST/agreement.txt" "${GPU_STATUSES:-}" <<'PY'
import json, pathlib, sys
work, table, gpu_statuses = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3]
# gpu_session.sh's file: {"bugs/floor_grid": {"score": 53, "tests": {"square_256": "passed", ...}}, ...}
given = json.loads(pathlib.Path(gpu_statuses).read_text()) if gpu_statuses else None
lines = [f"{'sample':<34} {'gpu':>6} {'cpu':>6} {'agree':>7}  disagreements (gpu/cpu)"]
total = agreed = 0
for sub in sorted((work / "class").iterdir()):
    res = {}
    for b in ("gpu", "cpu"):
        f = work / b / sub.name / "results.json"
        res[b] = json.loads(f.read_text()) if f.exists() else None
    if given is not None:
        g = given.get(sub.name.replace("-", "/", 1))
        res["gpu"] = {"score": g["score"], "tests": [{"name": n, "status": s} for n, s in g["tests"].items()]} if g else None
    if not res["gpu"] or not res["cpu"]:
        lines.append(f"{sub.name:<34} missing results"); continue
    status = {b: {t["name"]: t.get("status") for t in res[b]["tests"]} for b in res}
    # What the CPU backend grades (it gives the performance cases no points and skips them).
    graded = {t["name"] for t in res["cpu"]["tests"] if t.get("max_score", 0) > 0}
    cmp = [n for n, s in status["cpu"].items()
           if n in graded and s in ("passed", "failed") and status["gpu"].get(n) in ("passed", "failed")]
    diff = [f"{n}({status['gpu'][n][0]}/{status['cpu'][n][0]})" for n in cmp if status["gpu"][n] != status["cpu"][n]]
    total += len(cmp); agreed += len(cmp) - len(diff)
    lines.append(f"{sub.name:<34} {res['gpu']['score']:>6.0f} {res['cpu']['score']:>6.0f} "
                 f"{len(cmp) - len(diff):>3}/{len(cmp):<3}  {' '.join(diff)}")
lines.append(f"verdicts compared: {total}, equal: {agreed}, different: {total - agreed}")
table.write_text("\n".join(lines) + "\n")
print(table.read_text(), end="")
PY
