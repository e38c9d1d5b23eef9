#!/usr/bin/env bash
# `make test`: runs build/grader_tests with the CPU-backend grading of the
# sample submissions and the slowest CPU-backend batch tests (one CPU each,
# none on a GPU) beside everything else, which runs in one process so that GPU
# tests never overlap. The slow tests are one queue that one worker a core
# takes from, a test a process, at a lower priority (nice): everything else
# keeps its core, and the workers take every core once it is done. (Fixed
# gtest shards ended up to 130 s apart on 2 cores; a queue ends its workers
# within one test of each other.) Prints every part's output, then one line:
# "N passed, N failed, N skipped". Exit status 1 when anything failed.
set -u
BIN=${1:-build/grader_tests}
SLOW='*CpuBackendVerdict*:BatchIsolation.*:BatchEndToEnd.IdsCannotTakeClassFilesOrEachOthersFolder'
cpus=$(nproc 2>/dev/null || echo 2)
workers=$(( cpus > 1 ? cpus : 1 ))
logs=$(mktemp -d /tmp/sg-tests-XXXXXX)
trap 'rm -rf "$logs"' EXIT
"$BIN" --gtest_filter="-$SLOW" >"$logs/main.log" 2>&1 &
pids=($!)
# The queue: one full test name a line, as --gtest_filter takes it
# ("Samples/SampleGrading." and "  CpuBackendVerdict/x  # GetParam() = ..." make one).
"$BIN" --gtest_list_tests --gtest_filter="$SLOW" | awk '/^[^ ]/ { suite = $1; next } { print suite $1 }' >"$logs/queue"
echo 0 >"$logs/next"
# The next test's line number (from 1), taken under a lock: each test goes to exactly one worker.
take() { flock "$logs/next" sh -c 'n=$(($(cat "$1") + 1)); echo $n >"$1"; echo $n' _ "$logs/next"; }
worker() {
  local n name
  while n=$(take) && name=$(sed -n "${n}p" "$logs/queue") && [[ -n $name ]]; do
    nice -n 10 "$BIN" --gtest_filter="$name" >"$logs/slow-$(printf '%04d' "$n").log" 2>&1
  done
}
for ((i = 0; i < workers; i++)); do
  worker &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
queued=$(wc -l <"$logs/queue")
ran=$(find "$logs" -name 'slow-*.log' | wc -l)
if [[ $ran != "$queued" ]]; then
  echo "run-tests: $ran of the $queued queued tests ran" >&2
  status=1
fi
passed=0 failed=0 skipped=0
for f in "$logs/main.log" "$logs"/slow-*.log; do
  [[ -e $f ]] || continue
  cat "$f"
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$f" | tail -1)
  if [[ -z $line ]]; then
    echo "run-tests: $(basename "$f" .log) ended without its summary line" >&2
    status=1
    continue
  fi
  read -r p _ f2 _ s _ <<<"${line//,/}"
  passed=$((passed + p)) failed=$((failed + f2)) skipped=$((skipped + s))
done
echo "$passed passed, $failed failed, $skipped skipped"
[[ $status == 0 && $failed == 0 ]]
