#include "diagnose/log_scanner.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
// GCC 12 reports false -Wmaybe-uninitialized positives inside libstdc++'s <regex> when built with
// -fsanitize (std::function moved in _NFA::_M_insert_*); silenced for that header only.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <regex>
#pragma GCC diagnostic pop
#include <unordered_map>

#include "core/units.hpp"
#include "diagnose/line_reader.hpp"
#include "diagnose/literal_matcher.hpp"
#include "diagnose/log_line.hpp"
#include "diagnose/phase.hpp"
#include "diagnose/signature.hpp"

namespace meshplan {

namespace {

constexpr std::string_view kTracebackLiteral = "Traceback (most recent call last)";
constexpr std::string_view kOverridesLiteral = "Error executing job with overrides: ";
constexpr std::string_view kMetricLiteral = " - timing_s/";  ///< in every verl step-metric line
constexpr std::size_t kEvidenceChars = 400;     ///< a quoted line is cut here
constexpr std::size_t kRegexWindow = 4096;      ///< regexes see at most this much of a line
constexpr int kDistinctPerSignatureAndFile = 4;  ///< further distinct messages are only counted
constexpr std::size_t kMaxRanksKept = 64;
constexpr std::size_t kMaxStreams = 10000;

/// The signature table compiled once: literals deduplicated into one matcher, regexes compiled.
struct Tables {
  std::vector<std::string_view> literals;
  std::vector<std::vector<std::size_t>> signatures_of;  ///< literal -> signatures needing it
  std::vector<std::vector<std::uint32_t>> literals_of;  ///< signature -> its literals
  std::vector<int> marker_of;                           ///< literal -> phase marker, -1 if none
  std::vector<bool> anchor;                             ///< literal lets a line through the filter
  std::vector<std::optional<std::regex>> patterns;
  std::uint32_t traceback = 0, overrides = 0, metric = 0;
  std::optional<LiteralMatcher> matcher;

  std::uint32_t intern(std::string_view literal) {
    const auto it = std::find(literals.begin(), literals.end(), literal);
    if (it != literals.end()) return static_cast<std::uint32_t>(it - literals.begin());
    literals.push_back(literal);
    signatures_of.emplace_back();
    marker_of.push_back(-1);
    anchor.push_back(false);
    return static_cast<std::uint32_t>(literals.size() - 1);
  }
};

const Tables& tables() {
  static const Tables kTables = [] {
    Tables t;
    const auto all = signatures();
    for (std::size_t s = 0; s < all.size(); ++s) {
      t.literals_of.emplace_back();
      for (const std::string_view literal : all[s].literals) {
        const std::uint32_t id = t.intern(literal);
        if (literal == all[s].literals.front()) t.anchor[id] = true;  // a match needs its first literal
        t.signatures_of[id].push_back(s);
        t.literals_of[s].push_back(id);
      }
      t.patterns.emplace_back();
      if (!all[s].pattern.empty()) {
        t.patterns.back().emplace(all[s].pattern.begin(), all[s].pattern.end(), std::regex::ECMAScript);
      }
    }
    const auto markers = phase_markers();
    for (std::size_t m = 0; m < markers.size(); ++m) {
      const std::uint32_t id = t.intern(markers[m].literal);
      t.marker_of[id] = static_cast<int>(m);
      t.anchor[id] = true;
    }
    const auto structural = [&t](std::string_view literal) {
      const std::uint32_t id = t.intern(literal);
      t.anchor[id] = true;
      return id;
    };
    t.traceback = structural(kTracebackLiteral);
    t.overrides = structural(kOverridesLiteral);
    t.metric = structural(kMetricLiteral);
    t.matcher.emplace(t.literals, t.anchor);
    return t;
  }();
  return kTables;
}

std::optional<double> parse_double(std::string_view text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end == text.data()) return std::nullopt;
  return value;
}

/// "9.28 GiB", "787.74 MiB", "512 B" -> GiB (PyTorch prints binary units).
std::optional<double> size_in_gib(std::string_view text) {
  const std::size_t space = text.find(' ');
  const auto amount = parse_double(text.substr(0, space));
  if (!amount || space == std::string_view::npos) return amount;
  const std::string_view unit = text.substr(space + 1);
  const char scale = unit.size() > 1 ? unit[0] : 'B';
  switch (scale) {
    case 'K': return *amount * kKiB / kGiB;
    case 'M': return *amount * kMiB / kGiB;
    case 'G': return *amount;
    case 'T': return *amount * 1024.0;
    default: return *amount / kGiB;
  }
}

double round2(double value) { return std::round(value * 100.0) / 100.0; }

Numbers extract_numbers(const Signature& signature, const std::regex& pattern, std::string_view body) {
  Numbers numbers;
  const std::string_view window = body.substr(0, kRegexWindow);
  std::match_results<std::string_view::const_iterator> match;
  if (!std::regex_search(window.begin(), window.end(), match, pattern)) return numbers;
  for (std::size_t i = 0; i < signature.captures.size() && i + 1 < match.size(); ++i) {
    if (!match[i + 1].matched) continue;
    const std::string_view raw = window.substr(static_cast<std::size_t>(match[i + 1].first - window.begin()),
                                               static_cast<std::size_t>(match[i + 1].length()));
    const Capture& capture = signature.captures[i];
    std::optional<double> value;
    switch (capture.kind) {
      case CaptureKind::text: numbers[std::string(capture.name)] = NumberValue{0, std::string(raw), true}; continue;
      case CaptureKind::gib: value = size_in_gib(raw); break;
      case CaptureKind::kib_as_gib:
        value = parse_double(raw);
        if (value) value = round2(*value * kKiB / kGiB);
        break;
      case CaptureKind::number: value = parse_double(raw); break;
    }
    if (value) numbers[std::string(capture.name)] = NumberValue{*value, "", false};
  }
  return numbers;
}

/// Ray folds repeats into "... [repeated 7x across cluster]"; returns 7 and cuts the suffix.
std::int64_t take_ray_repeat(std::string_view& text) {
  constexpr std::string_view kTail = "x across cluster]";
  if (!text.ends_with(kTail)) return 1;
  const std::size_t open = text.rfind("[repeated ");
  if (open == std::string_view::npos) return 1;
  std::int64_t count = 1;
  const std::string_view digits = text.substr(open + 10, text.size() - kTail.size() - open - 10);
  std::from_chars(digits.data(), digits.data() + digits.size(), count);
  text = text.substr(0, open);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return std::max<std::int64_t>(count, 1);
}

/// The rank a line speaks for: its "[rank3]:" prefix, else a "[Rank 3]" in the message (NCCL).
int rank_of(const LinePrefix& prefix, std::string_view body) {
  if (prefix.rank >= 0) return prefix.rank;
  const std::size_t at = body.find("[Rank ");
  if (at == std::string_view::npos) return -1;
  int rank = -1;
  const std::string_view digits = body.substr(at + 6, 8);
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), rank);
  return error == std::errc() && end != digits.data() ? rank : -1;
}

}  // namespace

