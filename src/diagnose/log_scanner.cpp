#include "diagnose/log_scanner.hpp"

#include "diagnose/constructor_error.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "core/std_regex.hpp"
#include "core/units.hpp"
#include "diagnose/constructor_error.hpp"
#include "diagnose/error_events.hpp"
#include "diagnose/line_reader.hpp"
#include "diagnose/literal_matcher.hpp"
#include "diagnose/log_line.hpp"
#include "diagnose/phase.hpp"
#include "diagnose/python_literal.hpp"
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
constexpr std::size_t kBinaryProbeBytes = 64 * 1024;  ///< NUL bytes in this head of a file: not a log
constexpr std::size_t kMaxConfigBytes = 4 << 20;      ///< verl's printed config is read up to this size
constexpr std::int64_t kSmiRows = 40;                 ///< an nvidia-smi table's rows follow its header
constexpr std::int64_t kPhaseAdoptionLines = 50;      ///< a Ray wrapper names the phase of an error this close

/// The signature table compiled once: literals deduplicated into one matcher, regexes compiled.
struct Tables {
  std::vector<std::string_view> literals;
  std::vector<std::vector<std::size_t>> signatures_of;  ///< literal -> signatures needing it
  std::vector<std::vector<std::uint32_t>> literals_of;  ///< signature -> its literals
  std::vector<int> marker_of;                           ///< literal -> phase marker, -1 if none
  std::vector<int> fact_of;                             ///< literal -> fact marker, -1 if none
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
    fact_of.push_back(-1);
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
      t.patterns.emplace_back();
      if (all[s].match == MatchKind::shape) continue;  // error_events.cpp reads these
      for (const std::string_view literal : all[s].literals) {
        const std::uint32_t id = t.intern(literal);
        if (literal == all[s].literals.front()) t.anchor[id] = true;  // a match needs its first literal
        t.signatures_of[id].push_back(s);
        t.literals_of[s].push_back(id);
      }
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
    const auto facts = fact_markers();
    for (std::size_t f = 0; f < facts.size(); ++f) {
      const std::uint32_t id = t.intern(facts[f].literal);
      t.fact_of[id] = static_cast<int>(f);
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

/// The phase a marker index names; "" for -1.
std::string_view phase_name(std::span<const PhaseMarker> markers, int marker) {
  return marker < 0 ? std::string_view{} : markers[static_cast<std::size_t>(marker)].phase;
}

double round2(double value) { return std::round(value * 100.0) / 100.0; }

/// NCCL's trace of a failed call's result code: the line ends "... init.cc:1598 -> 1" (ncclResult_t,
/// 0 is success); not a channel's route ("0[0] -> 1[1] via P2P").
bool nccl_error_trace(std::string_view body) {
  while (!body.empty() && (body.back() == ' ' || body.back() == '\r')) body.remove_suffix(1);
  const std::size_t arrow = body.rfind(" -> ");
  if (arrow == std::string_view::npos || arrow + 4 >= body.size()) return false;
  const std::string_view code = body.substr(arrow + 4);
  return code.front() != '0' && std::all_of(code.begin(), code.end(), [](char c) { return c >= '0' && c <= '9'; });
}

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

/// A signature's category after its phase rules (an OOM in the rollout is oom_rollout).
std::string category_in_phase(std::size_t signature, std::string_view phase) {
  const Signature& known = signatures()[signature];
  std::string category(known.category);
  const std::string_view group = phase_group(phase);
  for (const PhaseRule& rule : known.phase_rules) {
    if (rule.phase_group == group) category = std::string(rule.category);
  }
  return category;
}

/// '{' minus '}' outside quoted strings: how much a line of a printed dict opens.
int brace_delta(std::string_view text) {
  int delta = 0;
  char quote = '\0';
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote != '\0') {
      if (c == '\\') ++i;
      else if (c == quote) quote = '\0';
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '{') {
      ++delta;
    } else if (c == '}') {
      --delta;
    }
  }
  return delta;
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
  ErrorTracker errors;
  std::vector<ErrorEvent> finished;
  std::string last_line;  ///< the file's last non-blank line (a log that stops in NCCL's setup)
  std::string qualified;  ///< a Python <=3.9 constructor error with its class (constructor_error.hpp)
  std::int64_t last_line_number = 0;
  // verl's printed config, read over the lines it spans.
  bool capturing = false;
  std::int64_t capture_pid = -1;
  int capture_depth = 0;
  std::string config_text;
  Evidence config_evidence;
  std::int64_t smi_rows_left = 0;
  std::map<std::int64_t, std::size_t> last_event_of_pid;  ///< pid -> index of its latest event
  int file_marker = -1;  ///< the file's latest phase marker, and its line
  std::int64_t file_marker_line = 0;

