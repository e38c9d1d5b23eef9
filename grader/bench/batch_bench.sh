#!/usr/bin/env bash
# Batch-grading throughput (a benchmark, not a test): grades a synthetic class
# made from the kit's own sample submissions and prints submissions per minute
# and where the time goes (compile vs the rest), on one GPU and, where the
# machine has them, on two. Run from the repository root after `make`:
#   grader/bench/batch_bench.sh [N_SUBMISSIONS=60] [SUITE=testcases/default.yaml]
# Environment: GRADE (default build/grade), BACKEND (default: gpu when
# nvidia-smi lists a GPU, else cpu), JOBS (grade processes per GPU to try,
# e.g. "4 8"; default the batch's own choice), KEEP=1 keeps the work folder.
set -euo pipefail

N=${1:-60}
SUITE=${2:-testcases/default.yaml}
GRADE=${GRADE:-build/grade}
[[ -x $GRADE ]] || { echo "batch_bench: $GRADE not found; run make first" >&2; exit 2; }
[[ -f $SUITE ]] || { echo "batch_bench: suite $SUITE not found" >&2; exit 2; }

GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
BACKEND=${BACKEND:-$([[ ${GPUS:-0} -gt 0 ]] && echo gpu || echo cpu)}
WORK=$(mktemp -d /tmp/sg-batch-bench-XXXXXX)
[[ ${KEEP:-0} == 1 ]] || trap 'rm -rf "$WORK"' EXIT

# The class: the reference, the handout skeleton and every bug sample, in turn.
mapfile -t KERNELS < <(printf '%s\n' reference/kernel.cu student/kernel.cu; ls grader/samples/bugs/*/kernel.cu)
for ((i = 0; i < N; i++)); do
  d=$(printf '%s/class/s%03d' "$WORK" "$i")
  mkdir -p "$d"
  cp "${KERNELS[i % ${#KERNELS[@]}]}" "$d/kernel.cu"
done

# One batch run; prints a table row.
run() {  # label, extra options...
  local label=$1; shift
  local out="$WORK/out-$label" start end
  start=$(date +%s.%N)
  "$GRADE" batch "$WORK/class" --out "$out" --suite "$SUITE" --backend "$BACKEND" --seed 1 --quiet "$@"
  end=$(date +%s.%N)
  python3 - "$out" "$label" "$start" "$end" "$N" <<'PY'
import json, pathlib, sys
out, label, start, end, n = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
compile_s = total_s = 0.0
phases = {}
for f in pathlib.Path(out).glob("*/results.json"):
    r = json.loads(f.read_text())
    extra = r.get("extra_data", {})
    c = extra.get("compile_time", 0)
    compile_s += c if isinstance(c, (int, float)) else 0
    total_s += r.get("execution_time", 0) or 0
    for k, v in (extra.get("phase_seconds") or {}).items():
        if isinstance(v, (int, float)):
            phases[k] = phases.get(k, 0.0) + v
wall = end - start
share = 100 * compile_s / total_s if total_s else 0
print(f"{label:<10} {n:>5} {wall:>9.1f} {60 * n / wall:>10.1f} {compile_s:>10.1f} {total_s - compile_s:>10.1f} {share:>9.0f}%")
order = ["setup", "build", "correctness", "sanitizer", "prepare", "gpu_wait", "performance"]
print("         mean seconds per submission: " +
      ", ".join(f"{k} {phases[k] / n:.2f}" for k in order if k in phases))
PY
}

echo "batch_bench: $N submissions, suite $SUITE, backend $BACKEND, $(nproc) CPUs, ${GPUS:-0} GPUs"
printf '%-10s %5s %9s %10s %10s %10s %10s\n' setup subs wall_s subs/min compile_s other_s compile
if [[ $BACKEND == cpu ]]; then
  run cpu
else
  # JOBS: grade processes per GPU to try (default: the batch's own choice).
  for j in ${JOBS:-0}; do
    extra=(); [[ $j == 0 ]] || extra=(--jobs "$j")
    run "1gpu-j$j" --gpus 0 "${extra[@]}"
    if [[ $GPUS -ge 2 ]]; then
      [[ $j == 0 ]] || extra=(--jobs $((2 * j)))
      run "2gpu-j$j" --gpus 0,1 "${extra[@]}"
    fi
  done
fi
echo "(compile_s and other_s add up the grade processes' own times, which overlap in parallel;"
echo " 'compile' is the share of grading time spent compiling and linking)"
