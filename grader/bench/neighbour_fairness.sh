#!/usr/bin/env bash
# Neighbour fairness (a benchmark with a verdict; GPU only): grades a class of
# correct kernels alone, one at a time, then as one batch beside neighbours
# that hang, launch a huge grid, crash on every launch and printf from every
# thread (grader/bench/hogs/), JOBS grade processes per GPU. Every correct
# kernel must get exactly its solo score on every correctness case and check;
# timed cases are listed beside them (their points follow the measured speed,
# which the table shows). "alone" counts the steps a grading ran again with the
# GPU to itself after a timeout beside the others. Exit 1 when a correct
# kernel lost or gained a point outside the timed cases.
#   grader/bench/neighbour_fairness.sh [OUT_DIR]
# Environment: GRADE (default build/grade), SUITE (default grader/bench/fairness.yaml),
# JOBS (per GPU, default 4), SEED (default 7).
set -euo pipefail

GRADE=${GRADE:-build/grade}
SUITE=${SUITE:-grader/bench/fairness.yaml}
JOBS=${JOBS:-4}
SEED=${SEED:-7}
OUT=${1:-$(mktemp -d /tmp/sg-fairness-XXXXXX)}
[[ -x $GRADE ]] || { echo "neighbour_fairness: $GRADE not found; run make first" >&2; exit 2; }
nvidia-smi -L >/dev/null 2>&1 || { echo "neighbour_fairness: needs a GPU" >&2; exit 2; }
rm -rf "$OUT/solo" "$OUT/class" "$OUT/batch"
mkdir -p "$OUT/solo" "$OUT/class"

CORRECT=(reference/kernel.cu grader/samples/styles/tile_32x32/kernel.cu
         grader/samples/styles/register_tiled_64x64/kernel.cu grader/samples/styles/template_constexpr/kernel.cu
         grader/samples/styles/device_helper/kernel.cu grader/samples/styles/host_lambda_ldg_restrict/kernel.cu)
HOGS=(deadlock huge_grid crash printf_flood)

# The class, a neighbour before each of the first correct kernels, so that
# the batch starts them side by side (it grades in the order of the names).
for i in "${!CORRECT[@]}"; do
  if (( i < ${#HOGS[@]} )); then
    mkdir -p "$OUT/class/s${i}a-hog-${HOGS[i]}"
    cp "grader/bench/hogs/${HOGS[i]}.cu" "$OUT/class/s${i}a-hog-${HOGS[i]}/kernel.cu"
  fi
  mkdir -p "$OUT/class/s${i}b-correct"
  cp "${CORRECT[i]}" "$OUT/class/s${i}b-correct/kernel.cu"
done

t0=$(date +%s)
for i in "${!CORRECT[@]}"; do
  timeout -k 10 300 "$GRADE" --suite "$SUITE" --seed "$SEED" --out "$OUT/solo/s${i}b-correct" \
    "$OUT/class/s${i}b-correct/kernel.cu" >"$OUT/solo/s${i}b-correct.log" 2>&1 || true
done
t1=$(date +%s)
timeout -k 10 1500 "$GRADE" batch "$OUT/class" --out "$OUT/batch" --suite "$SUITE" --seed "$SEED" \
  --jobs "$JOBS" --backend gpu --quiet >"$OUT/batch.log" 2>&1 || true
t2=$(date +%s)
echo "solo gradings: $((t1 - t0)) s; batch of $(ls "$OUT/class" | wc -l) beside the neighbours: $((t2 - t1)) s"

python3 - "$OUT" <<'PY'
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
def load(p):
    try:
        return json.loads(p.read_text())
    except Exception as e:
        return {"error": str(e)}
def scores(r):
    return {t["name"]: (t.get("score", 0), t.get("status", "")) for t in r.get("tests", [])}
bad = 0
def again(d):
    try:
        return (d / "grade.log").read_text(errors="replace").count("run again with the")
    except OSError:
        return 0
print(f"{'kernel':<22}{'solo':>7}{'batch':>7}{'alone':>6}  differences (test: solo -> batch)")
for solo in sorted((out / "solo").glob("*-correct")):
    s = load(solo / "results.json")
    b = load(out / "batch" / solo.name / "results.json")
    ss, bs = scores(s), scores(b)
    diffs = []
    for name in sorted(set(ss) | set(bs)):
        if ss.get(name, (None,))[0] != bs.get(name, (None,))[0]:
            timed = name.endswith("/performance")
            diffs.append(f"{name}: {ss.get(name, ('-',))[0]} -> {bs.get(name, ('-',))[0]}{' (timed)' if timed else ''}")
            bad += not timed
    print(f"{solo.name:<22}{s.get('score', '-'):>7}{b.get('score', '-'):>7}{again(out / 'batch' / solo.name):>6}  {'; '.join(diffs) or 'none'}")
for hog in sorted((out / "batch").glob("*-hog-*")):
    r = load(hog / "results.json")
    state = r.get("extra_data", {}).get("state", r.get("error", "?"))
    print(f"{hog.name:<22}{'':>7}{r.get('score', '-'):>7}{again(hog):>6}  neighbour ({state})")
print("FAIR: every correct kernel scored as alone outside the timed cases" if bad == 0
      else f"UNFAIR: {bad} correctness or check scores differ from the solo gradings")
sys.exit(1 if bad else 0)
PY
