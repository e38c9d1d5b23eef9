// The layout rules of grader/ARCHITECTURE.md, checked on the sources: no two
// folders of grader/src include each other (directly or round a longer
// loop), and no source file is longer than 500 lines.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

const fs::path kSrc = fs::path(SG_SOURCE_ROOT) / "grader" / "src";

bool is_source(const fs::path& p) {
  const std::string ext = p.extension().string();
  return ext == ".cpp" || ext == ".h" || ext == ".cu";
}

// folder -> folders its files include ("a/b.h" names folder a).
std::map<std::string, std::set<std::string>> folder_includes(const fs::path& root) {
  std::map<std::string, std::set<std::string>> graph;
  const std::regex include_line(R"re(^\s*#\s*include\s*"([a-z_]+)/)re");
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file() || !is_source(e.path())) continue;
    const std::string folder = fs::relative(e.path(), root).begin()->string();
    graph[folder];
    std::ifstream in(e.path());
    std::smatch m;
    for (std::string line; std::getline(in, line);)
      if (std::regex_search(line, m, include_line) && m[1] != folder && fs::is_directory(root / m[1].str()))
        graph[folder].insert(m[1]);
  }
  return graph;
}

// The first loop found, as "a -> b -> a"; "" when there is none.
std::string find_loop(const std::map<std::string, std::set<std::string>>& graph) {
  std::map<std::string, int> state;  // 0 unseen, 1 on the path, 2 done
  std::vector<std::string> path;
  std::string loop;
  std::function<bool(const std::string&)> visit = [&](const std::string& f) {
    state[f] = 1;
    path.push_back(f);
    const auto it = graph.find(f);
    if (it != graph.end())
      for (const std::string& to : it->second) {
        if (state[to] == 1) {
          bool on = false;
          for (const std::string& p : path) {
            on |= p == to;
            if (on) loop += p + " -> ";
          }
          loop += to;
          return true;
        }
        if (state[to] == 0 && visit(to)) return true;
      }
    path.pop_back();
    state[f] = 2;
    return false;
  };
  for (const auto& [folder, _] : graph)
    if (state[folder] == 0 && visit(folder)) return loop;
  return "";
}

TEST(SourceLayout, FindsALoopWhereThereIsOne) {
  // The check itself: a loop of three folders is named, a chain is not a loop.
  EXPECT_EQ(find_loop({{"a", {"b"}}, {"b", {"c"}}, {"c", {"a"}}}), "a -> b -> c -> a");
  EXPECT_EQ(find_loop({{"a", {"b"}}, {"b", {"c"}}, {"c", {}}}), "");
}

TEST(SourceLayout, NoFoldersIncludeEachOther) {
  const auto graph = folder_includes(kSrc);
  ASSERT_GT(graph.size(), 5u) << "no sources found under " << kSrc;
  EXPECT_EQ(find_loop(graph), "") << "folders of grader/src include each other";
}

TEST(SourceLayout, NoSourceFileOver500Lines) {
  std::vector<std::string> long_files;
  for (const fs::path& root : {kSrc, fs::path(SG_SOURCE_ROOT) / "grader" / "cudacpu"})
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      if (!e.is_regular_file() || !is_source(e.path()) || e.path().string().find("/tests/") != std::string::npos)
        continue;
      std::ifstream in(e.path());
      int lines = 0;
      for (std::string line; std::getline(in, line);) ++lines;
      if (lines > 500) long_files.push_back(e.path().string() + " (" + std::to_string(lines) + " lines)");
    }
  EXPECT_TRUE(long_files.empty()) << "over 500 lines: " << ::testing::PrintToString(long_files);
}

}  // namespace
