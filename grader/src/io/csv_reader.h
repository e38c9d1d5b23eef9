// The one CSV reader: RFC 4180 text as spreadsheets and learning management
// systems export it (a UTF-8 byte-order mark, CRLF or LF line ends, fields in
// double quotes holding commas, quotes ("") and line breaks).
#pragma once
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace sg {

// Text that is not CSV: what is wrong, and on which line (1-based).
struct CsvError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct CsvRow {
  int line = 0;  // the line the row starts on (1-based), for messages
  std::vector<std::string> fields;
};

// The rows of `text`, blank lines left out. A field is unquoted text up to the
// next comma or line end, or a quoted one ("a, ""b"""). Throws CsvError for a
// quote that is never closed or text right after a closing quote.
std::vector<CsvRow> read_csv(std::string_view text);

}  // namespace sg
