#include "diagnose/error_events.hpp"

#include <fmt/format.h>

#include <array>

#include "core/std_regex.hpp"
#include "diagnose/error_line.hpp"
#include "diagnose/signature.hpp"

namespace meshplan {

namespace {

constexpr int kContinuationLines = 3;   ///< lines that may continue an error's message
constexpr std::size_t kTextChars = 1200;  ///< the classified text: class, message and continuation
constexpr std::size_t kMessageChars = 200;
constexpr std::size_t kEvidenceChars = 400;
constexpr std::size_t kMaxFrameStreams = 4096;

struct ShapeTable {
  std::vector<std::pair<std::size_t, std::regex>> rules;  ///< signature index, case-insensitive regex
  std::size_t unclassified = 0;
  std::size_t echo = 0;
};

const ShapeTable& shapes() {
  static const ShapeTable kTable = [] {
    ShapeTable table;
    const auto all = signatures();
    for (std::size_t s = 0; s < all.size(); ++s) {
      if (all[s].match != MatchKind::shape || all[s].pattern.empty()) continue;
      table.rules.emplace_back(s, std::regex(all[s].pattern.begin(), all[s].pattern.end(),
                                             std::regex::ECMAScript | std::regex::icase));
    }
    table.unclassified = signature_index("unclassified_error");
    table.echo = signature_index("unclassified_echo");
    return table;
  }();
  return kTable;
}

/// The last two segments of a path: "vllm/config.py".
std::string_view path_tail(std::string_view path) {
  const std::size_t last = path.rfind('/');
  if (last == std::string_view::npos || last == 0) return path;
  const std::size_t before = path.rfind('/', last - 1);
  return before == std::string_view::npos ? path : path.substr(before + 1);
}

}  // namespace

std::size_t signature_index(std::string_view id) {
  const auto all = signatures();
  for (std::size_t s = 0; s < all.size(); ++s) {
    if (all[s].id == id) return s;
  }
  return all.size();
}

std::size_t classify_error_text(std::string_view text) {
  const ShapeTable& table = shapes();
  for (const auto& [index, pattern] : table.rules) {
    if (std::regex_search(text.begin(), text.end(), pattern)) return index;
  }
  return table.unclassified;
}

std::string_view framework_of(std::string_view path) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 14> kFrameworks = {{
      {"verl", "verl"},           {"vllm", "vLLM"},
      {"sglang", "SGLang"},       {"megatron", "Megatron-LM"},
      {"nemo_rl", "NeMo RL"},     {"deepspeed", "DeepSpeed"},
      {"trl", "TRL"},             {"openrlhf", "OpenRLHF"},
      {"transformers", "Transformers"}, {"ray", "Ray"},
      {"torch", "PyTorch"},       {"flash_attn", "flash-attention"},
      {"hydra", "Hydra"},         {"omegaconf", "OmegaConf"},
  }};
  const auto known = [](std::string_view segment) -> std::string_view {
    for (const auto& [directory, name] : kFrameworks) {
      if (segment == directory) return name;
    }
    return {};
  };
  // An installed package: the directory after site-packages/ or dist-packages/.
  if (const std::size_t at = path.rfind("-packages/"); at != std::string_view::npos) {
    const std::string_view rest = path.substr(at + 10);
    if (const std::string_view name = known(rest.substr(0, rest.find('/'))); !name.empty()) return name;
  }
  // A checkout: the innermost directory named like a framework.
  std::size_t end = path.rfind('/');
  while (end != std::string_view::npos && end > 0) {
    const std::size_t start = path.rfind('/', end - 1);
    const std::size_t from = start == std::string_view::npos ? 0 : start + 1;
    if (const std::string_view name = known(path.substr(from, end - from)); !name.empty()) return name;
    if (start == std::string_view::npos) break;
    end = start;
  }
  return {};
}

