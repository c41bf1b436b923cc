#include "report/table.hpp"

#include <algorithm>

namespace meshplan {
namespace {

/// Display width: UTF-8 continuation bytes (10xxxxxx) take no column.
std::size_t display_width(const std::string& text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

void append_cell(std::string& line, const std::string& cell, std::size_t width, Align align) {
  const std::string padding(width - display_width(cell), ' ');
  line += align == Align::right ? padding + cell : cell + padding;
}

}  // namespace

std::string render_table(const std::vector<TableColumn>& columns, const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> widths;
  for (const TableColumn& column : columns) widths.push_back(display_width(column.header));
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < std::min(row.size(), widths.size()); ++i) {
      widths[i] = std::max(widths[i], display_width(row[i]));
    }
  }
  const auto render_row = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (std::size_t i = 0; i < columns.size(); ++i) {
      if (i > 0) line += "  ";
      append_cell(line, i < cells.size() ? cells[i] : std::string(), widths[i], columns[i].align);
    }
    line.erase(line.find_last_not_of(' ') + 1);
    return line + "\n";
  };
  std::vector<std::string> headers;
  std::vector<std::string> rule;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    headers.push_back(columns[i].header);
    rule.emplace_back(widths[i], '-');
  }
  std::string text = render_row(headers) + render_row(rule);
  for (const auto& row : rows) text += render_row(row);
  return text;
}

}  // namespace meshplan
