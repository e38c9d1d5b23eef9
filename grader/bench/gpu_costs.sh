#!/usr/bin/env bash
# Where one grading's GPU time goes (a benchmark, not a test): CUDA start-up
# alone and in parallel, one grading's phases, and the submission's kernel
# with and without each compute-sanitizer tool (memcheck_cost.sh). Run after `make`.
# Its CUDA processes ask for one work queue, as the grader's do
# (backends/gpu/cuda_connections.h); context_cost.sh compares that with the driver's 8.
# Usage: grader/bench/gpu_costs.sh [SUBMISSION=reference/kernel.cu]
set -u
SUB=${1:-reference/kernel.cu}
export PATH="$PATH:/usr/local/cuda/bin"
export CUDA_DEVICE_MAX_CONNECTIONS=1
W=$(mktemp -d /tmp/sg-costs-XXXXXX)
trap 'rm -rf "$W"' EXIT
now() { date +%s.%N; }
secs() { python3 -c "import sys;print('%.2f'%(float(sys.argv[2])-float(sys.argv[1])))" "$1" "$2"; }
timed() {  # label, command...: prints the wall time of one run
  local label=$1; shift; local t0; t0=$(now)
  timeout -k 5 120 "$@" >"$W/out.txt" 2>&1; local rc=$?
  printf '%-34s %6ss rc=%s\n' "$label" "$(secs "$t0" "$(now)")" "$rc"
}
nvidia-smi --query-gpu=name,persistence_mode,compute_mode --format=csv,noheader
# A process that starts CUDA, optionally allocates and touches MiB of device memory, and exits.
cat >"$W/ctx.cu" <<'CU'
#include <cstdlib>
int main(int argc, char** argv) {
  if (cudaFree(0) != cudaSuccess) return 1;
  size_t mib = argc > 1 ? strtoul(argv[1], 0, 10) : 0;
  void* p = 0;
  if (mib && (cudaMalloc(&p, mib << 20) != cudaSuccess || cudaMemset(p, 1, mib << 20) != cudaSuccess)) return 2;
  return cudaDeviceSynchronize() != cudaSuccess;
}
CU
nvcc -arch=sm_90 -o "$W/ctx" "$W/ctx.cu" -cudart static
timed "cuda start-up, 1 process" "$W/ctx"
timed "cuda start-up, 1 process again" "$W/ctx"
at_once() {  # label, n, gpus (1: the default device; 2: split over GPUs 0 and 1)
  local t0; t0=$(now)
  for ((i = 0; i < $2; i++)); do
    if [ "$3" = 2 ]; then CUDA_VISIBLE_DEVICES=$((i % 2)) timeout -k 5 120 "$W/ctx" & else timeout -k 5 120 "$W/ctx" & fi
  done
  wait
  printf '%-34s %6ss\n' "$1" "$(secs "$t0" "$(now)")"
}
for n in 4 8 16; do
  at_once "cuda start-up, $n at once" "$n" 1
  # The same split over two GPUs: start-ups taken one at a time by the host do not get faster.
  [ "$(nvidia-smi -L | grep -c '^GPU')" -ge 2 ] && at_once "cuda start-up, $n at once, 2 GPUs" "$n" 2
done
# A judge-like process: CUDA, cuBLAS and two DGEMMs (as the oracle does), to
# compare with bare start-up when many start at once.
cat >"$W/judge.cu" <<'CU'
#include <cublas_v2.h>
#include <vector>
int main() {
  cublasHandle_t h;
  if (cudaFree(0) != cudaSuccess || cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 1;
  for (int n : {256, 1024}) {
    double *a = 0, *c = 0;
    std::vector<double> host(size_t(n) * n, 1.0);
    if (cudaMalloc(&a, 8ull * n * n) != cudaSuccess || cudaMalloc(&c, 8ull * n * n) != cudaSuccess) return 2;
    cudaMemcpy(a, host.data(), 8ull * n * n, cudaMemcpyHostToDevice);
    const double one = 1, zero = 0;
    if (cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, a, n, &zero, c, n) != CUBLAS_STATUS_SUCCESS) return 3;
    if (cudaMemcpy(host.data(), c, 8ull * n * n, cudaMemcpyDeviceToHost) != cudaSuccess) return 4;
    cudaFree(a);
    cudaFree(c);
  }
  return cublasDestroy(h) != CUBLAS_STATUS_SUCCESS;
}
CU
nvcc -arch=sm_90 -o "$W/judge" "$W/judge.cu" -lcublas
t0=$(now)
for ((i = 0; i < 16; i++)); do timeout -k 5 120 "$W/judge" & done
wait
printf '%-34s %6ss\n' "judge-like (cuBLAS), 16 at once" "$(secs "$t0" "$(now)")"
t0=$(now)
for ((i = 0; i < 8; i++)); do timeout -k 5 120 "$W/ctx" 512 & done
wait
printf '%-34s %6ss\n' "start-up + 512 MiB, 8 at once" "$(secs "$t0" "$(now)")"
build/grade --quiet --out "$W/res" --seed 7 "$SUB" >"$W/grade.txt" 2>&1
python3 - "$W/res/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
x = r["extra_data"]
print("one grading alone: %.2f s, score %s; phases: %s" % (r["execution_time"], r["score"],
      ", ".join("%s %.2f" % kv for kv in x.get("phase_seconds", {}).items())))
for t in r["tests"]:
    s = t.get("extra_data", {}).get("seconds", 0)
    tm = t.get("extra_data", {}).get("timing")
    if isinstance(s, (int, float)) and s > 0.15 or tm:
        print("   %-26s %.2f s" % (t["name"], s) + ("  (medians: student %.2f, reference %.2f, naive %.2f ms)" %
              (tm["student_ms"], tm["reference_ms"], tm["naive_ms"]) if tm else ""))
PY
# Each compute-sanitizer tool on the submission's kernel, launch by launch
# (the runner takes its launches through the protocol only, so a probe of
# its own stands in for it).
grader/bench/memcheck_cost.sh "$SUB"