std::map<std::string, std::string, std::less<>> parse_override_list(std::string_view list) {
  std::map<std::string, std::string, std::less<>> overrides;
  std::size_t pos = 0;
  while (pos < list.size()) {
    const std::size_t open = list.find_first_of("'\"", pos);
    if (open == std::string_view::npos) break;
    const char quote = list[open];
    std::size_t close = open + 1;
    while (close < list.size() && (list[close] != quote || list[close - 1] == '\\')) ++close;
    std::string_view item = list.substr(open + 1, close - open - 1);
    pos = close + 1;
    while (!item.empty() && (item.front() == '+' || item.front() == '~')) item.remove_prefix(1);
    const std::size_t equals = item.find('=');
    if (equals == std::string_view::npos || equals == 0) continue;
    overrides[std::string(item.substr(0, equals))] = std::string(item.substr(equals + 1));
  }
  return overrides;
}

struct LogScanner::State {
  std::vector<std::uint8_t> seen;
  std::vector<std::uint32_t> hits;
  std::map<std::pair<std::int64_t, int>, int> stream_marker;  ///< (pid, rank) -> latest phase marker
  std::unordered_map<std::string, std::size_t> folded;        ///< fold key -> event index
  std::map<std::pair<std::size_t, std::size_t>, std::pair<int, std::size_t>> kept;  ///< (sig, file) -> count, first
  std::string scratch;
  std::string fold_key;
};

LogScanner::LogScanner() : state_(std::make_unique<State>()) { state_->seen.assign(tables().literals.size(), 0); }
LogScanner::~LogScanner() = default;

