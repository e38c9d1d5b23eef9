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
