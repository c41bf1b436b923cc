#include "strategy/pipeline_layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace meshplan {
namespace {

// Python's re.sub(r'\(([^)]+)\)\*(\d+)', ...) then re.sub(r'(.)\*(\d+)', ...): one left-to-right
// pass each, non-overlapping, no nesting. An unrolled layout beyond a million layers is refused
// (no model has that many; Python would build the string).
constexpr std::size_t kLargestUnrolled = 1000000;

// Appends `unit` `count_text` times to `out`, or says why not.
std::optional<Error> append_repeated(std::string& out, const std::string& unit, const std::string& count_text) {
  const std::size_t count = count_text.size() > 7 ? kLargestUnrolled + 1 : std::stoull(count_text);
  if (unit.size() * count > kLargestUnrolled - std::min(out.size(), kLargestUnrolled)) {
    return Error{"", 0, "pipeline_model_parallel_layout",
                 "'" + unit + "' repeated " + count_text + " times unrolls beyond a million layers"};
  }
  for (std::size_t k = 0; k < count; ++k) out += unit;
  return std::nullopt;
}

// The digits at `from` ("" when none).
std::string digits_at(const std::string& in, std::size_t from) {
  std::size_t end = from;
  while (end < in.size() && std::isdigit(static_cast<unsigned char>(in[end]))) ++end;
  return in.substr(from, end - from);
}

Result<std::string> unroll_groups(const std::string& in) {
  std::string out;
  std::size_t i = 0;
  while (i < in.size()) {
    const std::size_t close = in[i] == '(' ? in.find(')', i + 1) : std::string::npos;
    const bool starred = close != std::string::npos && close > i + 1 && close + 2 < in.size() && in[close + 1] == '*';
    const std::string count = starred ? digits_at(in, close + 2) : "";
    if (count.empty()) {
      out += in[i++];
      continue;
    }
    if (auto error = append_repeated(out, in.substr(i + 1, close - i - 1), count)) return *error;
    i = close + 2 + count.size();
  }
  return out;
}

Result<std::string> unroll_chars(const std::string& in) {
  std::string out;
  std::size_t i = 0;
  while (i < in.size()) {
    const bool starred = i + 2 < in.size() && in[i + 1] == '*';
    const std::string count = starred ? digits_at(in, i + 2) : "";
    if (count.empty()) {
      if (out.size() >= kLargestUnrolled) return Error{"", 0, "pipeline_model_parallel_layout", "longer than a million layers"};
      out += in[i++];
      continue;
    }
    if (auto error = append_repeated(out, std::string(1, in[i]), count)) return *error;
    i += 2 + count.size();
  }
  return out;
}

}  // namespace

Result<PipelineLayout> parse_pipeline_layout(std::string_view text) {
  std::string cleaned;
  for (char c : text) {
    if (c != ',') cleaned += c;
  }
  auto groups = unroll_groups(cleaned);
  if (!groups) return groups.error();
  auto unrolled = unroll_chars(*groups);
  if (!unrolled) return unrolled.error();
  PipelineLayout layout;
  layout.stages.emplace_back();
  for (char c : *unrolled) {
    LayoutStage& stage = layout.stages.back();
    switch (c) {
      case '|': layout.stages.emplace_back(); continue;
      case 't': ++stage.decoder; break;
      case 'm': ++stage.mtp; break;
      case 'E': ++stage.embedding; break;
      case 'L': ++stage.loss; break;
      default:
        return Error{"", 0, "pipeline_model_parallel_layout",
                     fmt::format("Invalid layer character: {} in '{}', known layer characters: E, L, t, m "
                                 "(Megatron-core PipelineParallelLayerLayout.parse_str_to_list)",
                                 c, std::string(text))};
    }
  }
  // The layers in layer-id order (flatten_layout): chunk-major, the layout's own order.
  for (char c : *unrolled) {
    if (c != '|') layout.flat += c;
  }
  return layout;
}

