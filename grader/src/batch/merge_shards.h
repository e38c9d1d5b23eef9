// `grade batch --merge DIR`: joins the shards of a Slurm batch (DIR/shards/*/)
// into DIR: each student's report folder, one journal, one gradebook.
#pragma once
#include <cstdio>
#include <string>

namespace sg::batch {

// Returns the exit status: 0 merged, 2 nothing to merge, 3 internal error.
int merge_shards(const std::string& dir, const std::string& title, std::FILE* log);

}  // namespace sg::batch
