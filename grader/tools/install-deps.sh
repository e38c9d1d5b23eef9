#!/usr/bin/env bash
# Makes sure the kit's build dependencies are present: yaml-cpp, nlohmann-json,
# GoogleTest, libseccomp, CLI11, libmd, fmt and bubblewrap (the CUDA Toolkit itself
# must already be installed).
# As root on Debian/Ubuntu it installs what is missing; otherwise it prints
# the exact command and fails.
# With --test-extras (only `make test` passes it): also Slurm and munge, for
# the one test that grades through a private Slurm cluster
# (grader/tests/slurm_cluster_test.cpp). Installed as root when missing; if
# that fails (or without root) the test skips, nothing else changes. `make`
# and `make grade` never install them.
set -u
test_extras=0
case "${1:-}" in
  --test-extras) test_extras=1 ;;
  "") ;;
  *) echo "install-deps: unknown option '$1' (the only option is --test-extras)" >&2; exit 2 ;;
esac
missing=()
have_header() { for d in /usr/include /usr/local/include; do [ -e "$d/$1" ] && return 0; done; return 1; }
have_lib() { for d in /usr/lib /usr/lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu /usr/local/lib /usr/local/lib64; do ls "$d"/lib"$1".* >/dev/null 2>&1 && return 0; done; return 1; }
have_header yaml-cpp/yaml.h && have_lib yaml-cpp || missing+=(libyaml-cpp-dev)
have_header nlohmann/json.hpp || missing+=(nlohmann-json3-dev)
{ have_header gtest/gtest.h && have_lib gtest; } || missing+=(libgtest-dev)
# The sandbox (grader/src/process/sandbox.h): libseccomp builds its filters,
# bubblewrap runs compilers and runners (without it grading falls back to
# rlimits only and says so in every report).
have_header seccomp.h || [ -e "$(dirname "$0")/../../.devcarry/seccomp/usr/include/seccomp.h" ] || missing+=(libseccomp-dev)
# The command lines (grader/src/cli/, CLI11, header-only) and the submissions'
# fingerprints (grader/src/batch/content_hash.cpp, libmd's SHA-256). Like
# libseccomp, a machine without a package registry may carry them unpacked in
# .devcarry/ (the Makefile's CLI11_INC, MD_INC and MD_LIB).
have_header CLI/CLI.hpp || [ -e "$(dirname "$0")/../../.devcarry/cli11/usr/include/CLI/CLI.hpp" ] || missing+=(libcli11-dev)
have_header sha2.h || [ -e "$(dirname "$0")/../../.devcarry/libmd/usr/include/sha2.h" ] || missing+=(libmd-dev)
# The sentences' numbers (grader/src/words/, fmt, used header-only).
have_header fmt/format.h || [ -e "$(dirname "$0")/../../.devcarry/fmt/usr/include/fmt/format.h" ] || missing+=(libfmt-dev)
# The daemons live in /usr/sbin, which a non-root PATH may lack.
have_program() { command -v "$1" >/dev/null || [ -x "/usr/sbin/$1" ]; }
optional=()
# bubblewrap is optional too (grading falls back to rlimits without it): a GPU
# machine without a package registry gets it from .devcarry/debs
# (grader/tools/gpu_sandbox_check.sh).
have_program bwrap || optional+=(bubblewrap)
if [ $test_extras = 1 ] && [ -z "${NO_CUDA:-}" ]; then
  have_program slurmctld || optional+=(slurmctld)
  have_program slurmd || optional+=(slurmd)
  have_program sbatch || optional+=(slurm-client)
  have_program munged || optional+=(munge)
fi
[ ${#missing[@]} -eq 0 ] && [ ${#optional[@]} -eq 0 ] && exit 0
# --no-install-recommends: the libraries and headers alone, not what they suggest.
cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  updated=0
  if [ ${#missing[@]} -gt 0 ]; then
    echo "install-deps: installing ${missing[*]}" >&2
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive $cmd -qq; } >/dev/null 2>&1 || {
      echo "install-deps: '$cmd' failed; run it by hand" >&2; exit 1; }
    updated=1
  fi
  # make runs this script every time: after one failed try (e.g. offline), do
  # not try again until the build folder is cleaned.
  failed_stamp="$(cd "$(dirname "$0")/../.." && pwd)/build/.optional-deps-failed"
  if [ ${#optional[@]} -gt 0 ] && [ ! -e "$failed_stamp" ]; then
    # --no-install-recommends: the daemons alone, not Slurm's whole suite.
    opt_cmd="apt-get install -y --no-install-recommends ${optional[*]}"
    echo "install-deps: installing ${optional[*]} (optional: the sandbox, the Slurm test)" >&2
    { { [ $updated = 1 ] || apt-get update -qq; } && DEBIAN_FRONTEND=noninteractive $opt_cmd -qq; } >/dev/null 2>&1 || {
      echo "install-deps: '$opt_cmd' failed; without bubblewrap grading runs with rlimits only, without Slurm its test skips" >&2
      mkdir -p "$(dirname "$failed_stamp")" && : >"$failed_stamp"; }
  fi
  exit 0
fi
[ ${#missing[@]} -eq 0 ] && exit 0  # only optional packages missing: nothing to fail for
echo "install-deps: missing ${missing[*]}. Install them with:" >&2
echo "  sudo apt-get update && sudo $cmd" >&2
exit 1
