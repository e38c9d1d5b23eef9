#!/usr/bin/env bash
# Course CI: checks the kit itself (what `make ci` runs) and prints one table row per check.
#   - the reference solution gets full marks;
#   - the skeleton handout builds and scores 0 without crashing the grader;
#   - every testcases/*.yaml loads and grades (the skeleton, exit status 0);
#   - `make handout` packs exactly the student files and none of the
#     reference solution's distinctive lines.
# Exits 1 when any check fails, 2 on bad usage.
#
# usage: course_ci.sh [--backend auto|gpu|cpu] [--root DIR] [--only LIST] [--out DIR]
#   --backend   passed to grade (default auto: the GPU when one is present, else the CPU backend)
#   --root      the kit to check (default: this script's kit)
#   --only      comma-separated subset of: reference,skeleton,suites,handout
#   --out       where grading reports go (default ROOT/build/ci; ROOT/build/ci/reference/report.md
#               is the reference's report, which the GitHub workflow publishes)
# env: GRADE  the grade binary (default ROOT/build/grade)
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
backend=auto
only="reference,skeleton,suites,handout"
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --backend) backend="${2:-}"; shift 2 ;;
    --root) root="$(cd "${2:-}" 2>/dev/null && pwd)" || { echo "course_ci: --root: no folder ${2:-}" >&2; exit 2; }; shift 2 ;;
    --only) only="${2:-}"; shift 2 ;;
    --out) out="${2:-}"; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "course_ci: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
case "$backend" in auto|gpu|cpu) ;; *) echo "course_ci: --backend: expected auto, gpu or cpu, got $backend" >&2; exit 2 ;; esac
for c in ${only//,/ }; do
  case "$c" in reference|skeleton|suites|handout) ;; *) echo "course_ci: --only: unknown check $c" >&2; exit 2 ;; esac
done
wants() { [[ ",$only," == *",$1,"* ]]; }
out="${out:-$root/build/ci}"
grade="${GRADE:-$root/build/grade}"
mkdir -p "$out"

