#include "diagnose/literal_matcher.hpp"

#include <algorithm>
#include <array>
#include <queue>
#include <stdexcept>

namespace meshplan {

LiteralMatcher::LiteralMatcher(const std::vector<std::string_view>& literals, const std::vector<bool>& anchor)
    : literal_count_(literals.size()) {
  // 1. The trie; -1 marks a missing edge until the failure links fill it in.
  std::vector<std::array<std::int32_t, 256>> trie(1);
  trie[0].fill(-1);
  std::vector<std::vector<std::uint32_t>> ends(1);
  for (std::uint32_t id = 0; id < literals.size(); ++id) {
    if (literals[id].empty()) continue;
    std::size_t state = 0;
    for (const char c : literals[id]) {
      const auto byte = static_cast<unsigned char>(c);
      if (trie[state][byte] < 0) {
        trie[state][byte] = static_cast<std::int32_t>(trie.size());
        trie.emplace_back().fill(-1);
        ends.emplace_back();
      }
      state = static_cast<std::size_t>(trie[state][byte]);
    }
    ends[state].push_back(id);
  }
  // 2. Breadth-first: failure links turn the trie into a complete DFA, and each state inherits
  // the outputs of its failure state (a literal that is a suffix of another).
  std::vector<std::uint32_t> fail(trie.size(), 0);
  std::queue<std::uint32_t> pending;
  for (auto& next : trie[0]) {
    if (next < 0) {
      next = 0;
    } else {
      pending.push(static_cast<std::uint32_t>(next));
    }
  }
  while (!pending.empty()) {
    const std::uint32_t state = pending.front();
    pending.pop();
    for (std::size_t byte = 0; byte < 256; ++byte) {
      const std::int32_t next = trie[state][byte];
      const std::int32_t via_fail = trie[fail[state]][byte];
      if (next < 0) {
        trie[state][byte] = via_fail;
        continue;
      }
      fail[static_cast<std::size_t>(next)] = static_cast<std::uint32_t>(via_fail);
      const auto& inherited = ends[static_cast<std::size_t>(via_fail)];
      auto& own = ends[static_cast<std::size_t>(next)];
      own.insert(own.end(), inherited.begin(), inherited.end());
      pending.push(static_cast<std::uint32_t>(next));
    }
  }
  // 3. The window filter: two runs of kStride windows (8 bytes each) per anchor, the runs least
  // likely in ordinary text (fewest lower-case letters, digits and spaces), the second not
  // overlapping the first when the anchor is long enough.
  first_windows_.assign((std::size_t{1} << kWindowBits) / 64, 0);
  second_windows_ = first_windows_;
  const auto common = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == ' '; };
  const auto rarest_run = [&](std::string_view literal, std::size_t skip_from, std::size_t skip_to) {
    std::size_t best = std::string_view::npos;
    auto best_common = static_cast<std::ptrdiff_t>(kMinAnchor + 1);
    for (std::size_t i = 0; i + kMinAnchor <= literal.size(); ++i) {
      if (i + kMinAnchor > skip_from && i < skip_to) continue;  // overlaps the excluded run
      const auto start = literal.begin() + static_cast<std::ptrdiff_t>(i);
      const auto count = std::count_if(start, start + static_cast<std::ptrdiff_t>(kMinAnchor), common);
      if (count < best_common) {
        best_common = count;
        best = i;
      }
    }
    return best;
  };
  const auto add_run = [](std::vector<std::uint64_t>& table, const char* at) {
    for (std::size_t j = 0; j < kStride; ++j) set_bit(table, window_hash(at + j));
  };
  for (std::size_t id = 0; id < literals.size(); ++id) {
    const std::string_view literal = literals[id];
    if (literal.empty() || (!anchor.empty() && !anchor[id])) continue;
    if (literal.size() < kMinAnchor) {
      has_short_anchor_ = true;
      continue;
    }
    const std::size_t first = rarest_run(literal, 0, 0);
    std::size_t second = rarest_run(literal, first, first + kMinAnchor);
    if (second == std::string_view::npos) second = first;  // too short for two separate runs
    add_run(first_windows_, literal.data() + first);
    add_run(second_windows_, literal.data() + second);
  }

  // 4. Flatten into the tables scan() walks: one column per byte class.
  for (const std::string_view literal : literals) {
    for (const char c : literal) {
      auto& cls = byte_class_[static_cast<unsigned char>(c)];
      if (cls == 0) cls = static_cast<std::uint8_t>(class_count_++);
    }
  }
  if (class_count_ > 255) throw std::length_error("LiteralMatcher: too many distinct bytes");
  // Renumber: states without output first (the root stays 0), states that end a literal last.
  std::vector<std::uint32_t> number(trie.size());
  std::uint32_t next = 0;
  for (const bool with_output : {false, true}) {
    for (std::size_t state = 0; state < trie.size(); ++state) {
      if (ends[state].empty() != with_output) number[state] = next++;
    }
  }
  std::vector<std::size_t> old_of(trie.size());
  for (std::size_t state = 0; state < trie.size(); ++state) old_of[number[state]] = state;
  const auto first_output = static_cast<std::uint32_t>(
      std::count_if(ends.begin(), ends.end(), [](const auto& e) { return e.empty(); }));
  first_output_row_ = first_output * class_count_;
  transitions_.resize(trie.size() * class_count_);
  output_begin_.reserve(trie.size() + 1);
  for (std::uint32_t renumbered = 0; renumbered < trie.size(); ++renumbered) {
    const std::size_t state = old_of[renumbered];
    for (std::size_t byte = 0; byte < 256; ++byte) {
      // Every byte of class 0 leads where an unknown byte leads (the root).
      transitions_[renumbered * class_count_ + byte_class_[byte]] =
          number[static_cast<std::size_t>(trie[state][byte])] * class_count_;
    }
    output_begin_.push_back(static_cast<std::uint32_t>(outputs_.size()));
    outputs_.insert(outputs_.end(), ends[state].begin(), ends[state].end());
  }
  output_begin_.push_back(static_cast<std::uint32_t>(outputs_.size()));
}

}  // namespace meshplan
