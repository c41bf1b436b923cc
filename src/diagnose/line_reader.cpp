#include "diagnose/line_reader.hpp"

#include <algorithm>
#include <cstring>

namespace meshplan {

namespace {
constexpr std::size_t kChunkBytes = 1 << 20;
}

LineReader::LineReader(std::istream& in, std::size_t max_line_bytes)
    : in_(in), max_line_bytes_(std::max<std::size_t>(max_line_bytes, 16)),
      buffer_(std::max(kChunkBytes, 2 * max_line_bytes_)) {}

bool LineReader::fill() {
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buffer_.size() || !in_) return false;
  in_.read(buffer_.data() + end_, static_cast<std::streamsize>(buffer_.size() - end_));
  const auto got = static_cast<std::size_t>(in_.gcount());
  end_ += got;
  return got > 0;
}

bool LineReader::next(std::string_view& line) {
  while (true) {
    const char* start = buffer_.data() + begin_;
    const std::size_t available = end_ - begin_;
    const void* newline = std::memchr(start, '\n', available);
    if (newline != nullptr) {
      const auto length = static_cast<std::size_t>(static_cast<const char*>(newline) - start);
      begin_ += length + 1;
      if (skipping_) {  // the end of an over-long line that was already returned
        skipping_ = false;
        continue;
      }
      ++line_number_;
      line = std::string_view(start, std::min(length, max_line_bytes_));
      return true;
    }
    if (skipping_) {  // drop the middle of an over-long line as it streams by
      begin_ = end_;
    } else if (available >= max_line_bytes_) {
      begin_ += available;  // everything buffered belongs to this line; return its head
      skipping_ = true;
      ++line_number_;
      line = std::string_view(start, max_line_bytes_);
      return true;
    }
    if (!fill()) {
      if (skipping_ || begin_ == end_) return false;
      ++line_number_;  // last line without a final newline
      line = std::string_view(buffer_.data() + begin_, std::min(end_ - begin_, max_line_bytes_));
      begin_ = end_;
      return true;
    }
  }
}

}  // namespace meshplan
