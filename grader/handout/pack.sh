#!/usr/bin/env bash
# Lays out the student handout in DEST/sgemm: the student files named on the
# command line (from student/) plus cudacpu/, the CUDA-on-CPU layer's headers
# and sources and the source rewriter, so that `make cpu` works from the
# handout alone. Copied at packing time, so the kit keeps one copy of each.
#   grader/handout/pack.sh DEST FILE...
# Never copies reference/ or the grader's suites, runners or secrets.
set -euo pipefail
[[ $# -ge 2 ]] || { echo "usage: $0 DEST FILE..." >&2; exit 2; }
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dest=$1/sgemm
shift
rm -rf "$dest"
mkdir -p "$dest"
for f in "$@"; do
  mkdir -p "$dest/$(dirname "$f")"
  cp "$root/student/$f" "$dest/$f"
done

bash "$root/grader/handout/stage_cudacpu.sh" "$dest/cudacpu"

# check/: the grader's sources and the CUDA-on-CPU layer's (the CUDA-free
# build: no .cu file, so not the GPU runner, which links the reference
# kernels) and the public suite, for
# `make check`.
check=$dest/check
(cd "$root" && find grader/src grader/cudacpu/include grader/cudacpu/lib grader/cudacpu/runner_main.cpp -type f \
   \( -name '*.cpp' -o -name '*.h' \) -print0) |
  while IFS= read -r -d '' f; do
    mkdir -p "$check/$(dirname "$f")"
    cp -p "$root/$f" "$check/$f"
  done
cp "$root/grader/handout/check/Makefile" "$root/grader/handout/check/check.sh" "$check/"
# The public suite: default.yaml without its hidden entries. Only one-line
# ({...}) entries can be dropped line by line; anything else hidden (a
# block-style entry, a hidden default) stops the packing.
awk '/visibility:[[:space:]]*hidden/ {
       if ($0 ~ /^[[:space:]]*-[[:space:]]*\{/) next
       print "pack.sh: cannot drop this hidden entry of testcases/default.yaml line by line: " $0 > "/dev/stderr"
       exit 3
     }
     { print }' "$root/testcases/default.yaml" > "$check/public.yaml"

# Guards: nothing of the instructor's side may travel.
hidden=$(awk '/visibility:[[:space:]]*hidden/ { if (match($0, /name:[[:space:]]*[A-Za-z0-9_.-]+/)) {
                 s = substr($0, RSTART, RLENGTH); sub(/name:[[:space:]]*/, "", s); print s } }' \
           "$root"/testcases/*.yaml)
for name in $hidden; do
  if grep -rqF -- "$name" "$dest"; then
    echo "pack.sh: the hidden case name $name would be shipped" >&2
    exit 1
  fi
done
if find "$dest" \( -name 'naive.cu' -o -name 'ref_*' -o -name 'reference' -o -name '*.o' -o -name '*.a' \) | grep -q .; then
  echo "pack.sh: refusing to ship a reference kernel or a built object" >&2
  exit 1
fi