passed=0
failed=0
row() {  # row CHECK PASS|FAIL NOTE
  printf '  %-46s %-5s %s\n' "$1" "$2" "$3"
  if [ "$2" = PASS ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}

# Reads results.json: prints "STATE SCORE MAX BACKEND" (scores as plain numbers).
summary_of() {
  python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
x = d.get("extra_data", {})
num = lambda v: ("%g" % v)
print(x.get("state", "?"), num(d["score"]), num(x.get("max_score", sum(t.get("max_score", 0) for t in d["tests"]))),
      x.get("backend", "?"))
PY
}

# grade_into NAME SUBMISSION [SUITE]: grades into $out/NAME; sets g_rc, g_state, g_score, g_max, g_backend, g_err.
grade_into() {
  local dir="$out/$1"
  rm -rf "$dir" && mkdir -p "$dir"
  g_state="" g_score="" g_max="" g_backend="" g_err=""
  if [ ! -x "$grade" ]; then
    g_rc=127
    g_err="$grade is missing: run make (or make NO_CUDA=1 grade-cpu-only)"
    return
  fi
  local args=(--backend "$backend" --quiet --out "$dir")
  [ $# -ge 3 ] && args+=(--suite "$3")
  "$grade" "${args[@]}" "$2" >"$dir/grade.stdout" 2>"$dir/grade.stderr"
  g_rc=$?
  g_err="$(grep -m1 . "$dir/grade.stderr" 2>/dev/null)"
  if [ -s "$dir/results.json" ]; then
    read -r g_state g_score g_max g_backend < <(summary_of "$dir/results.json") || g_err="unreadable results.json"
  fi
}

command -v python3 >/dev/null || { echo "course_ci: python3 is needed to read results.json" >&2; exit 2; }
echo "course CI of $root (backend $backend)"
printf '  %-46s %-5s %s\n' check result note

if wants reference; then
  grade_into reference "$root/reference/"
  if [ "$g_rc" -ne 0 ]; then
    row "reference gets full marks" FAIL "grade exit $g_rc: $g_err"
  elif [ "$g_state" = graded ] && [ "$g_score" = "$g_max" ] && [ "$g_max" != 0 ]; then
    row "reference gets full marks" PASS "$g_score/$g_max ($g_backend backend)"
  else
    row "reference gets full marks" FAIL "$g_state, $g_score/$g_max ($g_backend backend): see $out/reference/report.md"
  fi
fi

skeleton_rc=""
if wants skeleton || wants suites; then
  grade_into skeleton "$root/student/"
  skeleton_rc=$g_rc
fi
if wants skeleton; then
  if [ "$g_rc" -ne 0 ]; then
    row "skeleton builds and scores 0" FAIL "grade exit $g_rc: $g_err"
  elif [ "$g_state" = graded ] && [ "$g_score" = 0 ]; then
    row "skeleton builds and scores 0" PASS "0/$g_max ($g_backend backend)"
  else
    row "skeleton builds and scores 0" FAIL "$g_state, $g_score/$g_max: see $out/skeleton/report.md"
  fi
fi

if wants suites; then
  shopt -s nullglob
  suites=("$root"/testcases/*.yaml)
  [ ${#suites[@]} -eq 0 ] && row "suites under testcases/" FAIL "no testcases/*.yaml"
  for s in "${suites[@]}"; do
    name="testcases/$(basename "$s")"
    if [ "$(basename "$s")" = default.yaml ] && [ -n "$skeleton_rc" ]; then
      rc=$skeleton_rc  # the skeleton run above used the default suite
    else
      grade_into "suite-$(basename "$s" .yaml)" "$root/student/" "$s"
      rc=$g_rc
    fi
    if [ "$rc" -eq 0 ] && [ "$g_state" = graded ] && [ "$g_score" = 0 ]; then
      row "suite $name loads and grades" PASS "skeleton 0/$g_max"
    elif [ "$rc" -eq 0 ]; then
      row "suite $name loads and grades" FAIL "skeleton: $g_state, $g_score/$g_max"
    else
      row "suite $name loads and grades" FAIL "grade exit $rc: $g_err"
    fi
  done
fi

# Code lines of a C/CUDA file, one per line, comments and indentation gone,
# blanks collapsed; only lines long enough to be telling (20+ characters).
code_lines() {
  sed -e 's://.*$::' -e 's/[[:space:]]\{1,\}/ /g' -e 's/^ //' -e 's/ $//' "$1" |
    awk 'length($0) >= 20 && $0 !~ /^(#|\/\*|\*)/'
}
# The reference's distinctive lines: all its telling code lines except the
# contract every submission shares (the two signatures, the kernel launch,
# the 16x16 block shape the skeleton itself shows).
distinctive_lines() {
  code_lines "$1" | grep -v -e 'mysgemm *(int' -e 'basicSgemm *(int' -e '<<<' -e 'dim3 block(' | sort -u
}

if wants handout; then
  tarball="$root/dist/sgemm-handout.tar.gz"
  rm -f "$tarball"
  if ! make -C "$root" --no-print-directory handout >"$out/handout.log" 2>&1 || [ ! -f "$tarball" ]; then
    row "handout holds exactly the student files" FAIL "make handout failed: see $out/handout.log"
    row "handout holds no reference code" FAIL "no handout to check"
  else
    # The student files: what git would track under student/, or without git
    # every file there but build products (objects and the sgemm binary).
    if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
      expected="$(cd "$root" && git ls-files --cached --others --exclude-standard student | sed 's:^student/::' | sort)"
    else
      expected="$(cd "$root/student" && find . -type f ! -name '*.o' ! -name sgemm | sed 's:^\./::' | sort)"
    fi
    # cudacpu/ and check/ are added by grader/handout/pack.sh (the CPU layer
    # and the CPU grader); their own leak guards are in pack.sh and handout_test.
    listed="$(tar -tzf "$tarball" | grep -v '/$' | sed 's:^[^/]*/::' | grep -v -e '^cudacpu/' -e '^check/' | sort)"
    if [ "$expected" = "$listed" ]; then
      row "handout holds exactly the student files" PASS "$(printf '%s\n' "$listed" | grep -c .) files"
    else
      extra="$(comm -13 <(printf '%s\n' "$expected") <(printf '%s\n' "$listed") | paste -sd' ')"
      lacking="$(comm -23 <(printf '%s\n' "$expected") <(printf '%s\n' "$listed") | paste -sd' ')"
      row "handout holds exactly the student files" FAIL "extra: ${extra:-none}; missing: ${lacking:-none}"
    fi

    unpacked="$(mktemp -d)"
    tar -xzf "$tarball" -C "$unpacked"
    distinctive_lines "$root/reference/kernel.cu" >"$out/reference-lines.txt"
    total="$(grep -c . "$out/reference-lines.txt")"
    leaks=""
    while IFS= read -r -d '' f; do
      hits="$(code_lines "$f" | sort -u | comm -12 - "$out/reference-lines.txt")"
      if [ -n "$hits" ]; then
        leaks+="${f#"$unpacked"/}: $(printf '%s\n' "$hits" | grep -c .) lines, e.g. \`$(printf '%s\n' "$hits" | head -n1)\`; "
      fi
    done < <(find "$unpacked" -type f -print0)
    rm -rf "$unpacked"
    if [ "$total" -eq 0 ]; then
      row "handout holds no reference code" FAIL "no distinctive lines read from reference/kernel.cu"
    elif [ -z "$leaks" ]; then
      row "handout holds no reference code" PASS "none of reference/kernel.cu's $total distinctive lines"
    else
      row "handout holds no reference code" FAIL "${leaks%; }"
    fi
  fi
fi

echo "course CI: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
