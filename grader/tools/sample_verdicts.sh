#!/usr/bin/env bash
# Grades every sample under grader/samples in one batch and writes one line
# per sample: name, state, score, and each test's status. Two runs (before and
# after a change, same backend, same seed) compared with `diff` show whether
# the change altered any verdict.
#   grader/tools/sample_verdicts.sh GRADE BACKEND OUT_DIR [SUITE] [SAMPLES_ROOT]
# GRADE is the grade program, BACKEND gpu|cpu; writes OUT_DIR/verdicts.tsv.
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 GRADE BACKEND OUT_DIR [SUITE] [SAMPLES_ROOT]" >&2; exit 2
fi
grade=$1 backend=$2 out=$3
root=$(cd "$(dirname "$0")/../.." && pwd)
suite=${4:-$root/testcases/default.yaml}
samples=${5:-$root/grader/samples}
subs="$out/submissions"
rm -rf "$subs" && mkdir -p "$subs"
# One submission folder per sample: group_name/kernel.cu (expect.yaml may point elsewhere with `source:`).
while IFS= read -r expect; do
  dir=$(dirname "$expect")
  rel=${dir#"$samples"/}
  src=$(sed -n 's/^source:[[:space:]]*\([^[:space:]#]*\).*/\1/p' "$expect" | head -1)
  src="$dir/${src:-kernel.cu}"
  [ -f "$src" ] || continue  # not materialised (e.g. the real-code corpus)
  mkdir -p "$subs/${rel//\//_}" && cp "$src" "$subs/${rel//\//_}/kernel.cu"
done < <(find "$samples" -name expect.yaml -not -path '*/.upstream/*' | sort)
"$grade" batch "$subs" --out "$out/batch" --backend "$backend" --suite "$suite" --seed 12345 --quiet \
  >"$out/batch.log" 2>&1 || { echo "sample_verdicts: the batch failed (see $out/batch.log)" >&2; exit 1; }
python3 - "$out/batch" >"$out/verdicts.tsv" <<'PY'
import json, os, sys
root = sys.argv[1]
for name in sorted(os.listdir(root)):
    p = os.path.join(root, name, "results.json")
    if not os.path.isfile(p):
        continue
    r = json.load(open(p))
    state = next((line.split(":", 1)[1].strip() for line in r.get("output", "").splitlines()
                  if line.startswith("State:")), "graded")
    tests = ",".join(f"{t['name']}={t.get('status', '?')}:{t.get('score', 0):g}" for t in r.get("tests", []))
    print(f'{name}\t{state}\t{r.get("score", 0):.2f}\t{tests}')
PY
echo "$(wc -l <"$out/verdicts.tsv") samples graded; $out/verdicts.tsv"
