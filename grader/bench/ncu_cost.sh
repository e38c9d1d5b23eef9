#!/usr/bin/env bash
# What the structure check's ncu run costs (a benchmark, not a test): the
# profiled launch after 0, 1 and 2 profiled warm-up kernels (the first kernel
# ncu profiles in a process carries its set-up), whether two ncu can profile
# at once, whether the count holds beside another process's kernels, and how
# a timing beside ncu runs fares. Needs a GPU and ncu. From the repository root:
#   grader/bench/ncu_cost.sh
set -euo pipefail
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
ARCH=${ARCH:-sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)}
W=$(mktemp -d /tmp/sg-ncu-cost-XXXXXX)
trap 'rm -rf "$W"' EXIT
"$NVCC" -std=c++17 -O2 -arch="$ARCH" -o "$W/ncu_cost" grader/bench/ncu_cost.cu
M=smsp__sass_inst_executed_op_global_ld.sum
# One profiled run: label, warm-ups; prints the launches' seconds and the counts.
run() {
  local out=$W/out-$1 err=$W/err-$1
  touch "$W/go"
  TMPDIR=$W timeout -k 5 60 "$NCU" --csv --metrics $M --print-units base --clock-control none --cache-control none \
    --apply-rules no "$W/ncu_cost" profiled "$2" "$W/go" >"$out" 2>"$err" || true
  printf '%-12s %s | loads: %s | %s\n' "$1" "$(grep -E '^(warm-up|measured)' "$err" | tr '\n' ' ')" \
    "$(grep -h "\"$M\"" "$out" | awk -F'","' '{print $NF}' | tr -d '"' | tr '\n' ' ')" \
    "$(grep -ho 'driver resource was unavailable' "$out" "$err" | head -1)"
}
echo "the profiled launch (naive 1024^3, 67,108,864 loads) after N profiled warm-ups:"
for n in 0 1 2 0 1 2; do run "warm-ups=$n" "$n"; done
echo "two ncu at once (one profiler per GPU):"
run both-a 0 & run both-b 0; wait
echo "beside another process's kernels (the count must not change):"
"$W/ncu_cost" hog 6 & sleep 1; run beside-hog 0; wait
echo "a timing alone, then beside ncu runs one after another:"
"$W/ncu_cost" timer 3
"$W/ncu_cost" timer 8 & for i in 1 2 3; do run "loop-$i" 0 >/dev/null; done; wait
