#include "io/csv_reader.h"

namespace sg {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

bool line_end(char c) { return c == '\n' || c == '\r'; }

// Past one line end at `i` (CRLF, LF or a lone CR), counting the line.
std::size_t skip_line_end(std::string_view text, std::size_t i, int& line) {
  ++line;
  return text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n' ? i + 2 : i + 1;
}

}  // namespace

std::vector<CsvRow> read_csv(std::string_view text) {
  if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());
  std::vector<CsvRow> rows;
  int line = 1;
  std::size_t i = 0;
  while (i < text.size()) {
    if (line_end(text[i])) {  // a blank line holds no row
      i = skip_line_end(text, i, line);
      continue;
    }
    CsvRow row;
    row.line = line;
    for (;;) {  // one field a turn; the row ends at a line end or the end of the text
      std::string field;
      if (i < text.size() && text[i] == '"') {
        const int opened = line;
        ++i;
        for (;;) {
          if (i >= text.size())
            throw CsvError("line " + std::to_string(opened) + ": a quoted field is never closed");
          if (text[i] == '"') {
            if (i + 1 < text.size() && text[i + 1] == '"') {
              field += '"';
              i += 2;
              continue;
            }
            ++i;
            break;
          }
          if (line_end(text[i])) {  // a line break inside quotes is part of the field
            field += '\n';
            i = skip_line_end(text, i, line);
            continue;
          }
          field += text[i++];
        }
        if (i < text.size() && text[i] != ',' && !line_end(text[i]))
          throw CsvError("line " + std::to_string(line) + ": text after the closing quote of field " +
                         std::to_string(row.fields.size() + 1) + " (a quote inside a field is written \"\")");
      } else {
        while (i < text.size() && text[i] != ',' && !line_end(text[i])) field += text[i++];
      }
      row.fields.push_back(std::move(field));
      if (i < text.size() && text[i] == ',') {
        ++i;
        continue;
      }
      if (i < text.size()) i = skip_line_end(text, i, line);
      break;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace sg
