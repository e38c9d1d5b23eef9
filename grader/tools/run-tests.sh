#!/usr/bin/env bash
# `make test`: runs build/grader_tests with the CPU-backend grading of the
# sample submissions and the slowest CPU-backend batch tests (one CPU each,
# none on a GPU) in parallel shards beside everything else, which runs in one
# process so that GPU tests never overlap. (With those batch tests in that
# process it ended 260 s after the shards on 2 cores.) The shards run at a lower priority (nice): everything else keeps
# its core, and the shards take every core once it is done (on 2 cores that
# is 12 minutes instead of 18). Prints every part's output, then one line:
# "N passed, N failed, N skipped". Exit status 1 when anything failed.
set -u
BIN=${1:-build/grader_tests}
SLOW='*CpuBackendVerdict*:BatchIsolation.*:BatchEndToEnd.IdsCannotTakeClassFilesOrEachOthersFolder'
cpus=$(nproc 2>/dev/null || echo 2)
shards=$(( cpus > 1 ? cpus : 1 ))
logs=$(mktemp -d /tmp/sg-tests-XXXXXX)
trap 'rm -rf "$logs"' EXIT
"$BIN" --gtest_filter="-$SLOW" >"$logs/main.log" 2>&1 &
pids=($!)
for ((i = 0; i < shards; i++)); do
  GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i nice -n 10 "$BIN" --gtest_filter="$SLOW" >"$logs/shard-$i.log" 2>&1 &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
passed=0 failed=0 skipped=0
for f in "$logs/main.log" "$logs"/shard-*.log; do
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
