#!/usr/bin/env bash
# GPU check of issue 16 items 2 and 3 (structure measured with ncu, memcheck
# over every small case, racecheck on a drawn shape). Run from the repo root
# on a machine with one GPU:   OUT=/some/dir bash grader/tools/gpu_check_structure.sh
# Logs go under $OUT/structure/; a short table is printed last.
# TABLE_S (default 110) caps the every-sample table's batch (it prints what finished).
set -u
OUT=${OUT:-/tmp/out}
dir="$OUT/structure"
mkdir -p "$dir"
TABLE_S=${TABLE_S:-110}
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)

echo "== build" | tee "$dir/summary.txt"
timeout -k 10 200 make -j16 all >"$dir/build.log" 2>&1 || { echo "build failed (see $dir/build.log)"; tail -20 "$dir/build.log"; exit 1; }

# Suites: the structure check alone (plus the one tiny case a suite must have),
# and the default suite's small correctness cases with the sanitizer check.
cat >"$dir/structure.yaml" <<'YAML'
suite: structure_only
cases:
  - {name: tiny, m: 16, k: 16, n: 16, points: 1}
checks:
  - {name: structure, kind: shared_memory_and_barrier, points: 5, min_reuse: 8}
YAML
cat >"$dir/sanitizer.yaml" <<'YAML'
suite: sanitizer_only
cases:
  - {name: square_256, m: 256, k: 256, n: 256, points: 1}
  - {name: rect_multiples, m: 128, k: 384, n: 256, points: 1}
  - {name: m_not_multiple, m: 196, k: 128, n: 96, points: 1}
  - {name: k_not_multiple, m: 128, k: 196, n: 96, points: 1}
  - {name: n_not_multiple, m: 128, k: 96, n: 196, points: 1}
  - {name: odd_120x201x250, m: 120, k: 201, n: 250, points: 1}
  - {name: tiny_1x1x1, m: 1, k: 1, n: 1, points: 1}
  - {name: k_is_1, m: 64, k: 1, n: 48, points: 1}
  - {name: m_is_1, m: 1, k: 300, n: 200, points: 1}
  - {name: n_is_1, m: 300, k: 200, n: 1, points: 1}
  - {name: k_below_tile, m: 50, k: 7, n: 70, points: 1}
  - {name: tall_skinny, m: 2000, k: 64, n: 17, points: 1}
  - {name: wide, m: 17, k: 64, n: 2000, points: 1}
  - {name: small_integers_exact, m: 96, k: 80, n: 112, inputs: small_int, points: 1}
checks:
  - {name: sanitizer, kind: sanitizer, m: 40, k: 50, n: 36, points: 6}
YAML

# The submission file of a sample folder (kernel.cu or expect.yaml's source:), or "".
sample_source() {
  local d=$1
  if [ -f "$d/kernel.cu" ]; then echo "$d/kernel.cu"; return; fi
  local src
  src=$(sed -n 's/^source: *//p' "$d/expect.yaml" 2>/dev/null | sed 's/ *#.*//' | head -n1)
  [ -n "$src" ] && [ -f "$d/$src" ] && echo "$d/$src"
}

# One field of the named test in results.json: status, verdict, reuse factor, seconds.
field() {
  python3 - "$1" "$2" "$3" <<'PY' 2>/dev/null
import json, sys
path, name, what = sys.argv[1:4]
try:
    r = json.load(open(path))
except Exception:
    print("-"); sys.exit()
for t in r.get("extra_data", {}).get("tests", []):
    if t.get("name") != name: continue
    if what == "factor":
        f = (t.get("reuse") or {}).get("factor")
        print("-" if f is None else "%.1f" % f)
    elif what == "source": print((t.get("reuse") or {}).get("source", "-"))
    elif what == "seconds": print("%.1f" % t.get("seconds", 0))
    else: print(t.get(what, "-"))
    break
else:
    print("-")
PY
}

grade_one() {  # name file suite
  local name=$1 file=$2 suite=$3 o="$dir/$1"
  mkdir -p "$o"
  local t0=$(date +%s.%N)
  timeout -k 10 200 build/grade --quiet --seed 12345 --backend gpu --suite "$suite" --out "$o" "$file" \
    >"$o/stdout.txt" 2>"$o/stderr.txt"
  echo "rc=$? seconds=$(python3 -c "import sys,time; print(round(time.time()-float(sys.argv[1]),1))" "$t0")" >"$o/rc.txt"
}

echo "== counters and ncu" | tee -a "$dir/summary.txt"
grep -i profiling /proc/driver/nvidia/params >"$dir/driver_params.txt" 2>&1
echo "ncu: $NCU ($(timeout -k 5 30 "$NCU" --version 2>&1 | tail -n1)); $(cat "$dir/driver_params.txt")" | tee -a "$dir/summary.txt"

