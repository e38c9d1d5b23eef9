#!/usr/bin/env bash
# Gradescope runs this once, as root, while it builds the autograder image
# (Ubuntu 22.04, no CUDA). It installs the build tools and libraries when any
# is missing and builds the CUDA-free grader: build/grade and the CPU backend.
#   bash setup.sh            install what is missing (apt), then build
#   bash setup.sh --no-apt   never call apt; fail naming what is missing
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
use_apt=1
for arg in "$@"; do
  case "$arg" in
    --no-apt) use_apt=0 ;;
    *) echo "setup.sh: unknown option $arg (known: --no-apt)" >&2; exit 2 ;;
  esac
done

have_header() { for d in /usr/include /usr/local/include; do [ -e "$d/$1" ] && return 0; done; return 1; }
have_lib() {
  for d in /usr/lib /usr/lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu /usr/local/lib /usr/local/lib64; do
    ls "$d"/lib"$1".* >/dev/null 2>&1 && return 0
  done
  return 1
}
missing=()
command -v g++ >/dev/null || missing+=(g++)
command -v make >/dev/null || missing+=(make)
{ have_header yaml-cpp/yaml.h && have_lib yaml-cpp; } || missing+=(libyaml-cpp-dev)
have_header nlohmann/json.hpp || missing+=(nlohmann-json3-dev)
# The kit's Makefile checks for GoogleTest before any build (grader/tools/install-deps.sh).
{ have_header gtest/gtest.h && have_lib gtest; } || missing+=(libgtest-dev)
# The sandbox: libseccomp for its filters, bubblewrap to run student code in.
# Where Gradescope's container refuses namespaces, grading says so and runs
# with rlimits only.
have_header seccomp.h || missing+=(libseccomp-dev)
# The command lines (CLI11) and the submissions' fingerprints (libmd's SHA-256),
# as in grader/tools/install-deps.sh.
have_header CLI/CLI.hpp || missing+=(libcli11-dev)
have_header sha2.h || missing+=(libmd-dev)
command -v bwrap >/dev/null || missing+=(bubblewrap)

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$use_apt" = 0 ]; then
    echo "setup.sh: missing ${missing[*]} (run without --no-apt, as root, to install them)" >&2
    exit 1
  fi
  echo "setup.sh: installing ${missing[*]}"
  apt-get update -qq
  # --no-install-recommends: the packages alone, not what they recommend.
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup.sh: g++, make, yaml-cpp, nlohmann-json, GoogleTest, libseccomp, CLI11, libmd and bubblewrap are present; apt not needed"
fi

jobs="$(nproc 2>/dev/null || echo 2)"
make -C "$here" -j"$jobs" NO_CUDA=1 grade-cpu-only
"$here/build/grade" --help >/dev/null
echo "setup.sh: built $here/build/grade (CUDA-free, cpu backend)"
