#pragma once
// How far a step time is from measured runs of its kind that no constant was fit on: the groups of
// docs/accuracy.md and docs/accuracy-held-out-training.md as data, so that estimate and plan say
// how sure their time is. Each figure is recomputed from its rows by a test
// (tests/cost/calibration/held_out_training_test.cpp, rl_off_policy_rows_test.cpp, and
// `fit_efficiency --check` for the RL rows held out by source), which fails when the model no
// longer gives it.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hardware/gpu_spec.hpp"
#include "model/model_spec.hpp"
#include "strategy/strategy.hpp"

namespace meshplan {

struct TimeAccuracy {
  std::string_view id;        ///< stable: "moe-training-blackwell"
  std::string_view scope;     ///< what the rows are: "MoE pre-training with Megatron-core on Blackwell"
  int runs = 0;               ///< measured runs in the group
  double median_abs_error = 0;  ///< |predicted / measured - 1|, median over the runs
  double max_abs_error = 0;
  std::string_view evidence;  ///< where the runs come from and where every row's error is listed
};

/// The runs of one model family (config.json model_type) within a group that holds several: where
/// a family's own runs say more than the group's (GPT-OSS on Blackwell: too fast by far more than
/// the group's median), estimate and plan print them beside the group.
struct TimeAccuracyFamily {
  std::string_view group_id;    ///< the group the runs belong to
  std::string_view model_type;  ///< "gpt_oss"
  int runs = 0;
  double median_abs_error = 0;
  double max_abs_error = 0;
  /// predicted / measured step time - 1, median over the runs: below 0, the model's time is shorter
  double median_time_error = 0;
};

/// The runs of one GPU type (catalog id) within a group that holds several: GB300's dense runs are
/// off by more, and in one direction, than the Blackwell group says (docs/accuracy-held-out-training.md).
struct TimeAccuracyGpu {
  std::string_view group_id;
  std::string_view gpu_id;  ///< "GB300-NVL72"
  int runs = 0;
  double median_abs_error = 0;
  double max_abs_error = 0;
  double median_time_error = 0;  ///< as TimeAccuracyFamily's
};

/// The runs of a group that the model has host-bound: the MoE layers' host wait
/// (time.breakdown.moe_host_wait, the model's least certain term) over `min_share` of the
/// predicted step. Where an estimate is host-bound too, estimate and plan print them beside the
/// group (on Blackwell they are off by about twice the group's median).
struct TimeAccuracyHostBound {
  std::string_view group_id;
  double min_share = 0;  ///< moe_host_wait / step above which a run (and an estimate) counts
  int runs = 0;
  double median_abs_error = 0;
  double max_abs_error = 0;
  double median_time_error = 0;  ///< as TimeAccuracyFamily's
};

/// The held-out runs on parts whose host CPU the catalog times apart (GpuSpec::host_op_time_ratio:
/// Grace on GB200 and GB300) with MoE layers that launch from the host (cost/time/host_cpu_sensitivity.hpp):
/// how many measured between the estimate and the estimate at the host's per-op ratio, each bound
/// widened by `slack`.
struct TimeAccuracyHostCpu {
  int runs = 0;
  int between = 0;
  int slower = 0;  ///< measured slower than both estimates; the rest, faster than both
  double slack = 0;
};

/// The runs of a group trained in one compute precision where it stands apart from the group's:
/// the NVFP4 runs (`--dtype fp4`), whose GEMM rate is one layer shape's measured on B300.
struct TimeAccuracyPrecision {
  std::string_view group_id;
  std::string_view compute_dtype;  ///< "fp4", as --dtype names it
  int runs = 0;
  double median_abs_error = 0;
  double max_abs_error = 0;
  double median_time_error = 0;  ///< as TimeAccuracyFamily's
};
/// Runs of a group's kind measured by another source, apart from the group's own (whose figures
/// come from one source's tables): for training, Megatron-MoE-ModelZoo's benchmark tables and
/// Megatron-LM's DeepSeek-V3 guide (Megatron-LM launches of other software and layouts than
/// Megatron-Bridge's recipes), MLPerf Training's submissions, Megatron-Bridge's model verification
/// cards (its recipes run apart from the tables, functional runs on real data among them); for RL,
/// verl's own runs beside NeMo RL's. A group may have several; estimate and plan print each.
struct TimeAccuracySecondSource {
  std::string_view group_id;
  std::string_view source;          ///< stable: "modelzoo", "mlperf", "bridge-cards", "verl"
  std::string_view runs_described;  ///< "Qwen3-235B-A22B on H100 (BF16, DeepEP and alltoall, TP 2-4, ...)"
  int runs = 0;
  double median_abs_error = 0;
  double max_abs_error = 0;
  double median_time_error = 0;  ///< as TimeAccuracyFamily's
  std::string_view evidence;
};

/// Every group, in the order the docs list them.
std::span<const TimeAccuracy> time_accuracy_groups();

/// The group by id (the tests look their figures up this way); nullopt for an unknown id.
std::optional<TimeAccuracy> time_accuracy_group(std::string_view id);

/// Every family of every group that holds more than one.
std::span<const TimeAccuracyFamily> time_accuracy_families();

/// Every GPU type of every group that holds more than one.
std::span<const TimeAccuracyGpu> time_accuracy_gpus();

/// The host-bound runs of the groups where they are a part of the runs, not all of them.
std::span<const TimeAccuracyHostBound> time_accuracy_host_bound();

/// The held-out Blackwell MoE runs launched from Grace, not graphed whole (session 58).
TimeAccuracyHostCpu time_accuracy_host_cpu();

/// The precisions listed apart within their groups.
std::span<const TimeAccuracyPrecision> time_accuracy_precisions();
/// The other sources' runs of each group that has some.
std::span<const TimeAccuracySecondSource> time_accuracy_second_sources();

/// One source's runs of one group (the tests look their figures up this way); nullopt if none.
std::optional<TimeAccuracySecondSource> time_accuracy_second_source(std::string_view group_id, std::string_view source);

/// The group whose held-out runs an estimate of this kind is like; without one (another GPU
/// generation, FSDP pre-training, SGLang rollout) the time is unchecked, and `unchecked` says why.
struct TimeAccuracyMatch {
  std::optional<TimeAccuracy> group;
  std::optional<TimeAccuracyFamily> family;  ///< the model's own family's runs in the group, where listed
  std::optional<TimeAccuracyGpu> gpu_type;  ///< the estimate's own GPU type's runs in the group, where listed
  std::optional<TimeAccuracyHostBound> host_bound;  ///< where the estimate itself is host-bound
  std::optional<TimeAccuracyPrecision> precision;  ///< the estimate's own compute precision's runs, where listed
  std::vector<TimeAccuracySecondSource> other_sources;  ///< the group's kind, measured by other sources
  std::string unchecked;  ///< "no held-out run was measured on Ampere GA100 GPUs"; empty with a group
};
/// `moe_host_wait_share`: the estimate's moe_host_wait over its step (0 when not known).
TimeAccuracyMatch time_accuracy_for(const ModelSpec& model, const GpuSpec& gpu, const Strategy& strategy,
                                    const Workload& workload, double moe_host_wait_share);

}  // namespace meshplan
