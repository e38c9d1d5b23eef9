#!/usr/bin/env bash
# Packs the Gradescope autograder: `bash grader/gradescope/make_zip.sh OUT.zip`
# (what `make gradescope` runs). The zip holds setup.sh and run_autograder at
# its top, as Gradescope requires, beside the kit sources the CUDA-free grader
# is built from: the Makefile, grader/src, the CUDA-on-CPU layer (grader/cudacpu),
# the suites. No
# reference solution and no student handout go in: the CPU backend needs
# neither.
set -euo pipefail
out="${1:?usage: make_zip.sh OUT.zip}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
case "$out" in /*) ;; *) out="$root/$out" ;; esac

stage="$(mktemp -d "${TMPDIR:-/tmp}/sg-gradescope-XXXXXX")"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/grader/tools" "$stage/grader/gradescope" "$stage/testcases" "$(dirname "$out")"

# Sources only: no objects, dependency files or editor leftovers.
copy_tree() {
  (cd "$root" && find "$1" -type f \( -name '*.cpp' -o -name '*.h' -o -name '*.md' \) -print0) |
    while IFS= read -r -d '' f; do
      mkdir -p "$stage/$(dirname "$f")"
      cp -p "$root/$f" "$stage/$f"
    done
}
# (The GPU runner, a .cu file built by nvcc only, stays behind: Gradescope has no nvcc.)
copy_tree grader/src
copy_tree grader/cudacpu/include
copy_tree grader/cudacpu/lib
cp -p grader/cudacpu/runner_main.cpp grader/cudacpu/README.md "$stage/grader/cudacpu/"
cp -p Makefile "$stage/"
cp -p grader/tools/install-deps.sh "$stage/grader/tools/"
cp -p testcases/*.yaml testcases/README.md "$stage/testcases/"
cp -p grader/gradescope/setup.sh grader/gradescope/run_autograder grader/gradescope/README.md "$stage/grader/gradescope/"
cp -p grader/gradescope/setup.sh grader/gradescope/run_autograder "$stage/"
chmod 755 "$stage/setup.sh" "$stage/run_autograder"

# Guard: nothing of the instructor's side may travel.
if [ -e "$stage/reference" ] || find "$stage" -name 'naive.cu' -o -name 'kernel.cu' | grep -q .; then
  echo "make_zip: refusing to pack a reference or student kernel" >&2
  exit 1
fi

rm -f "$out"
if command -v zip >/dev/null; then
  (cd "$stage" && zip -qr -X "$out" .)
else
  # zipfile keeps the Unix modes, so run_autograder stays executable.
  (cd "$stage" && python3 -c 'import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    for d, _, fs in os.walk("."):
        for f in sorted(fs):
            p = os.path.join(d, f)
            z.write(p, os.path.relpath(p, "."))' "$out")
fi
echo "$out: $(cd "$stage" && find . -type f | wc -l) files"
