#!/usr/bin/env bash
# Benchmark (not a test): grade one submission N times with the default suite
# and report the time to grade (compile vs run) and the spread of each
# performance case's speedup. Usage: grader/bench/grade_bench.sh [SUBMISSION] [N]
set -u
sub=${1:-reference/kernel.cu}
n=${2:-10}
out=${OUT:-$PWD/bench-out}/grade-bench
rm -rf "$out" && mkdir -p "$out"
for i in $(seq 1 "$n"); do
  start=$(date +%s.%N)
  build/grade --quiet --out "$out/$i" "$sub" >"$out/$i.txt" 2>&1 || echo "grading $i failed (see $out/$i.txt)"
  python3 -c "import sys,time;print(round(time.time()-float(sys.argv[1]),2))" "$start" >"$out/$i.wall"
done
python3 - "$out" "$n" "$sub" <<'PY'
import json, statistics as st, sys
out, n, sub = sys.argv[1], int(sys.argv[2]), sys.argv[3]
walls, compiles, scores, speed, overhead = [], [], [], {}, {}
for i in range(1, n + 1):
    r = json.load(open(f"{out}/{i}/results.json"))
    walls.append(float(open(f"{out}/{i}.wall").read()))
    compiles.append(r["extra_data"]["compile_time"])
    scores.append(r["score"])
    for t in r["extra_data"]["tests"]:
        tm = t.get("timing")
        if tm and tm.get("speedup"):
            speed.setdefault(t["name"], []).append(tm["speedup"])
        if tm and tm.get("overhead_ms"):
            overhead.setdefault(t["name"], []).append(tm["overhead_ms"])
print(f"{sub}: {n} gradings, default suite")
print("  wall per grading   " + " ".join(f"{w:.2f}" for w in walls) + " s")
print(f"  wall per grading   median {st.median(walls):.2f} s  (min {min(walls):.2f}, max {max(walls):.2f})")
print(f"  compile and link   median {st.median(compiles):.2f} s; run {st.median(walls) - st.median(compiles):.2f} s")
print(f"  scores             {sorted(set(scores))}")
for name, v in speed.items():
    print(f"  {name:34s} speedup median {st.median(v):.4f} min {min(v):.4f} max {max(v):.4f} spread {100*(max(v)/min(v)-1):.2f}%")
for name, v in overhead.items():
    print(f"  {name:34s} request overhead subtracted: median {st.median(v):.4f} ms (min {min(v):.4f}, max {max(v):.4f})")
PY
