#!/usr/bin/env bash
# What compute-sanitizer runs cost when many start at once, on one GPU and
# spread over two (a benchmark, not a test; GPU only). A small program with
# the reference kernel launches basicSgemm at the default suite's small shapes
# (memcheck's 15, as the grader asks) or at one shape (racecheck's); N copies
# start together, plain or under a tool, in the grader's environment (one work
# queue, eager module loading). One line per run: the wall time of all N and
# the CPU seconds they used (user + system, the tool's processes included).
#   grader/bench/sanitizer_crowd.sh [N=12]
# Environment: VARIANTS (default: plain memcheck racecheck memcheck_app_only
# memcheck_lazy; also racecheck_wN: racecheck with N CPU workers, where the
# tool's own default is automatic), HELP=FILE saves `compute-sanitizer --help` there.
set -u
N=${1:-12}
export PATH="$PATH:/usr/local/cuda/bin"
W=$(mktemp -d /tmp/sg-sanitizer-crowd-XXXXXX)
trap 'rm -rf "$W"' EXIT
nvcc -arch=native -O2 -o "$W/probe" "$(dirname "$0")/shape_probe.cu" "$(dirname "$0")/../../reference/kernel.cu" || exit 1
[ -z "${HELP:-}" ] || compute-sanitizer --help >"$HELP" 2>&1
GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
MEM_SHAPES="40 50 36 1 1 1 64 1 48 50 7 70 1 300 200 300 200 1 96 80 112 2000 64 17 17 64 2000 196 128 96 128 196 96 128 96 196 120 201 250 128 384 256 256 256 256"
CS="compute-sanitizer --error-exitcode 10 --print-limit 20"
ENV0="CUDA_DEVICE_MAX_CONNECTIONS=1 CUDA_MODULE_LOADING=EAGER"
command_of() {  # variant: sets CMD and ENVV
  ENVV=$ENV0
  case $1 in
    plain) CMD="$W/probe $MEM_SHAPES" ;;
    memcheck) CMD="$CS --tool memcheck --check-device-heap yes $W/probe $MEM_SHAPES" ;;
    racecheck) CMD="$CS --tool racecheck $W/probe 71 39 50" ;;
    memcheck_app_only) CMD="$CS --tool memcheck --check-device-heap yes --target-processes application-only $W/probe $MEM_SHAPES" ;;
    memcheck_lazy) CMD="$CS --tool memcheck --check-device-heap yes $W/probe $MEM_SHAPES"; ENVV="CUDA_DEVICE_MAX_CONNECTIONS=1 CUDA_MODULE_LOADING=LAZY" ;;
    racecheck_w*) CMD="$CS --tool racecheck --racecheck-num-workers ${1#racecheck_w} $W/probe 71 39 50" ;;
    *) echo "sanitizer_crowd: unknown variant $1" >&2; exit 2 ;;
  esac
}
# N processes at once, GPU g for process i taken from the list; prints the row.
crowd() {  # label, n, gpu list (e.g. "0" or "0 1")
  python3 - "$1" "$2" "$3" "$CMD" "$ENVV" <<'PY'
import os, resource, shlex, subprocess, sys, time
label, n, gpus, cmd, envv = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), shlex.split(sys.argv[4]), sys.argv[5]
env = dict(os.environ)
env.update(kv.split("=", 1) for kv in envv.split())
before = resource.getrusage(resource.RUSAGE_CHILDREN)
t0 = time.monotonic()
procs = []
for i in range(n):
    e = dict(env, CUDA_VISIBLE_DEVICES=gpus[i % len(gpus)])
    procs.append(subprocess.Popen(["timeout", "-k", "5", "120"] + cmd, env=e, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
codes = [p.wait() for p in procs]
wall = time.monotonic() - t0
after = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
bad = sum(c != 0 for c in codes)
print(f"{label:18s} n={n:2d} on GPU {'+'.join(gpus):3s}  wall {wall:6.2f} s  cpu {cpu:6.1f} s ({cpu / n:5.2f} s each)  failed {bad}")
PY
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1
for v in ${VARIANTS:-plain memcheck racecheck memcheck_app_only memcheck_lazy}; do
  command_of "$v"
  crowd "$v" 1 0
  crowd "$v" $((N / 2)) 0
  crowd "$v" "$N" 0
  [ "${GPUS:-0}" -lt 2 ] || crowd "$v" "$N" "0 1"
done
