// Text hygiene shared by every report writer: student output, compiler logs
// and even test names may hold arbitrary bytes, and each output format has its
// own escaping rules. Helpers live in sg::report so they cannot collide with
// other stages' helpers inside the one static library.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

#include "io/clean_text.h"

namespace sg::report {

// The one cleaner (io/clean_text.h): valid UTF-8, no controls or escapes.
using sg::clean_text;

// clean_text, then every tab and newline turned into a space: for one-line
// fields such as table cells and attributes.
std::string clean_line(std::string_view raw);

// At most `max_bytes` of already clean text, cut at a code point boundary, with
// a note saying how much was left out.
std::string cap_text(const std::string& clean, std::size_t max_bytes);

// Number of code points (terminal column estimate for the summary table).
std::size_t display_width(std::string_view utf8);

// First code points of `clean` so that it fits `width` columns ("..." marks a cut).
std::string fit_width(const std::string& clean, std::size_t width);

// &, <, >, " and ' as character references, after clean_text. Valid inside XML
// and HTML text and attribute values alike.
std::string xml_escape(std::string_view raw);

// As xml_escape, but newline and tab are kept as character references so
// that they survive attribute-value normalisation.
std::string xml_attr(std::string_view raw);

// Text for a Markdown line or table cell: a single line with Markdown's
// punctuation backslash-escaped, so it shows as written and no raw HTML
// reaches a renderer.
std::string md_cell(std::string_view raw);

// A fenced Markdown code block whose fence is longer than any backtick run in
// the content, so the content can never close it early.
std::string md_fence(std::string_view raw, const std::string& info = "text");

// Percent-encoding of one URL path segment (RFC 3986 unreserved characters kept).
std::string url_segment(std::string_view raw);

// One RFC 4180 CSV field of text: cleaned to one line, quoted where needed,
// and a leading = + - @ defused (spreadsheets would run it as a formula).
std::string csv_text_cell(const std::string& raw);

}  // namespace sg::report
