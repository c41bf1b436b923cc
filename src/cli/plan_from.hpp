#pragma once
// `plan --from SCRIPT`: a verl launch read through check's parser (verl/verl_launch.hpp,
// verl/to_strategy.hpp) as the planner's inputs: model, cluster, workload, and the script's own
// layout (the baseline); and the winner written back as changes to the script's overrides.
#include <cstdint>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "hardware/cluster.hpp"
#include "model/model_spec.hpp"
#include "report/launch.hpp"
#include "verl/hydra/verl_launch.hpp"

namespace meshplan {

struct PlanLaunchArguments {
  std::string model;    ///< --model: wins over the script's model path
  std::string gpu;      ///< --gpu: wins over a GPU named in the script or its path
  std::string cluster;  ///< --cluster: its GPU count must be the script's trainer.nnodes x n_gpus_per_node
  // What a launch does not say, from the flags: the expected lengths (0: the default, a quarter of
  // the maximum) and, for a vision-language model, its images (-1: one a sample).
  std::int64_t mean_prompt_len = 0;
  std::int64_t mean_response_len = 0;
  std::int64_t images_per_sample = -1;
  std::int64_t image_pixels = 0;
};

struct PlanLaunch {
  VerlLaunch launch;   ///< the composed config (for the override diff)
  ModelSpec model;
  Cluster cluster;
  std::string cluster_text;  ///< "32x8xH100-80GB"
  Strategy strategy;   ///< the script's layout, in the search's terms (search/baseline.hpp)
  Workload workload;   ///< the script's workload and RL settings
  std::string model_path;
  /// Where the GPU type came from when the script named it ("" with --gpu or --cluster): a guess
  /// the user should see, e.g. "GB200-NVL72, named at line 10 of the script".
  std::string gpu_source;
};

/// A GPU type a script names, and where: line 0 is its path.
struct NamedGpu {
  GpuSpec gpu;
  int line = 0;
  /// Other catalog parts whose id begins with the word the script used and a dash (its "H20" is
  /// H20-96GB; H20-141GB shares the name): the memory a plan fits against depends on which.
  std::vector<std::string> same_name;
};

/// The GPU type a verl example names in its path ("tuning/70b/qwen2-70b_grpo_32_h800_fsdp_vllm.sh")
/// or, failing that, in its text ("# 256 H100(80GB)"): catalog ids or aliases as whole words.
/// nullopt when none is named; an Error naming the types when several are.
Result<std::optional<NamedGpu>> gpu_named_in(const std::string& path, const std::string& text,
                                             const std::vector<GpuSpec>& catalog);

/// Reads the launch (check's parser: script, Hydra composition, verl defaults) into the
/// planner's inputs. Errors (exit 2) name the file and what to give: --model when the model
/// path is not a preset, --gpu when no GPU type is named.
Result<PlanLaunch> read_plan_launch(const std::vector<InputText>& inputs, const VerlReadOptions& read,
                                    const PlanLaunchArguments& arguments, const std::vector<GpuSpec>& catalog);

/// The winner as changes to the script's overrides: one `key=value` line per setting whose value
/// differs from the composed config, each with where the script sets it and its old value.
std::string verl_override_diff(const PlanLaunch& plan, const LaunchSpec& winner, const std::string& source,
                               double speedup);

}  // namespace meshplan
