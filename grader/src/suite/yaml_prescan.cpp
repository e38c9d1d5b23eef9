#include "suite/yaml_prescan.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <sstream>
#include <vector>

namespace sg::suite_yaml {
namespace {

class ShapeChecker : public YAML::EventHandler {
 public:
  ShapeChecker(const Source& src, const ShapeLimits& limits) : src_(src), limits_(limits) {}

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ > 1)
      src_.fail(mark, "a suite file holds one YAML document; a second one starts here");
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { count(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                const std::string&) override {
    count(mark);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    count(mark);
    for (YAML::anchor_t open : open_)
      if (open != YAML::NullAnchor && open == anchor)
        src_.fail(mark, "this alias refers to a node that contains it (a cycle)");
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  void count(const YAML::Mark& mark) {
    if (++nodes_ > limits_.max_nodes)
      src_.fail(mark, "more than " + std::to_string(limits_.max_nodes) +
                          " YAML nodes; this is not a plausible suite");
  }
  void open(const YAML::Mark& mark, YAML::anchor_t anchor) {
    count(mark);
    if (static_cast<int>(open_.size()) >= limits_.max_depth)
      src_.fail(mark, "nested more than " + std::to_string(limits_.max_depth) +
                          " levels deep; a suite needs at most 4");
    open_.push_back(anchor);
  }
  void close() {
    if (!open_.empty()) open_.pop_back();
  }

  const Source& src_;
  const ShapeLimits& limits_;
  int documents_ = 0;
  long nodes_ = 0;
  std::vector<YAML::anchor_t> open_;  // anchors of the mappings/lists being read
};

}  // namespace

void prescan(const std::string& text, const Source& src, const ShapeLimits& limits) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  ShapeChecker checker(src, limits);
  while (parser.HandleNextDocument(checker)) {
  }
}

}  // namespace sg::suite_yaml
