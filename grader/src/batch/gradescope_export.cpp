#include "batch/gradescope_export.h"

#include <yaml-cpp/yaml.h>

#include "batch/roster.h"

namespace sg::batch {
namespace {

// Gradescope writes Ruby symbols (":sid"); accept plain keys too.
std::string bare_key(std::string key) {
  if (!key.empty() && key.front() == ':') key.erase(0, 1);
  if (!key.empty() && key.back() == ':') key.pop_back();
  return key;
}

std::string where_of(const YAML::Node& n, const std::string& file) {
  const YAML::Mark m = n.Mark();
  if (m.line < 0) return file;
  return file + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
}

// The value under `key` (either spelling) in a map, or an undefined node.
YAML::Node field(const YAML::Node& map, const std::string& key) {
  for (const auto& kv : map)
    if (kv.first.IsScalar() && bare_key(kv.first.Scalar()) == key) return kv.second;
  return YAML::Node(YAML::NodeType::Undefined);
}

std::string text_field(const YAML::Node& map, const std::string& key) {
  const YAML::Node v = field(map, key);
  return v.IsDefined() && v.IsScalar() ? v.Scalar() : std::string();
}

}  // namespace

std::vector<ExportedSubmission> parse_submission_metadata(const std::string& yaml,
                                                          const std::string& where) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::Exception& e) {
    throw RosterError(where + ":" + std::to_string(e.mark.line + 1) + ":" +
                      std::to_string(e.mark.column + 1) + ": not valid YAML: " + e.msg);
  }
  if (!root.IsMap())
    throw RosterError(where_of(root, where) +
                      ": expected a mapping from submission folders to their submitters");
  std::vector<ExportedSubmission> out;
  for (const auto& kv : root) {
    if (!kv.first.IsScalar()) throw RosterError(where_of(kv.first, where) + ": a submission key must be a folder name");
    ExportedSubmission s;
    s.folder = kv.first.Scalar();
    if (!kv.second.IsMap())
      throw RosterError(where_of(kv.second, where) + ": the record of " + s.folder + " is not a mapping");
    const YAML::Node subs = field(kv.second, "submitters");
    if (subs.IsDefined() && !subs.IsNull()) {
      if (!subs.IsSequence())
        throw RosterError(where_of(subs, where) + ": :submitters: of " + s.folder + " is not a list");
      for (const auto& p : subs) {
        if (!p.IsMap()) throw RosterError(where_of(p, where) + ": a submitter of " + s.folder + " is not a mapping");
        s.submitters.push_back({text_field(p, "name"), text_field(p, "sid"), text_field(p, "email")});
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::string exported_student_id(const ExportedSubmission& s) {
  std::string id;
  for (const auto& p : s.submitters) {
    const std::string one = !p.sid.empty() ? p.sid : !p.email.empty() ? p.email : p.name;
    if (one.empty()) continue;
    id += (id.empty() ? "" : "+") + one;
  }
  return id.empty() ? s.folder : id;
}

}  // namespace sg::batch
