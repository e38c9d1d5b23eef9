// `grade batch --merge DIR`: joins the shards of a Slurm batch (DIR/shards/*/)
// into DIR: each student's report folder, one journal, one gradebook.
#pragma once
#include <cstdio>
#include <string>

#include "batch/batch_options.h"

namespace sg::batch {

// `o` gives the summary's title and canvas.csv's options (a roster that
// cannot be used stops the merge before it changes anything). Returns the exit
// status: 0 merged, 2 nothing to merge or an unusable roster, 3 internal error.
int merge_shards(const std::string& dir, const BatchOptions& o, std::FILE* log);

}  // namespace sg::batch
