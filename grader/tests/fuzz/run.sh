#!/usr/bin/env bash
# Fuzzes the suite loader: builds grader/tests/fuzz/suite_fuzz.cpp with
# libFuzzer, AddressSanitizer and UBSan against yaml-cpp and the loader, runs
# N executions (default 100000) and prints executions, crashes and corpus size.
#
#   grader/tests/fuzz/run.sh [N]
#
# Needs clang++ and its fuzzer runtime (Debian/Ubuntu: apt-get install
# clang libclang-rt-14-dev) and libyaml-cpp-dev. Work files go to
# $FUZZ_WORK_DIR (default: ${TMPDIR:-/tmp}/sgemm-suite-fuzz); the seed corpus
# in the repository is only read. Exits 1 when a crash was found.
set -euo pipefail

runs="${1:-100000}"
if ! [[ "$runs" =~ ^[0-9]+$ ]]; then
  echo "usage: $0 [executions]   (got '$runs')" >&2
  exit 2
fi

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
work="${FUZZ_WORK_DIR:-${TMPDIR:-/tmp}/sgemm-suite-fuzz}"
cxx="${CXX_FUZZ:-clang++}"
mkdir -p "$work/corpus" "$work/artifacts"
rm -f "$work/artifacts/"*

if ! command -v "$cxx" >/dev/null; then
  echo "error: $cxx not found; install clang (and libclang-rt-14-dev for libFuzzer)" >&2
  exit 2
fi

echo "building $work/suite_fuzz with $cxx ..."
if ! "$cxx" -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
    -I"$root/grader/src" \
    "$here/suite_fuzz.cpp" "$root"/grader/src/suite/*.cpp "$root/grader/src/model/names.cpp" \
    -lyaml-cpp -o "$work/suite_fuzz" 2>"$work/build.log"; then
  cat "$work/build.log" >&2
  echo "error: build failed (libFuzzer needs the clang runtime: apt-get install libclang-rt-14-dev)" >&2
  exit 2
fi

echo "fuzzing for $runs executions (log: $work/fuzz.log) ..."
set +e
# New inputs go to the first corpus folder; the seeds and the shipped suites are read only.
"$work/suite_fuzz" -runs="$runs" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
  -dict="$here/suite.dict" -artifact_prefix="$work/artifacts/" -print_final_stats=1 \
  "$work/corpus" "$here/corpus" "$root/testcases" >"$work/fuzz.log" 2>&1
status=$?
set -e

executions="$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/fuzz.log" | tail -1)"
crashes="$(find "$work/artifacts" -type f | wc -l)"
corpus="$(find "$work/corpus" -type f | wc -l)"
echo "executions: ${executions:-unknown}"
echo "crashes: $crashes"
echo "corpus size: $corpus files"
if [ "$crashes" -gt 0 ] || [ "$status" -ne 0 ]; then
  echo "libFuzzer exited with status $status; artifacts:" >&2
  find "$work/artifacts" -type f >&2
  grep -m1 -A20 -E 'ERROR|broken promise|deadly signal|uncaught' "$work/fuzz.log" >&2 || true
  exit 1
fi
