// The one text cleaner: whatever a submission, a compiler or a tool printed,
// made safe to carry as is in JSON, XML, HTML, Markdown and a terminal.
#pragma once
#include <string>
#include <string_view>

namespace sg {

// Valid UTF-8 with invalid bytes replaced by U+FFFD, ANSI escape sequences and
// control characters removed (tab and newline kept, CR/CRLF become newline),
// and the code points XML 1.0 forbids (C1 controls, U+FFFE, U+FFFF) dropped.
std::string clean_text(std::string_view raw);

// How many bytes at the end of `raw` are the start of a UTF-8 sequence cut
// off there (0 when none): a cap that cut a character drops it rather than
// reporting it as invalid.
std::size_t cut_sequence_tail(std::string_view raw);

}  // namespace sg
