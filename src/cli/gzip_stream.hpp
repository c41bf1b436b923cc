#pragma once
// A std::istream over a gzip file (zlib's gzread), so that compressed logs stream through the
// same reader as plain ones. gzread also reads uncompressed files transparently.
#include <zlib.h>

#include <array>
#include <istream>
#include <streambuf>
#include <string>

namespace meshplan {

class GzipStreamBuffer : public std::streambuf {
 public:
  explicit GzipStreamBuffer(const std::string& path) : file_(gzopen(path.c_str(), "rb")) {}
  ~GzipStreamBuffer() override {
    if (file_ != nullptr) gzclose(file_);
  }
  GzipStreamBuffer(const GzipStreamBuffer&) = delete;
  GzipStreamBuffer& operator=(const GzipStreamBuffer&) = delete;

  bool is_open() const { return file_ != nullptr; }
  bool failed() const { return failed_; }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    if (file_ == nullptr) return traits_type::eof();
    const int got = gzread(file_, buffer_.data(), static_cast<unsigned>(buffer_.size()));
    if (got < 0) failed_ = true;
    if (got <= 0) return traits_type::eof();
    setg(buffer_.data(), buffer_.data(), buffer_.data() + got);
    return traits_type::to_int_type(*gptr());
  }

 private:
  gzFile file_;
  bool failed_ = false;
  std::array<char, 1 << 16> buffer_{};
};

class GzipInputStream : public std::istream {
 public:
  explicit GzipInputStream(const std::string& path) : std::istream(nullptr), buffer_(path) { rdbuf(&buffer_); }
  bool is_open() const { return buffer_.is_open(); }
  bool failed() const { return buffer_.failed(); }

 private:
  GzipStreamBuffer buffer_;
};

}  // namespace meshplan
