#!/usr/bin/env bash
# `make check`: grades ./kernel.cu with the course's grader on the CPU against
# the public cases of the course's suite (check/public.yaml), prints the
# grader's table and writes report.md. Timed cases need a GPU and are not
# measured here; hidden cases are not in this handout at all.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

missing=()
[[ -e /usr/include/yaml-cpp/yaml.h ]] || missing+=(libyaml-cpp-dev)
[[ -e /usr/include/nlohmann/json.hpp ]] || missing+=(nlohmann-json3-dev)
[[ -e /usr/include/seccomp.h ]] || missing+=(libseccomp-dev)
[[ -e /usr/include/CLI/CLI.hpp ]] || missing+=(libcli11-dev)
[[ -e /usr/include/sha2.h ]] || missing+=(libmd-dev)
if ((${#missing[@]})); then
  echo "make check: the grader needs ${missing[*]}; install with" >&2
  echo "  sudo apt-get install -y ${missing[*]}" >&2
  exit 2
fi
command -v "${CXX:-g++}" >/dev/null || { echo "make check: no C++ compiler (${CXX:-g++}); install g++" >&2; exit 2; }
[[ -f kernel.cu ]] || { echo "make check: kernel.cu is missing" >&2; exit 2; }

if [[ ! -x check/build/grade ]]; then echo "make check: building the grader (once; a few minutes)"; fi
jobs=$(nproc 2>/dev/null || echo 2)
make -C check -j"$jobs" --no-print-directory -s all

rm -rf check/results
# The grader's exit status says whether it could grade, not the score.
check/build/grade --backend cpu --visibility public --suite check/public.yaml --out check/results \
  --student "$(basename "$PWD")" --quiet kernel.cu
cp check/results/report.md report.md
echo "report.md written (also check/results/: results.json, junit.xml)"
echo "Timed performance cases need a GPU: make check grades correctness and checks on the CPU."
