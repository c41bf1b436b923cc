#include "diagnose/literal_matcher.hpp"

#include <array>
#include <queue>

namespace meshplan {

LiteralMatcher::LiteralMatcher(const std::vector<std::string_view>& literals)
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
  // 3. Flatten into the tables scan() walks.
  transitions_.resize(trie.size() * 256);
  output_begin_.reserve(trie.size() + 1);
  for (std::size_t state = 0; state < trie.size(); ++state) {
    for (std::size_t byte = 0; byte < 256; ++byte) {
      transitions_[state * 256 + byte] = static_cast<std::uint32_t>(trie[state][byte]);
    }
    output_begin_.push_back(static_cast<std::uint32_t>(outputs_.size()));
    outputs_.insert(outputs_.end(), ends[state].begin(), ends[state].end());
  }
  output_begin_.push_back(static_cast<std::uint32_t>(outputs_.size()));
}

}  // namespace meshplan
