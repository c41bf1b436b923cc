#include "diagnose/log_line.hpp"

#include <array>
#include <cstring>

namespace meshplan {

namespace {

std::string_view trim(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const std::size_t last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

/// Removes CSI ("ESC [ params final") and two-byte escape sequences, copying the text between
/// them in runs.
void strip_ansi(std::string_view text, std::string& out) {
  out.clear();
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t escape = text.find('\x1b', pos);
    out.append(text.substr(pos, escape - pos));
    if (escape == std::string_view::npos) break;
    std::size_t next = escape + 2;  // ESC and the byte after it
    if (escape + 1 < text.size() && text[escape + 1] == '[') {
      while (next < text.size() && !(text[next] >= 0x40 && text[next] <= 0x7e)) ++next;
      ++next;  // the final byte
    }
    pos = next;
  }
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// Reads exactly `count` digits at `pos`.
std::optional<int> digits(std::string_view text, std::size_t pos, std::size_t count) {
  if (pos + count > text.size()) return std::nullopt;
  int value = 0;
  for (std::size_t i = pos; i < pos + count; ++i) {
    if (!is_digit(text[i])) return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

/// "HH:MM:SS" at `pos`, plus an optional ".fraction" / ",fraction"; advances `pos`.
std::optional<double> clock_at(std::string_view text, std::size_t& pos) {
  const auto h = digits(text, pos, 2);
  const auto m = digits(text, pos + 3, 2);
  const auto s = digits(text, pos + 6, 2);
  if (!h || !m || !s || text[pos + 2] != ':' || text[pos + 5] != ':') return std::nullopt;
  double seconds = *h * 3600.0 + *m * 60.0 + *s;
  pos += 8;
  if (pos < text.size() && (text[pos] == '.' || text[pos] == ',')) {
    double scale = 0.1;
    ++pos;
    while (pos < text.size() && is_digit(text[pos])) {
      if (scale > 1e-9) seconds += (text[pos] - '0') * scale;
      scale /= 10;
      ++pos;
    }
  }
  return seconds;
}

double calendar_seconds(int month, int day, double clock) { return ((month * 31.0) + day) * 86400.0 + clock; }

/// Skips past the "]" that closes a bracketed header (within a short distance), and a space.
std::size_t after_bracket(std::string_view text, std::size_t pos) {
  const std::size_t close = text.find(']', pos);
  if (close == std::string_view::npos || close - pos > 160) return std::string_view::npos;
  return close + 1;
}

/// glog / PyTorch: "[E1127 18:02:10.550 file.cpp:607] " or "E0323 21:57:08.583000 23 file.py:869] ".
bool take_glog(std::string_view text, std::size_t& pos, LinePrefix& prefix) {
  const bool bracketed = text[pos] == '[';
  std::size_t p = pos + (bracketed ? 1 : 0);
  if (p >= text.size() || (text[p] != 'I' && text[p] != 'W' && text[p] != 'E' && text[p] != 'F')) return false;
  const std::size_t p0 = p;
  const auto month = digits(text, p + 1, 2);
  const auto day = digits(text, p + 3, 2);
  if (!month || !day || p + 5 >= text.size() || text[p + 5] != ' ') return false;
  p += 6;
  const auto clock = clock_at(text, p);
  if (!clock) return false;
  const std::size_t end = after_bracket(text, p);
  if (end == std::string_view::npos) return false;
  prefix.time_seconds = calendar_seconds(*month, *day, *clock);
  if (text[p0] == 'E' || text[p0] == 'F') prefix.level = LogLevel::error;
  if (text[p0] == 'W') prefix.level = LogLevel::warning;
  pos = end;
  return true;
}

/// ISO / Python logging: "2026-01-27 06:50:01,123", "[2026-01-27 06:50:01 TP4]", "2026-01-27T06:50:01Z".
bool take_iso(std::string_view text, std::size_t& pos, LinePrefix& prefix) {
  const bool bracketed = text[pos] == '[';
  std::size_t p = pos + (bracketed ? 1 : 0);
  const auto year = digits(text, p, 4);
  const auto month = digits(text, p + 5, 2);
  const auto day = digits(text, p + 8, 2);
  if (!year || !month || !day || text[p + 4] != '-' || text[p + 7] != '-') return false;
  if (p + 10 >= text.size() || (text[p + 10] != ' ' && text[p + 10] != 'T')) return false;
  p += 11;
  const auto clock = clock_at(text, p);
  if (!clock) return false;
  if (bracketed) {
    const std::size_t end = after_bracket(text, p);
    if (end == std::string_view::npos) return false;
    // SGLang: "[2025-02-24 14:09:34 DP1 TP14]" names the tensor-parallel rank.
    const std::size_t tp = text.substr(p, end - p).find(" TP");
    if (tp != std::string_view::npos) {
      int rank = 0;
      std::size_t q = p + tp + 3;
      const std::size_t first = q;
      while (q < end && is_digit(text[q])) rank = rank * 10 + (text[q++] - '0');
      if (q > first) prefix.rank = rank;
    }
    p = end;
  } else {
    while (p < text.size() && text[p] != ' ' && text[p] != '\t' && text[p] != ']') ++p;  // zone, "Z"
  }
  prefix.time_seconds = calendar_seconds(*month, *day, *clock);
  pos = p;
  return true;
}

LogLevel level_of(std::string_view word) {
  if (word == "ERROR" || word == "CRITICAL" || word == "FATAL") return LogLevel::error;
  if (word == "WARNING" || word == "WARN") return LogLevel::warning;
  if (word == "INFO") return LogLevel::info;
  if (word == "DEBUG") return LogLevel::debug;
  return LogLevel::none;
}

/// After vLLM's stamp: " [core.py:123]" (v1) or " llm_engine.py:73]" (older) names the source.
std::size_t skip_source_location(std::string_view text, std::size_t pos) {
  std::size_t p = pos;
  while (p < text.size() && text[p] == ' ') ++p;
  const std::size_t close = text.find(']', p);
  if (close == std::string_view::npos || close - p > 80) return pos;
  const std::string_view location = text.substr(p, close - p);
  if (location.find(' ') != std::string_view::npos || location.find(".py:") == std::string_view::npos) return pos;
  return close + 1;
}

/// vLLM: "INFO 11-27 18:02:10 [core.py:123] ".
bool take_vllm(std::string_view text, std::size_t& pos, LinePrefix& prefix) {
  static constexpr std::array<std::string_view, 5> kLevels = {"INFO ", "WARNING ", "ERROR ", "DEBUG ",
                                                              "CRITICAL "};
  for (const std::string_view level : kLevels) {
    if (text.substr(pos, level.size()) != level) continue;
    std::size_t p = pos + level.size();
    const auto month = digits(text, p, 2);
    const auto day = digits(text, p + 3, 2);
    if (!month || !day || text[p + 2] != '-' || p + 5 >= text.size() || text[p + 5] != ' ') return false;
    p += 6;
    const auto clock = clock_at(text, p);
    if (!clock) return false;
    prefix.time_seconds = calendar_seconds(*month, *day, *clock);
    prefix.level = level_of(level.substr(0, level.size() - 1));
    pos = skip_source_location(text, p);
    return true;
  }
  return false;
}

/// dmesg: "[Wed Nov 27 18:02:10 2024] " (dmesg -T) carries a time; "[123456.789012] " (seconds
/// since boot, another clock) is skipped without one.
bool take_dmesg(std::string_view text, std::size_t& pos, LinePrefix& prefix) {
  static constexpr std::string_view kMonths = "JanFebMarAprMayJunJulAugSepOctNovDec";
  if (text[pos] != '[') return false;
  std::size_t p = pos + 1;
  while (p < text.size() && text[p] == ' ') ++p;
  if (p < text.size() && is_digit(text[p])) {
    while (p < text.size() && (is_digit(text[p]) || text[p] == '.')) ++p;
    if (p >= text.size() || text[p] != ']') return false;
    pos = p + 1;
    return true;
  }
  if (p + 24 > text.size() || text[p + 3] != ' ' || text[p + 7] != ' ') return false;
  const std::size_t month_index = kMonths.find(text.substr(p + 4, 3));
  if (month_index == std::string_view::npos || month_index % 3 != 0) return false;
  std::size_t q = p + 8;
  if (text[q] == ' ') ++q;
  int day = 0;
  while (q < text.size() && is_digit(text[q])) day = day * 10 + (text[q++] - '0');
  if (q >= text.size() || text[q] != ' ') return false;
  ++q;
  const auto clock = clock_at(text, q);
  const std::size_t end = clock ? after_bracket(text, q) : std::string_view::npos;
  if (end == std::string_view::npos) return false;
  prefix.time_seconds = calendar_seconds(static_cast<int>(month_index / 3) + 1, day, *clock);
  pos = end;
  return true;
}

/// Ray: "(WorkerDict pid=118848, ip=10.130.71.7) ", "(TaskRunner pid=12) ", "(raylet) ".
bool take_ray(std::string_view text, std::size_t& pos, LinePrefix& prefix) {
  if (text[pos] != '(') return false;
  const std::size_t close = text.find(')', pos);
  if (close == std::string_view::npos || close - pos > 120) return false;
  const std::string_view inside = text.substr(pos + 1, close - pos - 1);
  const std::size_t space = inside.find(' ');
  const std::string_view name = inside.substr(0, space);
  if (name.empty()) return false;
  for (const char c : name) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c);
    if (!(alnum || c == '_' || c == '.' || c == ':' || c == '[' || c == ']' || c == '=' || c == '-')) return false;
  }
  if (space == std::string_view::npos) {
    if (name != "raylet" && name != "gcs_server" && name != "autoscaler") return false;
  } else {
    const std::size_t pid_at = inside.find("pid=");
    if (pid_at == std::string_view::npos) return false;
    std::int64_t pid = 0;
    // A Linux pid has at most 7 digits (pid_max <= 2^22); reading at most 18 keeps garbage from overflowing.
    for (std::size_t i = pid_at + 4; i < inside.size() && is_digit(inside[i]) && i < pid_at + 4 + 18; ++i) {
      pid = pid * 10 + (inside[i] - '0');
    }
    prefix.pid = pid;
    const std::size_t ip_at = inside.find("ip=");
    if (ip_at != std::string_view::npos) {
      const std::size_t ip_end = inside.find_first_of(", ", ip_at);
      prefix.ip = inside.substr(ip_at + 3, ip_end == std::string_view::npos ? std::string_view::npos
                                                                            : ip_end - ip_at - 3);
    }
  }
  // "(VllmWorker rank=2 pid=7)", "(MegatronPolicyWorker[rank=8] pid=7, ip=…)".
  if (const std::size_t rank_at = inside.find("rank="); rank_at != std::string_view::npos) {
    int rank = 0;
    std::size_t q = rank_at + 5;
    const std::size_t first = q;
    while (q < inside.size() && is_digit(inside[q])) rank = rank * 10 + (inside[q++] - '0');
    if (q > first) prefix.rank = rank;
  }
  const std::string_view base = name.substr(0, name.find('['));
  prefix.source = base.starts_with("pid=") || base.starts_with("rank=") ? std::string_view{} : base;
  pos = close + 1;
  return true;
}

/// srun --label: "15: "; mpirun --tag-output: "[1,3]<stdout>:" (the second number is the rank).
bool take_launcher_label(std::string_view text, std::size_t& pos, LinePrefix& prefix) {
  std::size_t p = pos;
  if (text[p] == '[') {
    const std::size_t comma = text.find(',', p);
    const std::size_t tag = text.find("]<std", p);
    if (comma == std::string_view::npos || tag == std::string_view::npos || tag - p > 16 || comma > tag) return false;
    const std::size_t colon = text.find(">:", tag);
    if (colon == std::string_view::npos || colon - tag > 8) return false;
    int rank = 0;
    for (std::size_t q = comma + 1; q < tag; ++q) {
      if (!is_digit(text[q])) return false;
      rank = rank * 10 + (text[q] - '0');
    }
    prefix.rank = rank;
    pos = colon + 2;
    return true;
  }
  while (p < text.size() && p - pos < 6 && is_digit(text[p])) ++p;
  if (p == pos || p + 1 >= text.size() || text[p] != ':' || text[p + 1] != ' ') return false;
  pos = p + 2;
  return true;
}

/// A level word before the message: "| ERROR | stderr | " (FastChat), "ERROR:torch…:" (Python's
/// default format), "ERROR worker.py:12 -- " (Ray); "[WARNING|logging.py:329] " is left to the message.
bool take_level(std::string_view text, std::size_t& pos, LinePrefix& prefix) {
  std::size_t p = pos;
  const bool piped = text[p] == '|';
  if (piped) {
    ++p;
    while (p < text.size() && text[p] == ' ') ++p;
  }
  std::size_t end = p;
  while (end < text.size() && text[end] >= 'A' && text[end] <= 'Z') ++end;
  const LogLevel level = level_of(text.substr(p, end - p));
  if (level == LogLevel::none || end >= text.size()) return false;
  if (piped) {
    std::size_t q = end;
    while (q < text.size() && text[q] == ' ') ++q;
    if (q >= text.size() || text[q] != '|') return false;
    ++q;
    // FastChat names the stream next: "| stderr | ".
    for (const std::string_view stream : {std::string_view(" stderr |"), std::string_view(" stdout |")}) {
      if (text.substr(q, stream.size()) == stream) q += stream.size();
    }
    prefix.level = level;
    pos = q;
    return true;
  }
  if (text[end] == ' ') {
    // Python logging as Ray writes it: "ERROR trial_runner.py:1062 -- message".
    const std::string_view next = text.substr(end + 1, text.find(' ', end + 1) - end - 1);
    if (next.find(".py:") == std::string_view::npos) return false;
    prefix.level = level;
    pos = end + 1;
    return true;
  }
  if (text[end] != ':' || end + 1 >= text.size() || text[end + 1] == ' ') return false;
  prefix.level = level;
  pos = end + 1;
  return true;
}

/// torch.distributed: "[rank3]:" ; torchrun --tee: "[default3]:".
bool take_rank(std::string_view text, std::size_t& pos, LinePrefix& prefix) {
  for (const std::string_view tag : {std::string_view("[rank"), std::string_view("[default")}) {
    if (text.substr(pos, tag.size()) != tag) continue;
    std::size_t p = pos + tag.size();
    int rank = 0;
    const std::size_t first_digit = p;
    while (p < text.size() && is_digit(text[p]) && p - first_digit < 9) rank = rank * 10 + (text[p++] - '0');
    if (p == first_digit || p + 1 >= text.size() || text[p] != ']' || text[p + 1] != ':') return false;
    prefix.rank = rank;
    pos = p + 2;
    return true;
  }
  return false;
}

}  // namespace

std::string_view clean_line(std::string_view raw, std::string& scratch) {
  while (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
  if (std::memchr(raw.data(), '\r', raw.size()) != nullptr) {
    // The terminal shows what was written after the last carriage return.
    std::size_t end = raw.size();
    while (true) {
      const std::size_t cr = end == 0 ? std::string_view::npos : raw.rfind('\r', end - 1);
      const std::size_t start = cr == std::string_view::npos ? 0 : cr + 1;
      const std::string_view segment = raw.substr(start, end - start);
      if (!trim(segment).empty() || cr == std::string_view::npos) {
        raw = segment;
        break;
      }
      end = cr;
    }
  }
  if (std::memchr(raw.data(), '\x1b', raw.size()) != nullptr) {
    strip_ansi(raw, scratch);
    raw = scratch;
  }
  if (raw.find("**") == std::string_view::npos) return raw;
  // Markdown emphasis of a log pasted into an issue ("CUDA out of memory.** Tried to allocate").
  std::string plain;
  plain.reserve(raw.size());
  for (std::size_t pos = 0; pos < raw.size();) {
    const std::size_t stars = raw.find("**", pos);
    plain.append(raw.substr(pos, stars - pos));
    if (stars == std::string_view::npos) break;
    pos = stars + 2;
  }
  scratch = std::move(plain);
  return scratch;
}

LinePrefix parse_prefix(std::string_view line) {
  static constexpr std::string_view kBoxBorder = "\u2502";  // rich's traceback frame, k8s log viewers
  LinePrefix prefix;
  std::size_t pos = 0;
  for (int round = 0; round < 8; ++round) {
    while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
    if (line.substr(pos, kBoxBorder.size()) == kBoxBorder) {
      pos += kBoxBorder.size();
      continue;
    }
    if (round == 0 && line.substr(pos, 3) == "| [") {  // CI log viewers: "  | [2025-03-10T15:07:20Z] …"
      pos += 2;
      continue;
    }
    if (pos >= line.size()) break;
    if (!(take_ray(line, pos, prefix) || take_rank(line, pos, prefix) || take_glog(line, pos, prefix) ||
          take_iso(line, pos, prefix) || take_vllm(line, pos, prefix) || take_dmesg(line, pos, prefix) ||
          take_launcher_label(line, pos, prefix) || take_level(line, pos, prefix))) {
      break;
    }
  }
  std::string_view body = trim(line.substr(std::min(pos, line.size())));
  if (body.ends_with(kBoxBorder)) body = trim(body.substr(0, body.size() - kBoxBorder.size()));
  prefix.body = body;
  return prefix;
}

}  // namespace meshplan