std::string pipeline_layout_from_names(const std::vector<std::vector<std::string>>& stages) {
  std::string text;
  for (std::size_t i = 0; i < stages.size(); ++i) {
    if (i > 0) text += '|';
    for (const std::string& raw : stages[i]) {
      std::string name;
      for (char c : raw) {
        if (std::isspace(static_cast<unsigned char>(c)) == 0) name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      }
      text += name == "embedding" ? 'E' : name == "decoder" ? 't' : name == "mtp" ? 'm' : name == "loss" ? 'L' : '?';
    }
  }
  return text;
}

int layout_vpp(const PipelineLayout& layout, int pp) {
  const std::size_t stages = layout.stages.size();
  return pp > 0 && stages % static_cast<std::size_t>(pp) == 0 ? static_cast<int>(stages / static_cast<std::size_t>(pp))
                                                               : 1;
}

std::vector<std::int64_t> layout_rank_layers(const PipelineLayout& layout, int pp) {
  std::vector<std::int64_t> layers(static_cast<std::size_t>(std::max(pp, 1)), 0);
  for (std::size_t i = 0; i < layout.stages.size(); ++i) layers[i % layers.size()] += layout.stages[i].decoder;
  return layers;
}

std::optional<std::string> pipeline_layout_error(const PipelineLayout& layout, int pp, int vpp, std::int64_t num_layers,
                                                 int mtp_layers) {
  const std::size_t stages = layout.stages.size();
  if (pp <= 0 || stages % static_cast<std::size_t>(pp) != 0) {
    return fmt::format("pipeline_model_parallel_layout must be divisible by pipeline_model_parallel_size "
                       "(len(layout)={}, pipeline_model_parallel_size={})",
                       stages, pp);
  }
  const int detected = layout_vpp(layout, pp);
  if (vpp > 1 && vpp != detected) {
    return fmt::format("virtual_pipeline_model_parallel_size conflicts with pipeline_model_parallel_layout "
                       "(virtual_pipeline_model_parallel_size={}, detected_vpp_size={})",
                       vpp, detected);
  }
  const std::string& flat = layout.flat;
  if (flat.empty() || flat.front() != 'E') return std::string("The first layer must be embedding");
  if (flat.back() != 'L') return std::string("The last layer must be loss");
  if (std::count(flat.begin(), flat.end(), 'E') != 1) return std::string("Embedding must be specified exactly once");
  if (std::count(flat.begin(), flat.end(), 'L') != 1) return std::string("Loss must be specified exactly once");
  const auto decoders = std::count(flat.begin(), flat.end(), 't');
  if (decoders != num_layers) {
    return fmt::format("Number of decoder layers {} must match num_layers {}", decoders, num_layers);
  }
  if (std::count(flat.begin(), flat.end(), 'm') != mtp_layers) {
    return fmt::format("Number of mtp layers in layout ({}) must match mtp_num_layers ({})",
                       std::count(flat.begin(), flat.end(), 'm'), mtp_layers);
  }
  const std::size_t first_mtp = flat.find('m');
  if (first_mtp != std::string::npos && flat.find('t', first_mtp) != std::string::npos) {
    return std::string("decoder layers must be placed before MTP layers");
  }
  // Stage i is PP rank i % PP, chunk i / PP: MTP only in a rank's last chunk, all of it in one
  // stage, and not on the first rank's earlier chunks.
  for (std::size_t i = 0; i < stages; ++i) {
    const bool last_chunk = i / static_cast<std::size_t>(pp) == static_cast<std::size_t>(detected - 1);
    if (layout.stages[i].mtp == 0) continue;
    if (!last_chunk) return std::string("Currently we restrict that the MTP should be always in the last virtual "
                                        "pipeline stage of that rank");
    if (layout.stages[i].mtp != mtp_layers) {
      return std::string("All of the MTP layers must be in the same one virtual pipeline stage");
    }
  }
  return std::nullopt;
}

}  // namespace meshplan