  /// The phase marker of a stream; a "[rank3]:" line falls back to its process' unranked lines
  /// (the traceback frames often lack the prefix the error line has).
  int marker_of(std::pair<std::int64_t, int> stream, std::int64_t line) const {
    auto it = stream_marker.find(stream);
    if (it == stream_marker.end() && stream.second >= 0) it = stream_marker.find({stream.first, -1});
    if (it != stream_marker.end()) return it->second;
    // A line of no process with a phase of its own (an error printed without the prefix its
    // process' lines carry) takes the phase the file announced just before.
    return line - file_marker_line <= kPhaseAdoptionLines ? file_marker : -1;
  }

  /// Folds the event into an identical earlier one (other ranks, repeats) or keeps it.
  void add(ScanOutput& output, LogEvent event, std::string_view body, std::int64_t repeats) {
    s_fold_key(event.signature, event.file_index, body);
    if (const auto it = folded.find(fold_key); it != folded.end()) {
      LogEvent& earlier = output.events[it->second];
      earlier.occurrences += repeats;
      if (event.rank >= 0 && earlier.ranks.size() < kMaxRanksKept &&
          std::find(earlier.ranks.begin(), earlier.ranks.end(), event.rank) == earlier.ranks.end()) {
        earlier.ranks.push_back(event.rank);
      }
      return;
    }
    auto& [kept_count, first_index] = kept[{event.signature, event.file_index}];
    if (kept_count >= kDistinctPerSignatureAndFile) {
      output.events[first_index].occurrences += repeats;
      return;
    }
    event.occurrences = repeats;
    if (event.rank >= 0) event.ranks.push_back(event.rank);
    event.category = category_in_phase(event.signature, event.phase);
    if (kept_count++ == 0) first_index = output.events.size();
    folded.emplace(fold_key, output.events.size());
    if (last_event_of_pid.size() >= kMaxStreams) last_event_of_pid.clear();
    last_event_of_pid[event.pid] = output.events.size();
    output.events.push_back(std::move(event));
  }

  /// Ray names the failed method after the error ("Unhandled error …: ray::WorkerDict.
  /// actor_rollout_generate_sequences()"): a process' latest event without a phase, a few lines
  /// up, takes that phase and the category its phase rules give.
  void adopt_phase(ScanOutput& output, std::int64_t pid, std::int64_t line, std::string_view phase) {
    const auto it = last_event_of_pid.find(pid);
    if (it == last_event_of_pid.end()) return;
    LogEvent& event = output.events[it->second];
    if (!event.phase.empty() || line - event.line > kPhaseAdoptionLines) return;
    event.phase = std::string(phase);
    event.category = category_in_phase(event.signature, event.phase);
  }

  /// Numbers differ between ranks: every digit run folds to '#'.
  void s_fold_key(std::size_t signature, std::size_t file_index, std::string_view body) {
    fold_key.assign(std::to_string(signature)).append("|").append(std::to_string(file_index)).append("|");
    for (const char c : body.substr(0, 240)) {
      const bool digit = c >= '0' && c <= '9';
      if (!digit) {
        fold_key.push_back(c);
      } else if (fold_key.back() != '#') {
        fold_key.push_back('#');
      }
    }
  }

  void add_errors(ScanOutput& output, std::size_t file_index) {
    for (ErrorEvent& error : finished) {
      LogEvent event;
      event.signature = error.signature;
      event.file_index = file_index;
      event.line = error.line;
      event.text = std::move(error.evidence);
      event.time_seconds = error.time_seconds;
      event.rank = error.rank;
      event.pid = error.pid;
      event.phase = std::move(error.phase);
      event.numbers = std::move(error.numbers);
      add(output, std::move(event), error.body, 1);
    }
    finished.clear();
  }

