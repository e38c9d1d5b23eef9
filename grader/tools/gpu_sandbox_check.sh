#!/usr/bin/env bash
# Grades the hostile corpus on the GPU backend inside the sandbox, on a GPU
# machine that has no package registry, and prints a short table.
# Run from the kit's root, after carrying .devcarry/ (debs/ holds bubblewrap and
# libcap2, seccomp/ the unpacked libseccomp-dev that the Makefile builds with):
#   bash grader/tools/gpu_sandbox_check.sh [OUT_DIR]
# Prints, per sample: state, score, the expected range, and whether anything the
# attack tried reached the host (a marker file, a planted link, /etc/passwd in a
# report); then the sandbox's overhead on the reference (with vs without).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
out=${1:-$root/gpu-logs/sandbox-check}
mkdir -p "$out"
tmp=$(mktemp -d /tmp/sg-bwrap-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# bubblewrap: the machine's own, else the carried Debian package, unpacked.
if ! command -v bwrap >/dev/null; then
  for deb in .devcarry/debs/bubblewrap_*.deb .devcarry/debs/libcap2_*.deb; do
    [ -e "$deb" ] || { echo "gpu_sandbox_check: $deb missing (apt-get download bubblewrap libcap2)" >&2; exit 2; }
    dpkg -x "$deb" "$tmp/root"
  done
  mkdir -p "$tmp/bin"
  # libcap.so.2 from the package only where the machine lacks it.
  libs=""
  ldconfig -p | grep -q 'libcap.so.2 ' || libs="LD_LIBRARY_PATH=$tmp/root/lib/x86_64-linux-gnu:$tmp/root/usr/lib/x86_64-linux-gnu "
  printf '#!/bin/sh\nexec env %s"%s" "$@"\n' "$libs" "$tmp/root/usr/bin/bwrap" >"$tmp/bin/bwrap"
  chmod 755 "$tmp/bin/bwrap" "$tmp"
  chmod -R a+rX "$tmp"
  export PATH="$tmp/bin:$PATH"
fi
echo "bwrap: $(command -v bwrap) ($(bwrap --version 2>&1))"
bwrap --unshare-all --die-with-parent --ro-bind / / true && echo "namespaces as $(id -un): ok" ||
  echo "namespaces as $(id -un): FAILED"
if [ "$(id -u)" = 0 ]; then
  setpriv --reuid=65534 --regid=65534 --clear-groups bwrap --unshare-all --die-with-parent --ro-bind / / true &&
    echo "namespaces as nobody: ok" || echo "namespaces as nobody: FAILED"
fi

make -j"$(nproc)" build/grade >"$out/build.log" 2>&1 || { echo "build failed: $out/build.log" >&2; exit 3; }

grade() {  # name submission [env...]
  local name=$1 sub=$2; shift 2
  rm -rf "$out/$name"; mkdir -p "$out/$name/tmp"
  local t0; t0=$(date +%s.%N)
  env "$@" TMPDIR="$out/$name/tmp" timeout -k 10 1200 build/grade --seed 12345 --backend gpu \
    --out "$out/$name/reports" "$sub" >"$out/$name/terminal.txt" 2>&1
  echo $? >"$out/$name/rc"
  python3 -c 'import sys; print(float(sys.argv[1]) - float(sys.argv[2]))' "$(date +%s.%N)" "$t0" >"$out/$name/seconds"
}
field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d.get(sys.argv[2], ""))' "$1" "$2" 2>/dev/null; }

rm -f /tmp/sg_hostile_libc_lookup_marker /tmp/sg_hostile_nvcc_split_marker /tmp/sg_hostile_planted_link
printf '%-24s %-4s %-14s %-8s %-10s %s\n' sample rc state score expected "reached the host?"
for dir in grader/samples/hostile/*/; do
  name=$(basename "$dir")
  grade "$name" "$dir/kernel.cu"
  res="$out/$name/reports/results.json"
  state=$(grep -m1 -o '"state": *"[^"]*"' "$res" 2>/dev/null | sed 's/.*: *"//;s/"$//')
  [ -n "$state" ] || state=$(grep -m1 '^| State' "$out/$name/reports/report.md" 2>/dev/null | cut -d'|' -f3 | xargs)
  # The range its expect.yaml implies, with the points this grading reported (sample_range.py).
  expected=$(python3 grader/tools/sample_range.py "$dir/expect.yaml" "$res" gpu 2>/dev/null || echo "?")
  reached=""
  for f in /tmp/sg_hostile_libc_lookup_marker /tmp/sg_hostile_nvcc_split_marker; do [ -e "$f" ] && reached+="marker $f; "; done
  [ -L /tmp/sg_hostile_planted_link ] && reached+="planted link; "
  cat "$out/$name/reports/"* "$out/$name/terminal.txt" 2>/dev/null | grep -q 'root:x:0:0' && reached+="/etc/passwd in a report; "
  printf '%-24s %-4s %-14s %-8s %-10s %s\n' "$name" "$(cat "$out/$name/rc")" "${state:-?}" \
    "$(field "$res" score)" "$expected" "${reached:-no}"
  rm -f /tmp/sg_hostile_libc_lookup_marker /tmp/sg_hostile_nvcc_split_marker /tmp/sg_hostile_planted_link
done
grep -h -m1 '^sandbox:' "$out"/*/terminal.txt | sort | uniq -c

# Overhead: the reference, sandboxed and not, same machine, same run.
grade reference_sandboxed reference/kernel.cu
grade reference_unsandboxed reference/kernel.cu SG_NO_SANDBOX=1
for n in reference_sandboxed reference_unsandboxed; do
  printf '%-24s rc %s score %s %.1f s\n' "$n" "$(cat "$out/$n/rc")" "$(field "$out/$n/reports/results.json" score)" \
    "$(cat "$out/$n/seconds")"
done