Status LogScanner::scan(std::istream& in, std::string_view file_name) {
  const Tables& t = tables();
  const auto all = signatures();
  const auto markers = phase_markers();
  State& s = *state_;
  const std::size_t file_index = output_.files.size();
  output_.files.emplace_back(file_name);
  s.stream_marker.clear();
  std::optional<double> last_time;
  LineReader reader(in);
  std::string_view raw;
  while (reader.next(raw)) {
    const std::string_view line = clean_line(raw, s.scratch);
    s.hits.clear();
    t.matcher->scan(line, [&](std::uint32_t id) {
      if (s.seen[id] == 0) {
        s.seen[id] = 1;
        s.hits.push_back(id);
      }
    });
    const LinePrefix prefix = parse_prefix(line);
    if (prefix.time_seconds) last_time = prefix.time_seconds;
    if (s.hits.empty()) continue;
    const std::int64_t line_number = reader.line_number();
    const auto evidence_text = [&] { return std::string(line.substr(0, kEvidenceChars)); };

    if (s.seen[t.metric] != 0 &&
        output_.metrics.add(prefix.body, Evidence{std::string(file_name), line_number, evidence_text()})) {
      for (const std::uint32_t id : s.hits) s.seen[id] = 0;
      continue;  // metric names (timing_s/update_actor) are not phase markers
    }
    const std::pair<std::int64_t, int> stream{prefix.pid, prefix.rank};
    if (s.seen[t.traceback] != 0) s.stream_marker.erase(stream);
    int marker = -1;
    std::size_t best_signature = all.size();
    // Phase markers count in traceback frames and Ray method names, not in arbitrary text.
    const bool names_a_call =
        line.find(", in ") != std::string_view::npos || line.find("ray::") != std::string_view::npos;
    for (const std::uint32_t id : s.hits) {
      if (names_a_call) marker = std::max(marker, t.marker_of[id]);
      for (const std::size_t candidate : t.signatures_of[id]) {
        if (candidate >= best_signature) continue;
        const auto& needed = t.literals_of[candidate];
        if (std::all_of(needed.begin(), needed.end(), [&](std::uint32_t n) { return s.seen[n] != 0; })) {
          best_signature = candidate;
        }
      }
    }
    if (marker >= 0) {
      if (s.stream_marker.size() >= kMaxStreams) s.stream_marker.clear();
      const auto current = s.stream_marker.find(stream);
      // In one traceback the outermost training method names the phase (the ref pass calls the
      // actor's compute_log_prob); for the rollout the innermost frame is the most precise (a
      // weight sync inside generate_sequences).
      const bool keep_outer = current != s.stream_marker.end() &&
                              markers[static_cast<std::size_t>(current->second)].group == "training" &&
                              markers[static_cast<std::size_t>(marker)].group == "training";
      if (!keep_outer) s.stream_marker[stream] = marker;
    }
    if (s.seen[t.overrides] != 0) {
      const std::size_t at = prefix.body.find(kOverridesLiteral);
      if (at != std::string_view::npos) {
        for (auto& [key, value] : parse_override_list(prefix.body.substr(at + kOverridesLiteral.size()))) {
          output_.overrides[key] = value;
        }
        output_.overrides_line = Evidence{std::string(file_name), line_number, evidence_text()};
      }
    }
    for (const std::uint32_t id : s.hits) s.seen[id] = 0;
    if (best_signature == all.size()) continue;

    // An event: fold it into an identical earlier one, or keep it.
    const Signature& signature = all[best_signature];
    std::string_view body = prefix.body;
    const std::int64_t repeats = take_ray_repeat(body);
    const int rank = rank_of(prefix, body);
    s.fold_key.assign(std::to_string(best_signature)).append("|").append(std::to_string(file_index)).append("|");
    for (const char c : body.substr(0, 240)) {  // numbers differ between ranks: fold every digit run to '#'
      const bool digit = c >= '0' && c <= '9';
      if (!digit) {
        s.fold_key.push_back(c);
      } else if (s.fold_key.back() != '#') {
        s.fold_key.push_back('#');
      }
    }
    if (const auto it = s.folded.find(s.fold_key); it != s.folded.end()) {
      LogEvent& event = output_.events[it->second];
      event.occurrences += repeats;
      if (rank >= 0 && event.ranks.size() < kMaxRanksKept &&
          std::find(event.ranks.begin(), event.ranks.end(), rank) == event.ranks.end()) {
        event.ranks.push_back(rank);
      }
      continue;
    }
    auto& [kept_count, first_index] = s.kept[{best_signature, file_index}];
    if (kept_count >= kDistinctPerSignatureAndFile) {
      output_.events[first_index].occurrences += repeats;
      continue;
    }
    LogEvent event;
    event.signature = best_signature;
    event.file_index = file_index;
    event.line = line_number;
    event.text = evidence_text();
    event.time_seconds = last_time;
    event.pid = prefix.pid;
    event.occurrences = repeats;
    if (t.patterns[best_signature]) event.numbers = extract_numbers(signature, *t.patterns[best_signature], body);
    event.rank = rank;
    if (rank >= 0) event.ranks.push_back(rank);
    if (const auto it = s.stream_marker.find(stream); it != s.stream_marker.end()) {
      event.phase = std::string(markers[static_cast<std::size_t>(it->second)].phase);
    }
    event.category = std::string(signature.category);
    const std::string_view group = phase_group(event.phase);
    for (const PhaseRule& rule : signature.phase_rules) {
      if (rule.phase_group == group) event.category = std::string(rule.category);
    }
    if (kept_count++ == 0) first_index = output_.events.size();
    s.folded.emplace(s.fold_key, output_.events.size());
    output_.events.push_back(std::move(event));
  }
  output_.lines_read += reader.line_number();
  if (reader.failed()) return Error{std::string(file_name), static_cast<int>(reader.line_number()), "", "read error"};
  return Ok{};
}

}  // namespace meshplan
