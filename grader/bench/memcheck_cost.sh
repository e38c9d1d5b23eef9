#!/usr/bin/env bash
# What compute-sanitizer costs per launch, and per error (a benchmark, not a
# test; GPU only): each kernel is linked into a small program that launches
# basicSgemm once at each shape given, on buffers of exactly the shape's size,
# and prints each launch's milliseconds. Run plain and under each tool option;
# one line per run: wall seconds, the launches' sum and longest, the tool's
# error count. The grader's own options are "memcheck" and "racecheck".
#   grader/bench/memcheck_cost.sh [KERNEL.cu ...]   (default: the reference and every bug sample)
# Environment: SHAPES (M K N triples; default the default suite's small shapes in memcheck's order),
# VARIANTS (default: plain memcheck memcheck_nobt memcheck_noheap racecheck; also
# racecheck_wN: racecheck with N CPU workers).
set -u
export PATH="$PATH:/usr/local/cuda/bin"
W=$(mktemp -d /tmp/sg-memcheck-XXXXXX)
trap 'rm -rf "$W"' EXIT
# The grader's memcheck order for the default suite (sanitizer_shapes.h): the
# check's shape, then the small cases smallest first.
SHAPES=${SHAPES:-"40 50 36 1 1 1 64 1 48 50 7 70 1 300 200 300 200 1 96 80 112 2000 64 17 17 64 2000 196 128 96 128 196 96 128 96 196 120 201 250 128 384 256 256 256 256"}
if [ $# -gt 0 ]; then KERNELS=("$@"); else
  KERNELS=(reference/kernel.cu)
  for k in grader/samples/bugs/*/kernel.cu; do [[ $k == *compile_error* ]] || KERNELS+=("$k"); done
fi
CS="compute-sanitizer --error-exitcode 10 --print-limit 20"
for src in "${KERNELS[@]}"; do
  name=$(basename "$(dirname "$src")"); [[ $src == reference/kernel.cu ]] && name=reference
  nvcc -arch=sm_90 -O2 -o "$W/$name" "$(dirname "$0")/shape_probe.cu" "$src" >"$W/$name.build" 2>&1 || { echo "$name: build failed"; continue; }
  for v in ${VARIANTS:-plain memcheck memcheck_nobt memcheck_noheap racecheck}; do
    case $v in
      plain) cmd=("$W/$name" $SHAPES) ;;
      memcheck) cmd=($CS --tool memcheck --check-device-heap yes "$W/$name" $SHAPES) ;;
      memcheck_nobt) cmd=($CS --tool memcheck --check-device-heap yes --show-backtrace no "$W/$name" $SHAPES) ;;
      memcheck_noheap) cmd=($CS --tool memcheck --check-device-heap no "$W/$name" $SHAPES) ;;
      racecheck) cmd=($CS --tool racecheck "$W/$name" 71 39 50) ;;
      racecheck_w*) cmd=($CS --tool racecheck --racecheck-num-workers "${v#racecheck_w}" "$W/$name" 71 39 50) ;;
      *) echo "memcheck_cost: unknown variant $v" >&2; exit 2 ;;
    esac
    t0=$(date +%s.%N)
    timeout -k 2 60 "${cmd[@]}" >"$W/out.txt" 2>&1
    rc=$?
    wall=$(python3 -c "import sys,time;print('%.2f'%(time.time()-float(sys.argv[1])))" "$t0")
    launches=$(awk '/ launch [0-9.]+ ms/ {s += $3; if ($3 > m) {m = $3; at = $1}} END {printf "launches %.0f ms, longest %.0f at %s", s, m, at}' "$W/out.txt")
    errors=$(grep -o 'ERROR SUMMARY: [0-9]* error' "$W/out.txt" | head -1 | grep -o '[0-9]*')
    printf '%-24s %-16s rc=%-3s wall %6s s  %s  errors %s\n' "$name" "$v" "$rc" "$wall" "$launches" "${errors:--}"
  done
done
