#pragma once
// Finds every occurrence of a fixed set of literals in one pass over a line (Aho-Corasick
// automaton compiled to a byte-indexed DFA: Aho & Corasick 1975, "Efficient string matching").
// This is the cheap prefilter in front of the signature regexes: one table lookup per byte,
// whatever the number of signatures.
#include <cstdint>
#include <string_view>
#include <vector>

namespace meshplan {

class LiteralMatcher {
 public:
  /// Literal ids are their positions in `literals`; an empty literal never matches.
  explicit LiteralMatcher(const std::vector<std::string_view>& literals);

  /// Calls on_match(literal_id) for every occurrence of a literal in `text` (a literal found
  /// twice is reported twice).
  template <class OnMatch>
  void scan(std::string_view text, OnMatch&& on_match) const {
    std::uint32_t state = 0;
    for (const char c : text) {
      state = transitions_[state * 256 + static_cast<unsigned char>(c)];
      if (output_begin_[state] != output_begin_[state + 1]) {
        for (std::uint32_t i = output_begin_[state]; i < output_begin_[state + 1]; ++i) on_match(outputs_[i]);
      }
    }
  }

  std::size_t literal_count() const { return literal_count_; }

 private:
  std::size_t literal_count_ = 0;
  std::vector<std::uint32_t> transitions_;   ///< state * 256 + byte -> next state
  std::vector<std::uint32_t> output_begin_;  ///< per state, range into outputs_ (size states + 1)
  std::vector<std::uint32_t> outputs_;       ///< literal ids ending at each state
};

}  // namespace meshplan
