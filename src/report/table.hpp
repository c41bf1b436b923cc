#pragma once
// Aligned text tables for terminal output, shared by every command. Pure: returns a string.
#include <string>
#include <vector>

namespace meshplan {

enum class Align { left, right };

struct TableColumn {
  std::string header;
  Align align = Align::left;
};

/// Renders a header row, a dashed rule and the rows, columns separated by two spaces and padded
/// to the widest cell (UTF-8 aware). Rows shorter than the header are padded with empty cells.
std::string render_table(const std::vector<TableColumn>& columns, const std::vector<std::vector<std::string>>& rows);

}  // namespace meshplan
