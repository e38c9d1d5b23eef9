#!/usr/bin/env bash
# One batched session on a GPU machine: build, grade the baselines, run the
# whole test suite (GPU tests sequentially; the CPU-backend sample gradings in
# parallel shards beside them), and print a short table last.
# Logs go to $OUT (or ./gpu-logs). Usage: bash grader/bench/gpu_session.sh
set -u
OUT=${OUT:-$PWD/gpu-logs}
mkdir -p "$OUT"
export PATH="$PATH:/usr/local/cuda/bin"
now() { date +%s.%N; }
since() { python3 -c "import sys,time;print(round(time.time()-float(sys.argv[1]),1))" "$1"; }
nvidia-smi --query-gpu=name,compute_cap,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
t0=$(now)
make -j16 all >"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
echo "build: $(since "$t0") s"
summary=()
for s in reference/kernel.cu reference/naive.cu student/kernel.cu; do
  name=$(basename "$(dirname "$s")")-$(basename "$s" .cu)
  t1=$(now)
  timeout -k 5 300 build/grade --out "$OUT/grades/$name" "$s" >"$OUT/grades-$name.txt" 2>&1
  rc=$?
  summary+=("$(printf '%-20s rc=%s %s wall %ss' "$name" "$rc" "$(grep -E 'Total|graded in' "$OUT/grades-$name.txt" | tr -s ' ' | tr '\n' ' ')" "$(since "$t1")")")
done
cp "$OUT/grades/reference-kernel/report.md" "$OUT/reference-report.md" 2>/dev/null
t2=$(now)
# CPU-backend sample gradings in 8 parallel shards, everything else in one sequential process.
for i in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$i timeout -k 5 540 build/grader_tests --gtest_filter='*CpuBackendVerdict*' \
    >"$OUT/cpu-shard-$i.log" 2>&1 &
done
timeout -k 5 540 build/grader_tests --gtest_filter='-*CpuBackendVerdict*' >"$OUT/tests.log" 2>&1
echo "gpu tests rc=$? in $(since "$t2") s"
wait
cat "$OUT"/cpu-shard-*.log >> "$OUT/tests-cpu.log"
grep -hE '^\[  FAILED  \] [A-Za-z]' "$OUT/tests.log" "$OUT/tests-cpu.log" | sed 's/, where.*//' | sort -u | head -30
# Why the first few non-sample tests failed.
grep -hE '^\[  FAILED  \] [A-Za-z]' "$OUT/tests.log" | grep -v Samples | sed 's/ (.*//' | sort -u | head -4 |
  while read -r _ _ _ name; do grep -B14 "^\[  FAILED  \] $name" "$OUT/tests.log" | grep -v '^\[' | head -12; done
python3 - "$PWD/build/test-grades/gpu" > "$OUT/sample-scores.txt" <<'PY'
import json, os, sys, glob
for f in sorted(glob.glob(sys.argv[1] + "/*/*/results.json")):
    r = json.load(open(f))
    failed = [t["name"] for t in r["tests"] if t.get("status") == "failed"]
    x = r["extra_data"]
    print("%-38s %6.2f %-16s %5.1fs  fail: %s" % (f.split("/gpu/")[1][:-13], r["score"], x["state"],
          r["execution_time"], ",".join(failed)[:150]))
PY
cat "$OUT/sample-scores.txt"
# Every sample's test statuses, for comparing with the CPU backend (backend_agreement.sh).
python3 - "$PWD/build/test-grades/gpu" > "$OUT/gpu-statuses.json" <<'PY'
import json, sys, glob
out = {}
for f in sorted(glob.glob(sys.argv[1] + "/*/*/results.json")):
    r = json.load(open(f))
    out[f.split("/gpu/")[1][:-13]] = {"score": r["score"], "tests": {t["name"]: t.get("status", "not measured") for t in r["tests"]}}
print(json.dumps(out, indent=1))
PY
printf '%s\n' "${summary[@]}"
echo "GPU:  $(tail -1 "$OUT/tests.log")"
echo "CPU shards: $(grep -h 'passed,' "$OUT"/cpu-shard-*.log | tr '\n' ' ')"
echo "left over: $(ps -eo pid,user,etime,cmd | grep -E 'sgemm-grade|runner' | grep -v grep | head -5)"
exit 0