# Raw ncu on a runner linked by hand with the reference and with the naive
# kernel: the CSV the judge parses, as root and as nobody; confirms the naive
# count 2*m*n*k/32 = 67108864 at 1024^3.
for which in reference/kernel.cu reference/naive.cu; do
  tag=$(basename "$which" .cu)
  timeout -k 10 120 nvcc -std=c++17 -O3 -arch=sm_90 -c "$which" -o "$dir/raw_$tag.o" >"$dir/raw_$tag.build.txt" 2>&1
  timeout -k 10 120 nvcc -o "$dir/raw_runner_$tag" build/runner/runner_main.o build/runner/runner_selftest.o \
    build/runner/ref_tiled.o build/runner/ref_naive.o build/runner/protocol.o "$dir/raw_$tag.o" -cudart static \
    >>"$dir/raw_$tag.build.txt" 2>&1
  chmod 755 "$dir" "$dir/raw_runner_$tag"
  timeout -k 10 60 "$NCU" --csv --metrics smsp__sass_inst_executed_op_global_ld.sum --print-units base \
    --clock-control none --cache-control none "$dir/raw_runner_$tag" --selftest 1 7 1024 1024 1024 \
    >"$dir/raw_ncu_${tag}_root.txt" 2>&1
  echo "raw ncu ($tag, root): exit $?; $(grep -c smsp__sass "$dir/raw_ncu_${tag}_root.txt") metric rows: $(grep smsp__sass "$dir/raw_ncu_${tag}_root.txt" | head -n2 | tr '\n' ' ')" | tee -a "$dir/summary.txt"
  mkdir -p "$dir/nobody_tmp" && chmod 777 "$dir/nobody_tmp"
  TMPDIR="$dir/nobody_tmp" timeout -k 10 60 setpriv --reuid=65534 --regid=65534 --clear-groups "$NCU" --csv \
    --metrics smsp__sass_inst_executed_op_global_ld.sum --print-units base --clock-control none --cache-control none \
    "$dir/raw_runner_$tag" --selftest 1 7 1024 1024 1024 >"$dir/raw_ncu_${tag}_nobody.txt" 2>&1
  echo "raw ncu ($tag, nobody): exit $?; $(grep -o 'ERR_NVGPUCTRPERM' "$dir/raw_ncu_${tag}_nobody.txt" | head -n1) $(grep smsp__sass "$dir/raw_ncu_${tag}_nobody.txt" | head -n1)" | tee -a "$dir/summary.txt"
done

echo "== structure (ncu) on the named kernels" | tee -a "$dir/summary.txt"
declare -A files=(
  [reference]=reference/kernel.cu
  [naive]=reference/naive.cu
  [decorative_shared]=grader/samples/hostile/decorative_shared/kernel.cu
  [tile_32x32]=grader/samples/styles/tile_32x32/kernel.cu
  [register_tiled_64x64]=grader/samples/styles/register_tiled_64x64/kernel.cu
)
order="reference naive decorative_shared tile_32x32 register_tiled_64x64"
for n in $order; do grade_one "s_$n" "${files[$n]}" "$dir/structure.yaml" & done
wait

echo "== sanitizer: memcheck over every small case, racecheck on a drawn shape" | tee -a "$dir/summary.txt"
grade_one san_reference reference/kernel.cu "$dir/sanitizer.yaml" &
grade_one san_oob_except_sanitizer_shape grader/samples/hostile/oob_except_sanitizer_shape/kernel.cu "$dir/sanitizer.yaml" &
grade_one san_row_guard_square_grid grader/samples/bugs/row_guard_square_grid/kernel.cu "$dir/sanitizer.yaml" &
wait

echo "== every sample's reuse factor (batch, ${TABLE_S} s at most)" | tee -a "$dir/summary.txt"
in="$dir/table_in"
rm -rf "$in" && mkdir -p "$in"
for d in grader/samples/{baseline,bugs,styles,real}/*/; do
  src=$(sample_source "${d%/}")
  [ -n "$src" ] || { echo "skip ${d%/}: no source here" >>"$dir/table_skipped.txt"; continue; }
  id=$(basename "$(dirname "$d")")__$(basename "$d")
  mkdir -p "$in/$id" && cp "$src" "$in/$id/kernel.cu"
done
timeout -k 10 "$TABLE_S" build/grade batch --quiet --backend gpu --seed 12345 --jobs 8 --suite "$dir/structure.yaml" \
  --out "$dir/table" "$in" >"$dir/table_batch.txt" 2>&1
echo "batch exit $?" >>"$dir/table_batch.txt"

{
  echo
  echo "STRUCTURE (ncu at 1024^3, min_reuse 8)"
  printf '%-24s %-8s %-8s %-7s %s\n' kernel factor source status verdict
  for n in $order; do
    r="$dir/s_$n/results.json"
    printf '%-24s %-8s %-8s %-7s %s\n' "$n" "$(field "$r" structure factor)" "$(field "$r" structure source)" \
      "$(field "$r" structure status)" "$(field "$r" structure verdict | cut -c1-110)"
  done
  echo "naive loads measured by ncu (detail): $(python3 -c "
import json; r=json.load(open('$dir/s_naive/results.json'))
print(next((t.get('output','') for t in r['tests'] if t['name']=='structure'), '-').splitlines()[1][:160])" 2>/dev/null)"
  echo
  echo "SANITIZER (memcheck over the small cases, racecheck drawn)"
  printf '%-34s %-7s %-6s %s\n' sample status secs verdict
  for n in reference oob_except_sanitizer_shape row_guard_square_grid; do
    r="$dir/san_$n/results.json"
    printf '%-34s %-7s %-6s %s\n' "$n" "$(field "$r" sanitizer status)" "$(field "$r" sanitizer seconds)" \
      "$(field "$r" sanitizer verdict | cut -c1-140)"
  done
  echo
  echo "EVERY SAMPLE (reuse factor at 1024^3; '-' = not measured, see verdict)"
  printf '%-52s %-8s %-8s %s\n' sample factor status verdict
  for d in "$in"/*/; do
    id=$(basename "$d")
    r=$(find "$dir/table" -path "*/$id/*" -name results.json 2>/dev/null | head -n1)
    if [ -z "$r" ]; then printf '%-52s %-8s %-8s %s\n' "$id" "-" "-" "not graded (time cap or failure)"; continue; fi
    printf '%-52s %-8s %-8s %s\n' "$id" "$(field "$r" structure factor)" "$(field "$r" structure status)" \
      "$(field "$r" structure verdict | cut -c1-90)"
  done
} | tee -a "$dir/summary.txt"
