#!/usr/bin/env bash
# One batched session on a GPU machine: build, grade the baselines, run the
# whole test suite, and print a short table last. Logs go to $OUT (or ./gpu-logs).
# Usage: bash grader/bench/gpu_session.sh [quick|full]
set -u
mode=${1:-full}
OUT=${OUT:-$PWD/gpu-logs}
mkdir -p "$OUT"
export PATH="$PATH:/usr/local/cuda/bin"
nvidia-smi --query-gpu=name,compute_cap,memory.total,memory.used --format=csv,noheader | tee "$OUT/gpu.txt"
t0=$(date +%s.%N)
make -j16 all >"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
echo "build: $(python3 -c "import time;print(round(time.time()-$t0,1))") s"
summary=()
for s in reference/kernel.cu reference/naive.cu student/kernel.cu; do
  name=$(basename "$(dirname "$s")")-$(basename "$s" .cu)
  t1=$(date +%s.%N)
  timeout -k 5 300 build/grade --seed 7 --out "$OUT/$name" "$s" >"$OUT/$name.txt" 2>&1
  rc=$?
  secs=$(python3 -c "import time;print(round(time.time()-$t1,1))")
  score=$(python3 -c "import json;r=json.load(open('$OUT/$name/results.json'));print(round(r['score'],2))" 2>/dev/null)
  summary+=("$(printf '%-22s rc=%s score=%-6s %5.1fs' "$name" "$rc" "$score" "$secs")")
done
if [ "$mode" = full ]; then
  timeout -k 5 500 build/grader_tests >"$OUT/tests.log" 2>&1
  echo "tests rc=$?"
  grep -E '^\[  FAILED|^\[  SKIPPED' "$OUT/tests.log" | head -40
fi
grep -E 'speedup|implausible' "$OUT"/reference-kernel/report.md "$OUT"/reference-naive/report.md 2>/dev/null | head -8
printf '%s\n' "${summary[@]}"
[ "$mode" = full ] && tail -1 "$OUT/tests.log"
ps -eo pid,user,etime,cmd | grep -E 'runner|sgemm|sleep' | grep -v grep | head
exit 0
