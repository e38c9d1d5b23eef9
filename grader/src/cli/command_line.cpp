#include "cli/command_line.h"

#include <cerrno>
#include <cstdlib>
#include <vector>

namespace sg::cli {

void configure(CLI::App& app) {
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.allow_extras();
  app.get_formatter()->column_width(26);
}

CLI::Option* add_positional(CLI::App& app, const std::string& name, const std::string& help, std::string& field) {
  return app.add_option(name, field, help)->type_name("");
}

CLI::Option* add_checked(CLI::App& app, const std::string& name, const std::string& value_name,
                         const std::string& help, std::function<std::string(const std::string&)> take) {
  // A check (CLI11's Validator) runs on every occurrence in the order given,
  // so a repeated option is taken in turn; its message comes as "--name: why".
  return app.add_option(name, CLI::callback_t{}, help)
      ->type_name(value_name)
      ->check(CLI::Validator([take = std::move(take)](std::string& v) { return take(v); }, ""));
}

bool parse(CLI::App& app, int argc, char** argv, const std::string& what, const std::string& positional, bool& help,
           std::string& error) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    help = true;
    return true;
  } catch (const CLI::ArgumentMismatch& e) {
    // An option that takes a value came last ("--out: 1 required DIR missing").
    const std::string last = argc > 1 ? argv[argc - 1] : "";
    const std::string message = e.what();
    error = !last.empty() && message.rfind(last + ":", 0) == 0 ? last + " needs a value" : message;
    return false;
  } catch (const CLI::ParseError& e) {
    error = e.what();
    return false;
  }
  // What CLI11 left over (allow_extras), in the order given: the first is named.
  const std::vector<std::string> left = app.remaining();
  if (left.empty()) return true;
  const std::string& word = left.front();
  error = word.size() > 1 && word[0] == '-' ? "unknown option " + word
                                            : "more than one " + what + " given (" + positional + ", " + word + ")";
  return false;
}

std::string parse_seed(const std::string& v, std::optional<std::uint64_t>& out) {
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos) return "not a non-negative integer: " + v;
  errno = 0;
  const unsigned long long s = std::strtoull(v.c_str(), nullptr, 10);
  if (errno) return "out of range: " + v;
  out = s;
  return "";
}

std::string parse_backend_choice(const std::string& v, std::optional<BackendKind>& out) {
  if (v == "auto") {
    out.reset();
    return "";
  }
  const std::optional<BackendKind> kind = parse_backend(v);
  if (!kind) return "expected gpu, cpu or auto, got " + v;
  out = kind;
  return "";
}

std::string parse_visibility(const std::string& v, bool& public_only) {
  if (v != "public" && v != "all") return "expected public or all, got " + v;
  public_only = v == "public";
  return "";
}

}  // namespace sg::cli
