#include "diagnose/run_facts.hpp"

#include <algorithm>
#include <array>

namespace meshplan {

namespace {

constexpr std::size_t kMaxListed = 8;

constexpr std::array<FactMarker, 23> kMarkers = {{
    {"verl/workers/", FactKind::verl},
    {"verl/trainer/", FactKind::verl},
    {"verl/single_controller", FactKind::verl},
    {"actor_rollout_ref.", FactKind::verl},
    {"site-packages/vllm/", FactKind::vllm},
    {"vllm/engine/", FactKind::vllm},
    {"vllm/worker/", FactKind::vllm},
    {"vllm_rollout", FactKind::vllm},
    {"CuMemAllocator", FactKind::sleep_mode},
    {"cumem_allocator", FactKind::sleep_mode},
    {"Sleep mode freed", FactKind::sleep_mode},
    {"seconds to wake up tags", FactKind::sleep_mode},
    {"sglang/srt/", FactKind::sglang},
    {"torch_memory_saver", FactKind::sleep_mode},
    {"critic_init_model", FactKind::critic},
    {"update_critic", FactKind::critic},
    {"CriticWorker", FactKind::critic},
    {"compute_values", FactKind::critic},
    {"NCCL version ", FactKind::nccl_version},
    {"NCCL INFO NET/", FactKind::nccl_network},
    {"NCCL INFO Using network", FactKind::nccl_network},
    {"NVIDIA-SMI ", FactKind::nvidia_smi},
    {kResolvedConfigStart, FactKind::resolved_config},
}};

void add_distinct(std::vector<std::string>& list, std::string_view value) {
  if (value.empty() || list.size() >= kMaxListed) return;
  if (std::find(list.begin(), list.end(), value) == list.end()) list.emplace_back(value);
}

/// The token after `label` ("Driver Version: 550.54.15" -> "550.54.15").
std::string_view word_after(std::string_view text, std::string_view label) {
  const std::size_t at = text.find(label);
  if (at == std::string_view::npos) return {};
  std::size_t start = at + label.size();
  while (start < text.size() && text[start] == ' ') ++start;
  std::size_t end = start;
  while (end < text.size() && text[end] != ' ' && text[end] != '|') ++end;
  return text.substr(start, end - start);
}

}  // namespace

std::span<const FactMarker> fact_markers() { return kMarkers; }

void read_fact(FactKind kind, std::string_view body, RunFacts& facts) {
  switch (kind) {
    case FactKind::verl: facts.verl = true; break;
    case FactKind::vllm: facts.vllm = true; break;
    case FactKind::sglang: facts.sglang = true; break;
    case FactKind::sleep_mode: facts.sleep_mode = true; break;
    case FactKind::critic: facts.critic = true; break;
    case FactKind::nccl_version:
      // NCCL's init banner: "NCCL version 2.21.5+cuda12.4" (nccl/src/init.cc showVersion).
      if (facts.nccl_version.empty()) facts.nccl_version = std::string(word_after(body, "NCCL version "));
      break;
    case FactKind::nccl_network: {
      const std::size_t at = body.find("NCCL INFO ");
      if (at != std::string_view::npos) add_distinct(facts.nccl_networks, body.substr(at + 10, 120));
      break;
    }
    case FactKind::nvidia_smi:
      if (facts.driver_version.empty()) facts.driver_version = std::string(word_after(body, "Driver Version:"));
      if (facts.cuda_version.empty()) facts.cuda_version = std::string(word_after(body, "CUDA Version:"));
      break;
    case FactKind::resolved_config: break;  // read by the scanner over several lines
  }
}

void read_process_name(std::string_view source, RunFacts& facts) {
  if (source == "WorkerDict" || source == "TaskRunner" || source == "main_task") facts.verl = true;
  if (source.starts_with("EngineCore") || source.starts_with("VllmWorker") || source == "RayWorkerWrapper") {
    facts.vllm = true;
  }
}

std::optional<std::string> smi_gpu_name(std::string_view body) {
  // "|   0  NVIDIA H100 80GB HBM3          On  |   00000000:18:00.0 Off |"
  for (const std::string_view vendor : {std::string_view("NVIDIA "), std::string_view("Tesla ")}) {
    const std::size_t at = body.find(vendor);
    if (at == std::string_view::npos || body.find("NVIDIA-SMI") != std::string_view::npos) continue;
    const std::size_t end = body.find("  ", at);
    std::string_view name = body.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
    if (name.size() < vendor.size() + 2 || name.find('|') != std::string_view::npos) continue;
    return std::string(name);
  }
  return std::nullopt;
}

}  // namespace meshplan
