#pragma once
// Reads a text stream line by line in bounded memory: a fixed buffer, and lines longer than
// `max_line_bytes` cut to that length (the rest of such a line is skipped). A 1 GB log or a
// log with a 1 GB line costs the same memory as a small one.
#include <cstddef>
#include <cstdint>
#include <istream>
#include <string_view>
#include <vector>

namespace meshplan {

class LineReader {
 public:
  static constexpr std::size_t kDefaultMaxLineBytes = 64 * 1024;

  explicit LineReader(std::istream& in, std::size_t max_line_bytes = kDefaultMaxLineBytes);

  /// The next line without its '\n'; false at the end of the stream (or on a read error:
  /// check failed()). The view is valid until the next call.
  bool next(std::string_view& line);

  /// 1-based number of the line last returned.
  std::int64_t line_number() const { return line_number_; }
  /// The stream reported a read error (not end-of-file).
  bool failed() const { return in_.bad(); }

 private:
  bool fill();  ///< moves unread bytes to the front and reads more; false when nothing new came

  std::istream& in_;
  std::size_t max_line_bytes_;
  std::vector<char> buffer_;
  std::size_t begin_ = 0;  ///< first unread byte
  std::size_t end_ = 0;    ///< one past the last byte read
  bool skipping_ = false;  ///< inside the unread tail of an over-long line
  std::int64_t line_number_ = 0;
};

}  // namespace meshplan
