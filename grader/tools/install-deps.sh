#!/usr/bin/env bash
# Makes sure the kit's build dependencies are present: yaml-cpp, nlohmann-json
# and GoogleTest (the CUDA Toolkit itself must already be installed).
# As root on Debian/Ubuntu it installs what is missing; otherwise it prints
# the exact command and fails.
set -u
missing=()
have_header() { for d in /usr/include /usr/local/include; do [ -e "$d/$1" ] && return 0; done; return 1; }
have_lib() { for d in /usr/lib /usr/lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu /usr/local/lib /usr/local/lib64; do ls "$d"/lib"$1".* >/dev/null 2>&1 && return 0; done; return 1; }
have_header yaml-cpp/yaml.h && have_lib yaml-cpp || missing+=(libyaml-cpp-dev)
have_header nlohmann/json.hpp || missing+=(nlohmann-json3-dev)
{ have_header gtest/gtest.h && have_lib gtest; } || missing+=(libgtest-dev)
[ ${#missing[@]} -eq 0 ] && exit 0
cmd="apt-get install -y ${missing[*]}"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "install-deps: installing ${missing[*]}" >&2
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive $cmd -qq; } >/dev/null 2>&1 || {
    echo "install-deps: '$cmd' failed; run it by hand" >&2; exit 1; }
  exit 0
fi
echo "install-deps: missing ${missing[*]}. Install them with:" >&2
echo "  sudo apt-get update && sudo $cmd" >&2
exit 1
