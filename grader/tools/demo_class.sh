#!/usr/bin/env bash
# What `make grade` does without SUBMISSION: grades a small built-in class as
# one batch, so the first run shows the kit at work (a full score, a correct but
# slow kernel, classic bugs with their diagnoses, the untouched skeleton), then
# prints where the reports are and the commands for real submissions.
#   grader/tools/demo_class.sh --grade GRADE --out OUT --backend B [--suite FILE] [--seed N]
set -euo pipefail
grade="" out="" backend="" suite="" seed=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --grade|--out|--backend|--suite|--seed)
      [[ $# -ge 2 ]] || { echo "demo_class: $1 needs a value" >&2; exit 2; }
      declare "${1#--}=$2"
      shift 2 ;;
    *) echo "demo_class: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ -n $grade && -n $out && -n $backend ]] || {
  echo "usage: $0 --grade GRADE --out OUT --backend B [--suite FILE] [--seed N]" >&2; exit 2; }
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
class=$(cd "$(dirname "$grade")" && pwd)/demo-class
rm -rf "$class"
add() {  # id, file
  mkdir -p "$class/$1"
  cp "$2" "$class/$1/kernel.cu"
}
add reference "$root/reference/kernel.cu"
add naive "$root/reference/naive.cu"
for bug in missing_first_barrier no_load_bounds floor_grid; do add "bug_$bug" "$root/grader/samples/bugs/$bug/kernel.cu"; done
add skeleton "$root/student/kernel.cu"
echo "make grade: no SUBMISSION given, so the kit grades a built-in class of $(ls "$class" | wc -l): the reference,"
echo "the naive kernel, three classic bugs (grader/samples/bugs/) and the handout's skeleton, as one batch."
# A fresh batch each time, but only over an earlier demo's own output.
if [[ -e $out ]]; then
  if [[ -f $out/batch.json && -d $out/reference && -d $out/skeleton ]]; then
    rm -rf "$out"
  else
    echo "make grade: $out exists and is not an earlier demo's output; give another OUT" >&2
    exit 2
  fi
fi
"$grade" batch "$class" --out "$out" --backend "$backend" ${suite:+--suite "$suite"} ${seed:+--seed "$seed"}
echo
awk -F, 'NR == 1 { printf "  %-28s %8s  %s\n", "submission", "score", "state"; next }
         { printf "  %-28s %4s/%-3s  %s\n", $1, $2, $3, $4 }' "$out/gradebook.csv"
echo
echo "class summary:        $out/summary.html"
echo "one student's report: $out/bug_no_load_bounds/report.html"
echo "next: make grade SUBMISSION=path/to/kernel.cu OUT=results/alice   # one submission"
echo "      build/grade batch path/to/submissions --out results/class    # a folder of them (build/grade batch --help)"