void ErrorTracker::line(const LinePrefix& prefix, std::string_view cleaned, std::int64_t line_number,
                        std::optional<double> time_seconds, std::string_view phase, bool explained,
                        std::vector<ErrorEvent>& out) {
  const std::string_view body = prefix.body;
  if (const auto frame = parse_frame(body)) {
    if (pending_) close(out);
    if (last_frame_.size() >= kMaxFrameStreams) {
      last_frame_.clear();
      last_framework_.clear();
    }
    last_frame_[prefix.pid] = fmt::format("{} ({}:{})", frame->function, path_tail(frame->file), frame->line);
    last_framework_[prefix.pid] = std::string(framework_of(frame->file));
    return;
  }
  if (explained) {
    if (pending_) close(out);
    return;
  }
  // Lines a logger marked INFO, DEBUG or WARNING report no error; the rest need one of these
  // words before find_error looks closer (most lines of a 1 GB log stop here).
  const bool quiet = prefix.level == LogLevel::info || prefix.level == LogLevel::debug ||
                     prefix.level == LogLevel::warning;
  const bool candidate = !quiet && !body.empty() &&
                         (prefix.level == LogLevel::error || body.find("rror") != std::string_view::npos ||
                          body.find("xception") != std::string_view::npos ||
                          body.find("NCCL") != std::string_view::npos ||
                          body.find("ssertion") != std::string_view::npos ||
                          body.find("creation task") != std::string_view::npos);
  const std::optional<ErrorLine> error = candidate ? find_error(body, prefix.level) : std::nullopt;
  if (pending_) {
    const bool ends = error || body.find("Traceback (most recent call last)") != std::string_view::npos ||
                      body.starts_with("The above exception") || body.starts_with("During handling");
    if (ends) {
      close(out);
    } else if (!body.empty()) {
      if (prefix.pid == pending_->event.pid && pending_->text.size() < kTextChars) {
        pending_->text.append(" ").append(body.substr(0, kTextChars - pending_->text.size()));
      }
      if (--pending_->lines_left <= 0) close(out);
    }
  }
  if (!error) return;
  Pending next;
  ErrorEvent& event = next.event;
  event.body = std::string(body);
  event.evidence = std::string(cleaned.substr(0, kEvidenceChars));
  event.line = line_number;
  event.time_seconds = time_seconds;
  event.pid = prefix.pid;
  event.rank = prefix.rank;
  event.phase = std::string(phase);
  next.kind = error->wrapped.empty() ? std::string(error->kind) : fmt::format("{}({})", error->kind, error->wrapped);
  next.echo = error->echo;
  next.text = fmt::format("{}: {}", next.kind, error->message.substr(0, kTextChars));
  event.numbers["exception"] = NumberValue{0, next.kind, true};
  event.numbers["message"] = NumberValue{0, std::string(error->message.substr(0, kMessageChars)), true};
  if (const auto frame = last_frame_.find(prefix.pid); frame != last_frame_.end()) {
    event.numbers["raised_in"] = NumberValue{0, frame->second, true};
    const std::string& framework = last_framework_[prefix.pid];
    if (!framework.empty()) event.numbers["framework"] = NumberValue{0, framework, true};
    last_frame_.erase(frame);  // a later error without a traceback must not inherit it
  }
  if (prefix.pid >= 0) event.numbers["pid"] = NumberValue{static_cast<double>(prefix.pid), "", false};
  next.lines_left = next.echo ? 0 : kContinuationLines;
  pending_ = std::move(next);
  if (pending_->lines_left == 0) close(out);
}

void ErrorTracker::finish(std::vector<ErrorEvent>& out) {
  if (pending_) close(out);
  last_frame_.clear();
  last_framework_.clear();
}

void ErrorTracker::close(std::vector<ErrorEvent>& out) {
  Pending& pending = *pending_;
  const ShapeTable& table = shapes();
  pending.event.signature = pending.echo ? table.echo : classify_error_text(pending.text);
  out.push_back(std::move(pending.event));
  pending_.reset();
}

}  // namespace meshplan