  /// One more line of verl's printed config; true while the dict is still open.
  bool capture(std::string_view body, RunFacts& facts) {
    config_text.append(" ").append(body);
    capture_depth += brace_delta(body);
    if (capture_depth > 0 && config_text.size() < kMaxConfigBytes) return true;
    facts.resolved_config = flatten_python_dict(config_text);
    if (!facts.resolved_config.empty()) facts.resolved_config_line = config_evidence;
    config_text.clear();
    capturing = false;
    return false;
  }
};

LogScanner::LogScanner() : state_(std::make_unique<State>()) { state_->seen.assign(tables().literals.size(), 0); }
LogScanner::~LogScanner() = default;

Status LogScanner::scan(std::istream& in, std::string_view file_name) {
  const Tables& t = tables();
  const auto all = signatures();
  const auto markers = phase_markers();
  const auto facts = fact_markers();
  State& s = *state_;
  const std::size_t file_index = output_.files.size();
  output_.files.emplace_back(file_name);
  s.stream_marker.clear();
  s.last_line.clear();
  s.last_event_of_pid.clear();
  s.file_marker = -1;
  s.capturing = false;
  s.smi_rows_left = 0;
  std::optional<double> last_time;
  std::size_t bytes_probed = 0;
  bool binary = false;
  std::int64_t text_lines = 0;
  RunFacts& run = output_.facts;
  LineReader reader(in);
  std::string_view raw;
  while (reader.next(raw)) {
    if (bytes_probed < kBinaryProbeBytes) {
      binary = binary || std::memchr(raw.data(), '\0', raw.size()) != nullptr;
      bytes_probed += raw.size() + 1;
    }
    // Signatures read a Python <=3.9 constructor error with its class; evidence quotes the line as written.
    const std::string_view shown = clean_line(raw, s.scratch);
    const std::string_view line = qualify_bare_init_error(shown, s.last_line, s.qualified);
    const LinePrefix prefix = parse_prefix(line);
    if (prefix.time_seconds) last_time = prefix.time_seconds;
    const std::int64_t line_number = reader.line_number();
    if (prefix.body.empty()) continue;
    ++text_lines;
    s.last_line.assign(shown);
    s.last_line_number = line_number;
    if (s.capturing && prefix.pid == s.capture_pid && s.capture(prefix.body, run)) continue;
    if (!run.verl && !prefix.source.empty()) read_process_name(prefix.source, run);
    if (s.smi_rows_left > 0) {
      --s.smi_rows_left;
      if (auto name = smi_gpu_name(prefix.body); name && run.gpu_names.size() < 8 &&
                                                 std::find(run.gpu_names.begin(), run.gpu_names.end(), *name) ==
                                                     run.gpu_names.end()) {
        run.gpu_names.push_back(std::move(*name));
      }
    }
    s.hits.clear();
    t.matcher->scan(line, [&](std::uint32_t id) {
      if (s.seen[id] == 0) {
        s.seen[id] = 1;
        s.hits.push_back(id);
      }
    });
    const auto evidence_text = [&] { return std::string(shown.substr(0, kEvidenceChars)); };
    const std::pair<std::int64_t, int> stream{prefix.pid, prefix.rank};
    if (s.hits.empty()) {
      s.errors.line(prefix, shown, line_number, last_time, phase_name(markers, s.marker_of(stream, line_number)), false,
                    s.finished);
      if (!s.finished.empty()) s.add_errors(output_, file_index);
      continue;
    }

    if (s.seen[t.metric] != 0 &&
        output_.metrics.add(prefix.body, Evidence{std::string(file_name), line_number, evidence_text()})) {
      for (const std::uint32_t id : s.hits) s.seen[id] = 0;
      continue;  // metric names (timing_s/update_actor) are not phase markers
    }
    if (s.seen[t.traceback] != 0) {  // a new traceback starts without the old frames' phase
      s.stream_marker.erase(stream);
      s.file_marker = -1;
    }
    int marker = -1;
    std::size_t best_signature = all.size();
    // Phase markers count in traceback frames and Ray method names (engines announce theirs in
    // messages), not in arbitrary text.
    const bool names_a_call =
        line.find(", in ") != std::string_view::npos || line.find("ray::") != std::string_view::npos;
    for (const std::uint32_t id : s.hits) {
      const int hit_marker = t.marker_of[id];
      if (hit_marker >= 0 && (names_a_call || markers[static_cast<std::size_t>(hit_marker)].message)) {
        marker = std::max(marker, hit_marker);
      }
      if (const int fact = t.fact_of[id]; fact >= 0) {
        const FactMarker& fact_marker = facts[static_cast<std::size_t>(fact)];
        read_fact(fact_marker.kind, prefix.body, run);
        if (fact_marker.kind == FactKind::nvidia_smi) s.smi_rows_left = kSmiRows;
        if (fact_marker.kind == FactKind::resolved_config && !s.capturing && run.resolved_config.empty()) {
          const std::size_t at = prefix.body.find(kResolvedConfigStart);
          s.capturing = true;
          s.capture_pid = prefix.pid;
          s.capture_depth = 0;
          s.config_evidence = Evidence{std::string(file_name), line_number, evidence_text()};
          s.capture(prefix.body.substr(at), run);
        }
      }
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
                              ((markers[static_cast<std::size_t>(current->second)].group == "training" &&
                                markers[static_cast<std::size_t>(marker)].group == "training") ||
                               markers[static_cast<std::size_t>(marker)].fallback);
      if (!keep_outer) s.stream_marker[stream] = marker;
      if (!markers[static_cast<std::size_t>(marker)].fallback || s.file_marker < 0) {
        s.file_marker = marker;
        s.file_marker_line = line_number;
      }
      if (line.find("ray::") != std::string_view::npos) {
        s.adopt_phase(output_, prefix.pid, line_number, markers[static_cast<std::size_t>(marker)].phase);
      }
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
    const std::string_view phase = phase_name(markers, s.marker_of(stream, line_number));
    s.errors.line(prefix, shown, line_number, last_time, phase, best_signature < all.size(), s.finished);
    if (!s.finished.empty()) s.add_errors(output_, file_index);
    if (best_signature == all.size()) continue;

    // An event of a literal signature.
    const Signature& signature = all[best_signature];
    std::string_view body = prefix.body;
    const std::int64_t repeats = take_ray_repeat(body);
    LogEvent event;
    event.signature = best_signature;
    event.file_index = file_index;
    event.line = line_number;
    event.text = evidence_text();
    event.time_seconds = last_time;
    event.pid = prefix.pid;
    event.rank = rank_of(prefix, body);
    event.phase = std::string(phase);
    if (t.patterns[best_signature]) event.numbers = extract_numbers(signature, *t.patterns[best_signature], body);
    s.add(output_, std::move(event), body, repeats);
  }
  s.errors.finish(s.finished);
  s.add_errors(output_, file_index);
  if (s.capturing) s.capture("}", run);
  // A log that stops in NCCL's INFO lines, without an error: the run hung there. NCCL's return-code
  // trace after a failure ("NCCL INFO init.cc:1598 -> 1", src/include/checks.h NCCLCHECK) is an
  // error propagating, not a hang.
  if (const LinePrefix last = parse_prefix(s.last_line);
      last.body.find("NCCL INFO") != std::string_view::npos && !nccl_error_trace(last.body)) {
    LogEvent event;
    event.signature = signature_index("log_ends_in_nccl");
    event.file_index = file_index;
    event.line = s.last_line_number;
    event.text = s.last_line.substr(0, kEvidenceChars);
    event.time_seconds = last_time;
    event.pid = last.pid;
    event.rank = last.rank;
    s.add(output_, std::move(event), "", 1);
  }
  output_.lines_read += reader.line_number();
  if (reader.failed()) return Error{std::string(file_name), static_cast<int>(reader.line_number()), "", "read error"};
  if (binary) return Error{std::string(file_name), 0, "", "is a binary file (NUL bytes), not a text log"};
  if (text_lines == 0) return Error{std::string(file_name), 0, "", "holds no text lines (an empty log)"};
  return Ok{};
}

}  // namespace meshplan
