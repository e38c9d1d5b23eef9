#!/usr/bin/env bash
# Checks the trusted timing on a GPU machine (H100, CUDA 13), from the kit's root:
#   bash grader/tools/gpu_check_timing.sh
# Builds everything, runs the timing/protocol/Freivalds/link unit tests, grades the naive kernel
# and the two timing cheats (hostile/replays_first_output, hostile/patches_baseline_table) once
# each, then grade_bench (10 gradings of the reference: scores, wall times, speedup spread).
# Logs under "$OUT/timing/" (OUT defaults to ./gpu-logs). Prints a table last.
# Success: unit tests "N passed, 0 failed"; replays_first_output 86 with both performance tests
# failed, verdict "no performance points: the timed launch's output was wrong"; naive and
# patches_baseline_table in [81, 95] with similar speedups (timed as the naive kernel they are);
# grade_bench: scores [100.0], speedup medians within 0.9-1.1, spread under 1%, and the
# request overhead it prints (ms) small beside the reference's time.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
log=${OUT:-$root/gpu-logs}/timing
mkdir -p "$log"
start=$(date +%s)

timeout -k 10 200 make -j16 all >"$log/make.txt" 2>&1 || { echo "make failed (see $log/make.txt)"; tail -20 "$log/make.txt"; exit 1; }
timeout -k 10 120 build/grader_tests \
  --gtest_filter='Timing.*:Protocol.*:Freivalds.*:SeededInputs.*:SeededDigest.*:RunnerLink.*:TimedSamples.*:TrustedTiming.*' >"$log/unit.txt" 2>&1
unit=$(tail -1 "$log/unit.txt")

grade_one() {  # name submission
  local name=$1 sub=$2
  timeout -k 10 90 build/grade --quiet --out "$log/$name" "$sub" >"$log/$name.txt" 2>&1
  python3 - "$log/$name" "$name" <<'PY'
import json, sys
d, name = sys.argv[1], sys.argv[2]
try:
    r = json.load(open(f"{d}/results.json"))
except Exception as e:
    print(f"{name:24s} no result ({e})"); sys.exit()
score = r["score"]
perf = [t for t in r["extra_data"]["tests"] if t["name"].endswith("/performance")]
cells = []
for t in perf:
    tm = t.get("timing") or {}
    cells.append(f'{t["name"].split("/")[0]}: {t.get("status")} sp={tm.get("speedup", 0):.3f} ovh={tm.get("overhead_ms", 0):.3f}ms :: {str(t.get("verdict", t.get("output", "")))[:90]}')
print(f"{name:24s} score {score:6.2f}")
for c in cells: print("    " + c)
PY
}
{
  echo "== unit: $unit"
  grade_one naive reference/naive.cu
  grade_one replays_first_output grader/samples/hostile/replays_first_output/kernel.cu
  grade_one patches_baseline_table grader/samples/hostile/patches_baseline_table/kernel.cu
} >"$log/summary.txt" 2>&1
OUT="$log" timeout -k 10 170 bash grader/bench/grade_bench.sh reference/kernel.cu 10 >"$log/grade_bench.txt" 2>&1
echo "==== gpu_check_timing ($(( $(date +%s) - start )) s; logs in $log)"
cat "$log/summary.txt"
echo "== grade_bench (10 gradings of the reference)"
cat "$log/grade_bench.txt"
