#!/usr/bin/env bash
# What a crashing submission costs the GPU (a benchmark, not a test): crash
# cycles of the block_1d sample (start a process, fault, kill and reap), by
# grid size and on partitions of the SMs, and how long a small kernel in
# another process is held up meanwhile. Needs a GPU. From the repository root:
#   grader/bench/crash_cost.sh
# Columns: sms (partition, or all), size (the case is size^3), reps, medians
# in ms of start (process to CUDA ready), fault (launch to the error) and reap
# (kill to reaped), and the mean cycle with the next process started ahead.
set -euo pipefail
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
ARCH=${ARCH:-sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)}
BIN=$(mktemp -d /tmp/sg-crash-cost-XXXXXX)
trap 'rm -rf "$BIN"' EXIT
"$NVCC" -std=c++17 -O2 -arch="$ARCH" -Igrader/src -o "$BIN/crash_cost" grader/bench/crash_cost.cu
C=$BIN/crash_cost
echo "sms         size  reps    start    fault     reap  cycle(ms) crashed"
for s in 16 64 176 1024; do timeout -k 2 120 "$C" cycle "$s" 6; done
for p in 8 16 64; do timeout -k 2 120 "$C" cycle 1024 6 "$p"; done
echo "a small kernel alone, then beside crash cycles on the whole GPU and on 16 SMs:"
timeout -k 2 60 "$C" bystander 4
timeout -k 2 120 "$C" cycle 1024 12 >/dev/null & timeout -k 2 60 "$C" bystander 4; wait
timeout -k 2 120 "$C" cycle 1024 12 16 >/dev/null & timeout -k 2 60 "$C" bystander 4; wait
echo "four crash loops at once (as four gradings of one GPU), whole GPU then 16 SMs:"
for i in 1 2 3 4; do timeout -k 2 120 "$C" cycle 1024 6 & done; wait
for i in 1 2 3 4; do timeout -k 2 120 "$C" cycle 1024 6 16 & done; wait
