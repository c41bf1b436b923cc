#include "diagnose/fix_renderer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>

#include "core/text.hpp"
#include "diagnose/model_derivations.hpp"

namespace meshplan {

namespace {

std::optional<std::string> text_number(const Numbers& numbers, std::string_view name) {
  const auto it = numbers.find(std::string(name));
  if (it == numbers.end()) return std::nullopt;
  return it->second.is_text ? it->second.text : format_number(it->second.value);
}

std::optional<std::string> config_value(const FixContext& context, std::string_view key) {
  const auto it = context.config.find(key);
  if (it == context.config.end()) return std::nullopt;
  return it->second;
}

/// The first of `names` present in `numbers`.
std::optional<double> first_number(const Numbers& numbers, std::initializer_list<std::string_view> names) {
  for (const std::string_view name : names) {
    if (auto value = number_in(numbers, name)) return value;
  }
  return std::nullopt;
}

/// Largest divisor of `whole` that is <= `limit` (>= 1).
std::int64_t largest_divisor_at_most(std::int64_t whole, std::int64_t limit) {
  for (std::int64_t d = std::min(whole, limit); d > 1; --d) {
    if (whole % d == 0) return d;
  }
  return 1;
}

/// Largest power of two dividing `whole` that is <= `limit`. Parallel sizes are powers of two in
/// practice: they must also divide the KV heads (usually 2^k) and the GPUs of a node (8).
std::int64_t power_of_two_divisor_at_most(std::int64_t whole, std::int64_t limit) {
  std::int64_t best = 1;
  for (std::int64_t d = 2; d <= std::min(whole, limit); d *= 2) {
    if (whole % d == 0) best = d;
  }
  return best;
}

/// A known key for a rejected one: a near leaf under the same parent (a typo: `rollout.gpu_mem_util`),
/// else the same leaf under another parent of the same top-level section (a key that moved). A
/// whole-path match would offer `rollout.prompt_length` for `rollout.limit_images`: the shared
/// parent is most of the path.
std::optional<std::string> key_suggestion(const std::string& key, const std::vector<std::string>& known_keys) {
  const std::size_t dot = key.rfind('.');
  const std::string parent = dot == std::string::npos ? "" : key.substr(0, dot + 1);
  const std::string leaf = key.substr(parent.size());
  std::vector<std::string> siblings;
  for (const std::string& known : known_keys) {
    if (known.starts_with(parent) && known.find('.', parent.size()) == std::string::npos) {
      siblings.push_back(known.substr(parent.size()));
    }
  }
  if (auto near = nearest_match(leaf, siblings); near && *near != leaf) return parent + *near;
  const std::string top = key.substr(0, key.find('.') + 1);  // the same role's section, not another's
  for (const std::string& known : known_keys) {
    if (known != key && known.starts_with(top) && known.size() > leaf.size() && known.ends_with("." + leaf)) return known;
  }
  return std::nullopt;
}

constexpr std::string_view kGmuKey = "actor_rollout_ref.rollout.gpu_memory_utilization";

/// Bytes of one element of a torch dtype ("bfloat16", "float8_e4m3fn"); 0 when unknown.
double torch_dtype_bytes(std::string_view dtype) {
  if (dtype.starts_with("float8") || dtype == "int8" || dtype == "uint8" || dtype == "bool") return 1;
  if (dtype == "bfloat16" || dtype == "float16" || dtype == "half" || dtype == "int16") return 2;
  if (dtype == "float32" || dtype == "float" || dtype == "int32") return 4;
  if (dtype == "float64" || dtype == "double" || dtype == "int64") return 8;
  return 0;
}

/// MiB of a tensor of `shape` ("248320, 5120", as torch.Size prints it) and `dtype`; nullopt when
/// either does not parse.
std::optional<double> tensor_mib(std::string_view shape, std::string_view dtype) {
  const double element_bytes = torch_dtype_bytes(dtype);
  if (element_bytes == 0) return std::nullopt;
  double elements = 1;
  const char* at = shape.data();
  const char* end = shape.data() + shape.size();
  while (at < end) {
    while (at < end && (*at == ' ' || *at == ',')) ++at;
    if (at == end) break;
    long long dim = 0;
    const auto [next, error] = std::from_chars(at, end, dim);
    if (error != std::errc{} || dim < 0) return std::nullopt;
    elements *= static_cast<double>(dim);
    at = next;
  }
  return elements * element_bytes / (1024.0 * 1024.0);
}

/// Derived numbers: {d:NAME}. Each is a small, documented computation from the message's numbers
/// and the config.
std::optional<std::string> derive(std::string_view name, const Numbers& numbers, std::string_view phase,
                                  const FixContext& context) {
  if (name == "gmu_fit") {
    // vLLM (>= 0.10, gpu_worker.py) refuses to start when free < gmu x total; keep 2 points of
    // margin for the CUDA context and allocator growth between the check and the allocation.
    const auto free = number_in(numbers, "free_gib");
    const auto total = number_in(numbers, "total_gib");
    if (!free || !total || *total <= 0) return std::nullopt;
    return format_number(std::max(0.05, std::floor(100.0 * *free / *total - 2.0) / 100.0));
  }
  if (name == "gmu_lower" || name == "gmu_raise") {
    auto current = config_number(context, kGmuKey);
    if (!current) current = number_in(numbers, "gpu_memory_utilization");
    if (!current) return std::nullopt;
    const double step = name == "gmu_lower" ? -0.1 : 0.1;  // one notch, as verl's docs tune it
    return format_number(std::clamp(std::round((*current + step) * 100.0) / 100.0, 0.1, 0.95));
  }
  if (name == "prompt_plus_response") {
    const auto prompt = config_number(context, "data.max_prompt_length");
    const auto response = config_number(context, "data.max_response_length");
    if (!prompt || !response) return std::nullopt;
    return format_number(*prompt + *response);
  }
  if (name == "timeout_double_s") {
    const auto timeout_ms = number_in(numbers, "timeout_ms");
    if (!timeout_ms) return std::nullopt;
    return format_number(2.0 * *timeout_ms / 1000.0);
  }
  if (name == "train_batch_fit") {
    // Smallest train_batch_size >= the current one with (train_batch_size * n) % minimal == 0.
    const auto real = number_in(numbers, "real_train_batch_size");
    const auto minimal = number_in(numbers, "minimal_batch_size");
    auto n = config_number(context, "actor_rollout_ref.rollout.n");
    auto batch = config_number(context, "data.train_batch_size");
    if (!real || !minimal || *minimal < 1 || (!n && !batch)) return std::nullopt;
    if (!n) n = *real / *batch;
    if (!batch) batch = *real / *n;
    const auto n_int = static_cast<std::int64_t>(*n);
    const auto minimal_int = static_cast<std::int64_t>(*minimal);
    if (n_int < 1) return std::nullopt;
    const std::int64_t step = minimal_int / std::gcd(minimal_int, n_int);
    const auto current = static_cast<std::int64_t>(*batch);
    return std::to_string((current + step - 1) / step * step);
  }
  if (name == "micro_fit") {
    const auto mini = number_in(numbers, "normalized_mini_batch");
    const auto micro = number_in(numbers, "micro_batch_per_gpu");
    if (!mini || !micro || *mini < 1) return std::nullopt;
    return std::to_string(largest_divisor_at_most(static_cast<std::int64_t>(*mini), static_cast<std::int64_t>(*micro)));
  }
  if (name == "power_of_two_divisor") {
    const auto whole = first_number(numbers, {"world_size", "heads"});
    const auto size = first_number(numbers, {"infer_world_size", "ulysses_sp_size", "tensor_parallel_size"});
    if (!whole || !size || *whole < 1) return std::nullopt;
    return std::to_string(
        power_of_two_divisor_at_most(static_cast<std::int64_t>(*whole), static_cast<std::int64_t>(*size)));
  }
  if (name == "divisors_of_world") {
    const auto world = number_in(numbers, "world_size");
    if (!world || *world < 1 || *world > 1e6) return std::nullopt;
    std::string list;
    const auto whole = static_cast<std::int64_t>(*world);
    for (std::int64_t d = 1; d <= whole; ++d) {
      if (whole % d == 0) list += (list.empty() ? "" : ", ") + std::to_string(d);
    }
    return list;
  }
  if (name == "token_budget_fit") {
    // verl perf_tuning.rst: ppo_max_token_len_per_gpu >= 2 x (max_prompt_length + max_response_length).
    const auto sequence = number_in(numbers, "max_seq_len");
    if (!sequence) return std::nullopt;
    return format_number(2.0 * *sequence);
  }
  if (name == "override_value") {
    const auto key = text_number(numbers, "key");
    return key ? config_value(context, *key) : std::nullopt;
  }
  if (name == "choice_fix" || name == "not_a_choice") {
    // The override line check offers when the rejected key needs another choice of configs; the
    // fixes for a misspelled or new key ("did you mean", '+') carry {d:not_a_choice}, which fills
    // with nothing, and are not offered for such a key.
    const auto key = text_number(numbers, "key");
    const auto fix = key ? context.choice_fixes.find(*key) : context.choice_fixes.end();
    const bool choice = fix != context.choice_fixes.end();
    if (name == "not_a_choice") return choice ? std::nullopt : std::optional<std::string>("");
    return choice ? std::optional<std::string>(fix->second) : std::nullopt;
  }
  if (name == "key_suggestion") {
    const auto key = text_number(numbers, "key");
    if (!key || context.known_keys.empty()) return std::nullopt;
    return key_suggestion(*key, context.known_keys);
  }
  if (name == "class_key_suggestion") {
    // OmegaConf's "Key 'k' not in 'HFModelConfig'": the dataclass names the sections it fills.
    const auto key = text_number(numbers, "field");
    const auto config_class = text_number(numbers, "config_class");
    const auto& by_class = context.sections_by_class;
    const auto sections = config_class ? by_class.find(*config_class) : by_class.end();
    if (!key || sections == by_class.end()) return std::nullopt;
    for (const std::string& section : sections->second) {
      if (auto near = key_suggestion(section + "." + *key, context.known_keys)) return near;
    }
    return std::nullopt;
  }
  if (name == "sync_step_fit") {
    // SeparateAsyncTrainer: train_batch_size = parameter_sync_step x ppo_mini_batch_size.
    const auto train = number_in(numbers, "train_batch_size");
    const auto mini = number_in(numbers, "ppo_mini_batch_size");
    if (!train || !mini || *mini < 1 || std::fmod(*train, *mini) != 0 || *train < *mini) return std::nullopt;
    return format_number(*train / *mini);
  }
  if (name == "weight_mib" || name == "bucket_fit_mb") {
    // verl's weight-sync bucket (update_weights_bucket_megabytes << 20 bytes) must hold the largest
    // tensor whole; the fit is the next power of two MiB at or above it.
    const auto shape = text_number(numbers, "weight_shape");
    const auto dtype = text_number(numbers, "weight_dtype");
    const auto mib = shape && dtype ? tensor_mib(*shape, *dtype) : std::nullopt;
    if (!mib) return std::nullopt;
    if (name == "weight_mib") return format_number(std::ceil(*mib));
    double bucket = 1;
    while (bucket < *mib) bucket *= 2;
    return format_number(bucket);
  }
  if (name == "nnodes_fit") {
    const auto available = number_in(numbers, "available_gpus");
    const auto per_node = config_number(context, "trainer.n_gpus_per_node");
    if (!available || !per_node || *per_node < 1) return std::nullopt;
    return format_number(std::max(1.0, std::floor(*available / *per_node)));
  }
  return derive_from_model(name, numbers, phase, context);
}

std::optional<std::string> placeholder(std::string_view token, const Numbers& numbers, std::string_view phase,
                                       const FixContext& context) {
  if (token == "phase") return phase.empty() ? std::string("an unidentified phase") : std::string(phase);
  const std::size_t colon = token.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const std::string_view kind = token.substr(0, colon);
  const std::string_view name = token.substr(colon + 1);
  if (kind == "n") return text_number(numbers, name);
  if (kind == "d") return derive(name, numbers, phase, context);
  if (kind == "cfg") return config_value(context, name);
  if (kind == "half" || kind == "double") {
    const auto value = config_number(context, name);
    if (!value || *value < 1 || *value != std::floor(*value)) return std::nullopt;
    return format_number(kind == "half" ? std::max(1.0, std::floor(*value / 2)) : *value * 2);
  }
  return std::nullopt;
}

/// "KEY=VALUE" -> does the config hold KEY, and is it VALUE (case-insensitive: True/true)?
std::optional<bool> config_has(std::string_view condition, const FixContext& context) {
  const std::size_t equals = condition.find('=');
  const auto value = config_value(context, condition.substr(0, equals));
  if (!value) return std::nullopt;
  return to_lower(*value) == to_lower(condition.substr(equals + 1));
}

/// The role whose passes are all the listed phases: "critic" (verl's update_critic and
/// compute_values), "reference" (compute_ref_log_prob); "" otherwise.
std::string_view role_of(std::string_view phases) {
  bool critic = true;
  bool reference = true;
  while (!phases.empty()) {
    const std::size_t comma = phases.find(',');
    const std::string_view phase = phases.substr(0, comma);
    critic = critic && (phase == "update_critic" || phase == "compute_values");
    reference = reference && phase == "compute_ref_log_prob";
    if (comma == std::string_view::npos) break;
    phases.remove_prefix(comma + 1);
  }
  return critic ? "critic" : reference ? "reference" : "";
}

bool phase_listed(std::string_view phases, std::string_view phase) {
  while (!phases.empty()) {
    const std::size_t comma = phases.find(',');
    if (phases.substr(0, comma) == phase) return true;
    if (comma == std::string_view::npos) break;
    phases.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace

std::optional<double> number_in(const Numbers& numbers, std::string_view name) {
  const auto it = numbers.find(std::string(name));
  if (it == numbers.end() || it->second.is_text) return std::nullopt;
  return it->second.value;
}

std::optional<double> config_number(const FixContext& context, std::string_view key) {
  const auto value = config_value(context, key);
  if (!value) return std::nullopt;
  double parsed = 0;
  const auto [end, error] = std::from_chars(value->data(), value->data() + value->size(), parsed);
  if (error != std::errc() || end != value->data() + value->size()) return std::nullopt;
  return parsed;
}

std::string format_number(double value) {
  if (std::fabs(value - std::round(value)) < 1e-9 && std::fabs(value) < 1e15) {
    return fmt::format("{}", static_cast<std::int64_t>(std::round(value)));
  }
  std::string text = fmt::format("{:.2f}", value);
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text;
}

std::optional<std::string> fill_placeholders(std::string_view text, const Numbers& numbers, std::string_view phase,
                                             const FixContext& context) {
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t open = text.find('{', pos);
    const std::size_t close = open == std::string_view::npos ? open : text.find('}', open);
    if (close == std::string_view::npos) {
      out.append(text.substr(pos));
      break;
    }
    const std::string_view token = text.substr(open + 1, close - open - 1);
    const bool is_placeholder = token == "phase" || token.starts_with("n:") || token.starts_with("d:") ||
                                token.starts_with("cfg:") || token.starts_with("half:") || token.starts_with("double:");
    out.append(text.substr(pos, open - pos));
    if (is_placeholder) {
      const auto value = placeholder(token, numbers, phase, context);
      if (!value) return std::nullopt;
      out.append(*value);
    } else {
      out.append(text.substr(open, close - open + 1));  // literal braces, e.g. a Ray resource dict
    }
    pos = close + 1;
  }
  return out;
}

std::optional<Fix> render_fix(const FixTemplate& fix, const Numbers& numbers, std::string_view phase,
                              const FixContext& context) {
  if (!fix.phases.empty() && !phase.empty() && !phase_listed(fix.phases, phase)) return std::nullopt;
  if (fix.conflicts_with == "sleep_mode" && context.sleep_mode_engine) return std::nullopt;
  if (const std::string_view role = fix.phases.empty() ? "" : role_of(fix.phases); !role.empty()) {
    const std::optional<bool> present = role == "critic" ? context.has_critic : context.has_reference;
    if (present == false || (phase.empty() && present != true)) return std::nullopt;
  }
  if (!fix.unless.empty() && config_has(fix.unless, context).value_or(false)) return std::nullopt;
  bool generic_only = false;
  if (!fix.only_if.empty()) {
    const auto holds = config_has(fix.only_if, context);
    if (holds.has_value() && !*holds) return std::nullopt;
    generic_only = !holds.has_value() && !fix.generic.empty();
  }
  if (!generic_only) {
    if (auto text = fill_placeholders(fix.computed, numbers, phase, context)) return Fix{fix.kind, *text};
  }
  if (fix.generic.empty()) return std::nullopt;
  if (auto text = fill_placeholders(fix.generic, numbers, phase, context)) return Fix{fix.kind, *text};
  return std::nullopt;
}

}  // namespace meshplan
