// The one way a report or batch file is written: nobody ever reads half of
// one, and no planted link redirects it.
#pragma once
#include <string>

namespace sg {

// Writes `text` to `path` through a fresh temporary file in the same folder
// (created with O_EXCL, so never through a link), fsync, and a rename over
// `path` (which replaces a link at `path` rather than following it). A crash
// leaves the old or the new file. Throws std::runtime_error naming the path.
void write_file_atomically(const std::string& path, const std::string& text, unsigned mode = 0644);

}  // namespace sg
