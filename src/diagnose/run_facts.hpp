#pragma once
// What a log says about the run that printed it, read while scanning: which frameworks and roles
// ran (verl, vLLM, SGLang, a critic), NCCL's version and network (its INFO lines), the GPUs
// (an nvidia-smi paste) and verl's resolved config (printed at start-up). The fixes use these as
// they use --config; every fact names the line it came from.
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "diagnose/diagnosis.hpp"

namespace meshplan {

struct RunFacts {
  bool verl = false;
  bool vllm = false;
  bool sglang = false;
  bool critic = false;          ///< a critic worker appears (verl's critic_init_model, update_critic, …)
  bool sleep_mode = false;      ///< vLLM's CuMemAllocator or SGLang's torch_memory_saver released memory
  std::string nccl_version;     ///< "2.21.5+cuda12.4"
  std::vector<std::string> nccl_networks;  ///< "NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>" (distinct, capped)
  std::string driver_version;   ///< nvidia-smi's header
  std::string cuda_version;
  std::vector<std::string> gpu_names;  ///< nvidia-smi's rows: "NVIDIA H100 80GB HBM3" (distinct, capped)
  std::map<std::string, std::string, std::less<>> resolved_config;  ///< verl's printed config, dotted keys
  std::optional<Evidence> resolved_config_line;
};

enum class FactKind { verl, vllm, sglang, sleep_mode, critic, nccl_version, nccl_network, nvidia_smi, resolved_config };

/// A literal that marks a fact (at least 11 bytes: it feeds the scanner's window filter).
struct FactMarker {
  std::string_view literal;
  FactKind kind;
};

std::span<const FactMarker> fact_markers();

/// The literal that starts verl's printed config.
inline constexpr std::string_view kResolvedConfigStart = "{'actor_rollout_ref':";

/// Records what a line holding a marker of `kind` says (version, network, nvidia-smi header).
void read_fact(FactKind kind, std::string_view body, RunFacts& facts);

/// Records the framework a Ray or vLLM process name shows ("WorkerDict", "EngineCore_DP0").
void read_process_name(std::string_view source, RunFacts& facts);

/// The GPU model an nvidia-smi table row names ("|   0  NVIDIA H100 80GB HBM3  On | …"); nullopt otherwise.
std::optional<std::string> smi_gpu_name(std::string_view body);

}  // namespace meshplan
