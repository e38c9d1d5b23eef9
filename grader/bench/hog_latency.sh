#!/usr/bin/env bash
# What a hog does to the other processes on its GPU (a benchmark; GPU only):
# a victim process times a small tiled SGEMM launch (512^3) again and again,
# alone and beside hog processes (a deadlocked kernel, a huge grid, a printf
# flood, a process that faults on every launch), whole-GPU and on a green
# context of a few SMs, and prints one row per condition: the victim's
# context start-up, allocation and copies, and launch latency percentiles.
#   grader/bench/hog_latency.sh [SECONDS_PER_CONDITION]
set -euo pipefail
SECONDS_EACH=${1:-4}
BIN=${BIN:-/tmp/hog_latency}
nvidia-smi -L >/dev/null 2>&1 || { echo "hog_latency: needs a GPU" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
nvcc -O2 -std=c++17 -arch=${ARCH:-sm_90} -I"$root/grader/src" -o "$BIN" "$root/grader/bench/hog_latency.cu"

# condition: a label, then "KIND[:SMS]" once per hog process
CONDITIONS=(
  "alone"
  "deadlock deadlock"
  "deadlock-16sm deadlock:16"
  "3-deadlocks deadlock deadlock deadlock"
  "huge-grid grid"
  "huge-grid-16sm grid:16"
  "printf printf"
  "crash crash"
  "crash-16sm crash:16"
)
printf '%-16s %8s %9s %8s %8s %8s %9s %9s\n' condition ctx_ms alloc_ms p50_us p90_us p99_us max_us launches
for condition in "${CONDITIONS[@]}"; do
  read -r label hogs <<<"$condition"
  pids=()
  for h in $hogs; do
    kind=${h%%:*}; sms=0; [[ $h == *:* ]] && sms=${h##*:}
    timeout -k 2 $((SECONDS_EACH + 20)) "$BIN" hog "$kind" "$sms" >/dev/null 2>>/tmp/hog_latency.err &
    pids+=($!)
  done
  [[ ${#pids[@]} -gt 0 ]] && sleep 2  # the hogs' contexts made and their kernels running
  row=$(timeout -k 2 $((SECONDS_EACH + 60)) "$BIN" victim "$SECONDS_EACH" 2>&1 || echo "victim failed")
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  pkill -9 -f "$BIN hog" 2>/dev/null || true
  wait 2>/dev/null || true
  printf '%-16s %s\n' "$label" "$row" | awk '{printf "%-16s %8s %9s %8s %8s %8s %9s %9s\n", $1, $2, $3, $4, $5, $6, $7, $8}'
  sleep 1
done
