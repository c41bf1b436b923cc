#pragma once
// Finds every occurrence of a fixed set of literals in one pass over a line (Aho-Corasick
// automaton compiled to a byte-indexed DFA: Aho & Corasick 1975, "Efficient string matching").
// This is the cheap prefilter in front of the signature regexes. In front of the automaton sits
// a cheaper one still: each anchor literal leaves two of its 8-byte windows in two hashed bit
// tables, and a line that misses either table holds no anchor (the idea of q-gram
// filters, e.g. Hyperscan's "FDR"); the checks are independent, so they run at CPU throughput
// rather than at the latency of the automaton's dependent loads. Literals that are not anchors
// are reported only on lines that hold an anchor.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace meshplan {

class LiteralMatcher {
 public:
  /// Literal ids are their positions in `literals`; an empty literal never matches.
  /// `anchor[i]`: literal i alone lets a line through the window filter (all when empty).
  explicit LiteralMatcher(const std::vector<std::string_view>& literals, const std::vector<bool>& anchor = {});

  /// Whether the window filter is active (every anchor is at least kMinAnchor = 11 bytes long).
  bool filters() const { return !has_short_anchor_; }

  /// Calls on_match(literal_id) for every occurrence of a literal in `text` (a literal found
  /// twice is reported twice).
  /// False when `text` certainly holds no anchor. Each anchor left two runs of kStride
  /// consecutive windows, one run in each table; wherever the anchor sits in a line, one window of
  /// each run starts at a multiple of kStride, so checking those positions is enough.
  bool may_match(std::string_view text) const {
    if (has_short_anchor_) return true;
    bool first = false;
    bool second = false;
    for (std::size_t i = 0; i + kWindow <= text.size(); i += kStride) {
      const std::uint32_t hash = window_hash(text.data() + i);
      first = first || bit(first_windows_, hash);
      second = second || bit(second_windows_, hash);
      if (first && second) return true;
    }
    return false;
  }

  template <class OnMatch>
  void scan(std::string_view text, OnMatch&& on_match) const {
    if (!may_match(text)) return;
    // The table holds row offsets (state * class count), and the states that end a literal are
    // numbered last: the hot loop is one load and one compare per byte.
    std::uint32_t row = 0;
    for (const char c : text) {
      row = transitions_[row + byte_class_[static_cast<unsigned char>(c)]];
      if (row >= first_output_row_) {
        const std::uint32_t state = row / class_count_;
        for (std::uint32_t i = output_begin_[state]; i < output_begin_[state + 1]; ++i) on_match(outputs_[i]);
      }
    }
  }

  std::size_t literal_count() const { return literal_count_; }

 private:
  static constexpr std::size_t kWindow = 8;     ///< bytes per window
  static constexpr std::size_t kStride = 4;     ///< the filter looks at every kStride-th window
  static constexpr std::size_t kMinAnchor = kWindow + kStride - 1;
  static constexpr unsigned kWindowBits = 18;   ///< 2^18-bit tables: 32 KiB each

  static std::uint32_t window_hash(const char* at) {
    std::uint64_t window;
    std::memcpy(&window, at, kWindow);
    return static_cast<std::uint32_t>((window * 0x9E3779B97F4A7C15ull) >> (64 - kWindowBits));  // Fibonacci hashing
  }
  static bool bit(const std::vector<std::uint64_t>& table, std::uint32_t hash) {
    return (table[hash >> 6] >> (hash & 63)) & 1;
  }
  static void set_bit(std::vector<std::uint64_t>& table, std::uint32_t hash) {
    table[hash >> 6] |= std::uint64_t{1} << (hash & 63);
  }

  std::size_t literal_count_ = 0;
  bool has_short_anchor_ = false;             ///< an anchor under kMinAnchor bytes: no window filter
  std::vector<std::uint64_t> first_windows_;   ///< each anchor's most distinctive run of windows
  std::vector<std::uint64_t> second_windows_;  ///< each anchor's most distinctive run elsewhere
  /// Bytes that occur in no literal share class 0, so the table has one column per byte that
  /// matters (about 70, not 256) and stays in cache.
  std::uint8_t byte_class_[256] = {};
  std::uint32_t class_count_ = 1;
  std::uint32_t first_output_row_ = 0;       ///< rows at or past it end at least one literal
  std::vector<std::uint32_t> transitions_;   ///< row + class -> next row (row = state * class_count_)
  std::vector<std::uint32_t> output_begin_;  ///< per state, range into outputs_ (size states + 1)
  std::vector<std::uint32_t> outputs_;       ///< literal ids ending at each state
};

}  // namespace meshplan
