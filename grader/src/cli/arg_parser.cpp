#include "cli/arg_parser.h"

#include <cerrno>
#include <cstdlib>

namespace sg::cli {

Option text_option(const std::string& name, std::string& field) {
  return {name, true, [&field](const std::string& v) {
            field = v;
            return std::string();
          }};
}

Option flag_option(const std::string& name, bool& field) {
  return {name, false, [&field](const std::string&) {
            field = true;
            return std::string();
          }};
}

bool parse_args(int argc, char** argv, const std::vector<Option>& options, const std::string& positional_what,
                bool& help, std::string& positional, std::string& error) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      help = true;
      continue;
    }
    if (a.size() > 1 && a[0] == '-') {
      const Option* found = nullptr;
      for (const Option& o : options)
        if (o.name == a) found = &o;
      if (!found) {
        error = "unknown option " + a;
        return false;
      }
      std::string value;
      if (found->takes_value) {
        if (i + 1 >= argc) {
          error = a + " needs a value";
          return false;
        }
        value = argv[++i];
      }
      error = found->apply(value);
      if (!error.empty()) return false;
      continue;
    }
    if (!positional.empty()) {
      error = "more than one " + positional_what + " given (" + positional + ", " + a + ")";
      return false;
    }
    positional = a;
  }
  return true;
}

std::string parse_seed(const std::string& flag, const std::string& v, std::optional<std::uint64_t>& out) {
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos)
    return flag + ": not a non-negative integer: " + v;
  errno = 0;
  const unsigned long long s = std::strtoull(v.c_str(), nullptr, 10);
  if (errno) return flag + ": out of range: " + v;
  out = s;
  return "";
}

std::string parse_backend(const std::string& flag, const std::string& v, std::string& out) {
  if (v != "gpu" && v != "cpu" && v != "auto") return flag + ": expected gpu, cpu or auto, got " + v;
  out = v;
  return "";
}

std::string parse_visibility(const std::string& flag, const std::string& v, bool& public_only) {
  if (v != "public" && v != "all") return flag + ": expected public or all, got " + v;
  public_only = v == "public";
  return "";
}

}  // namespace sg::cli
