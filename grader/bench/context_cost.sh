#!/usr/bin/env bash
# Where a CUDA process's start-up goes when many start at once (a benchmark,
# not a test; GPU only): N copies of context_cost.cu started together, in each
# mode and environment; one line per run: the wall time of all N, and the
# median and longest of each step as the processes measured it.
#   grader/bench/context_cost.sh [N=16]
# Environment: ENVS ("label|VAR=V ..." entries; default: the driver's 8 work
# queues, the grader's 1 (backends/gpu/cuda_connections.h), lazy module loading).
set -u
N=${1:-16}
export PATH="$PATH:/usr/local/cuda/bin"
W=$(mktemp -d /tmp/sg-context-XXXXXX)
trap 'rm -rf "$W"' EXIT
nvcc -arch=native -O2 -o "$W/p" "$(dirname "$0")/context_cost.cu" -cudart static -lcuda || exit 1
nvidia-smi --query-gpu=name,persistence_mode,driver_version --format=csv,noheader
run() {  # label, environment, mode, n
  local t0; t0=$(date +%s.%N)
  for ((i = 0; i < $4; i++)); do env $2 timeout -k 5 120 "$W/p" "$3" >"$W/o.$i" 2>&1 & done
  wait
  python3 - "$1" "$3" "$4" "$t0" "$(date +%s.%N)" "$W" <<'PY'
import statistics, sys
label, mode, n, t0, t1, w = sys.argv[1:]
rows = []
for i in range(int(n)):
    for line in open(f"{w}/o.{i}"):
        if line.startswith("P "):
            rows.append([float(x) for x in line.split()[1:]])
def step(i):
    if not rows: return "     -/-     "
    return f"{statistics.median(r[i] for r in rows):6.1f}/{max(r[i] for r in rows):6.1f}"
print(f"{label:8s} {mode:9s} n={int(n):2d} wall {float(t1) - float(t0):5.2f} s  ok {len(rows):2d}  "
      f"ms median/longest: init {step(0)}  context {step(1)}  launches {step(2)}  reset {step(3)}")
PY
}
ENVS=${ENVS:-"8-queues|CUDA_MODULE_LOADING=EAGER CUDA_DEVICE_MAX_CONNECTIONS=8
1-queue|CUDA_MODULE_LOADING=EAGER CUDA_DEVICE_MAX_CONNECTIONS=1
lazy|CUDA_MODULE_LOADING=LAZY CUDA_DEVICE_MAX_CONNECTIONS=8"}
while IFS= read -r entry; do
  [ -n "$entry" ] || continue
  for mode in init ctx ctx_exit ctx_reset launch; do
    run "${entry%%|*}" "${entry#*|}" "$mode" 1
    run "${entry%%|*}" "${entry#*|}" "$mode" "$N"
  done
done <<<"$ENVS"
