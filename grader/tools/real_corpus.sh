#!/usr/bin/env bash
# Materialises the real-student corpus (grader/samples/real/) without committing anyone's code.
#
# Each grader/samples/real/<name>/expect.yaml names its upstream file (repository, commit,
# path, sha256) in an `upstream:` block. This script fetches that exact file, checks its
# sha256, and writes grader/samples/real/.upstream/<name>/kernel.cu: the sample's shim.cu
# with its line `#include "UPSTREAM"` replaced by the upstream file (between #line
# directives, so compiler messages name the student's file, as <owner>/<repo>/<path>, and line;
# a name that never collides with the kernel.cu being compiled, whose lines would be quoted). The submission is one
# file because the grader grades a private copy of kernel.cu alone.
#
# Sources, in order: a local mirror ($REAL_CORPUS_MIRROR/<owner>+<name>/repo, a git dir,
# default /work/.mirror), then https://raw.githubusercontent.com/<repo>/<commit>/<path>.
#
#   grader/tools/real_corpus.sh            materialise every sample (keeps good existing ones)
#   grader/tools/real_corpus.sh --force    fetch everything again
#   grader/tools/real_corpus.sh NAME...    only these samples
# Exit status: 0 when every requested sample is materialised, 1 otherwise (each failure named).
set -u -o pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
corpus="$root/grader/samples/real"
out_root="$corpus/.upstream"
mirror_root="${REAL_CORPUS_MIRROR:-/work/.mirror}"
force=0
wanted=()
for a in "$@"; do
  case "$a" in
    --force) force=1 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    -*) echo "real_corpus.sh: unknown option $a" >&2; exit 2 ;;
    *) wanted+=("$a") ;;
  esac
done

# Value of `key:` inside the expect.yaml's `upstream:` block (two-space indented, one line).
upstream_field() {
  awk -v key="$2" '
    /^upstream:/ { inside = 1; next }
    inside && /^[^ #]/ { inside = 0 }
    inside && $1 == key ":" { sub(/^[^:]*:[ ]*/, ""); gsub(/^"|"$/, ""); print; exit }
  ' "$1"
}

sha256_of() { sha256sum "$1" | cut -c1-64; }

# Writes the upstream file to $3; says where it came from on stdout.
fetch_upstream() {
  local repo="$1" commit="$2" dest="$3" path="$4"
  local m="$mirror_root/${repo/\//+}/repo"
  for gd in "$m" "$m/.git"; do
    if [ -d "$gd" ] && git --git-dir="$gd" cat-file -e "$commit:$path" 2>/dev/null; then
      git --git-dir="$gd" cat-file -p "$commit:$path" >"$dest" && { echo "mirror"; return 0; }
    fi
  done
  if command -v curl >/dev/null 2>&1; then
    if curl -fsSL --max-time 30 "https://raw.githubusercontent.com/$repo/$commit/$path" -o "$dest" 2>/dev/null; then
      echo "raw.githubusercontent.com"; return 0
    fi
  fi
  return 1
}

# shim.cu with the UPSTREAM include replaced by the file, line numbers kept true on both sides.
splice() {
  local shim="$1" upstream="$2" path="$3"
  awk -v up="$upstream" -v path="$path" '
    $0 ~ /^#include "UPSTREAM"/ {
      printf "#line 1 \"%s\"\n", path
      while ((getline line < up) > 0) print line
      close(up)
      printf "\n#line %d \"shim.cu\"\n", NR + 1
      found = 1
      next
    }
    { print }
    END { if (!found) exit 3 }
  ' "$shim"
}

mkdir -p "$out_root"
ok=0
failed=()
for w in "${wanted[@]}"; do
  [ -f "$corpus/$w/expect.yaml" ] || failed+=("$w: no such sample (no $corpus/$w/expect.yaml)")
done
for dir in "$corpus"/*/; do
  name="$(basename "$dir")"
  [ -f "$dir/expect.yaml" ] || continue
  if [ "${#wanted[@]}" -gt 0 ] && [[ ! " ${wanted[*]} " == *" $name "* ]]; then continue; fi
  e="$dir/expect.yaml"
  repo="$(upstream_field "$e" repository)"
  commit="$(upstream_field "$e" commit)"
  path="$(upstream_field "$e" path)"
  want="$(upstream_field "$e" sha256)"
  if [ -z "$repo" ] || [ -z "$commit" ] || [ -z "$path" ] || [ -z "$want" ]; then
    failed+=("$name: expect.yaml lacks upstream repository/commit/path/sha256"); continue
  fi
  dest="$out_root/$name"
  if [ "$force" = 0 ] && [ -f "$dest/upstream.cu" ] && [ -f "$dest/kernel.cu" ] &&
     [ "$(sha256_of "$dest/upstream.cu")" = "$want" ] && [ "$dest/kernel.cu" -nt "$dir/shim.cu" ]; then
    ok=$((ok + 1)); continue
  fi
  rm -rf "$dest"
  mkdir -p "$dest"
  if ! from="$(fetch_upstream "$repo" "$commit" "$dest/upstream.cu" "$path")"; then
    rm -rf "$dest"
    failed+=("$name: could not get $repo@$commit:$path (not in a mirror under $mirror_root; raw.githubusercontent.com unreachable or without it)"); continue
  fi
  got="$(sha256_of "$dest/upstream.cu")"
  if [ "$got" != "$want" ]; then
    rm -rf "$dest"
    failed+=("$name: sha256 of $repo@$commit:$path is $got, expected $want (from $from)"); continue
  fi
  if ! splice "$dir/shim.cu" "$dest/upstream.cu" "$repo/$path" >"$dest/kernel.cu"; then
    rm -rf "$dest"
    failed+=("$name: shim.cu has no line #include \"UPSTREAM\""); continue
  fi
  ok=$((ok + 1))
done

echo "real corpus: $ok sample(s) materialised under ${out_root#"$root"/}"
if [ "${#failed[@]}" -gt 0 ]; then
  echo "not materialised (${#failed[@]}); tests skip these:" >&2
  for f in "${failed[@]}"; do echo "  $f" >&2; done
  exit 1
fi
