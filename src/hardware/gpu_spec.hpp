#pragma once
// One accelerator of the hardware catalog (data/hardware/gpus.json). Every figure is dense
// (no 2:4 sparsity) and in SI units; see ../shared/hardware/gpus.md for the traps.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace meshplan {

/// One point of a message-size sweep: nccl-tests bus bandwidth at a message size.
struct BusBandwidthPoint {
  double message_bytes = 0;
  double busbw_Bps = 0;
};

/// A published single-node NCCL all-reduce measurement (nccl-tests busbw convention:
/// busbw = algbw * 2(n-1)/n). Calibrates the collective model; see gpus.md traps 6-7.
struct MeasuredAllReduce {
  int gpus = 8;                    ///< GPUs in the measured node
  double busbw_Bps = 0;            ///< large-message bus bandwidth, bytes/s
  double message_bytes = 0;        ///< message size of that figure; 0 when not stated
  bool nvls = false;               ///< NVLink SHARP: busbw exceeds the wire rate (all-reduce only)
  double ring_busbw_Bps = 0;       ///< ring / all-gather effective rate when reported; 0 when not
  std::vector<BusBandwidthPoint> sweep;  ///< busbw by message size (same source), ascending; fits
                                         ///< latency + bandwidth. Empty when not published.
  std::string source;
};

enum class LinkKind { nvlink, pcie, xgmi, hccs };
/// fp4: NVFP4 (Transformer Engine NVFP4BlockScaling: E2M1 values, an E4M3 scale per 16 and an fp32
/// scale per tensor), as Megatron-core --fp4-format e2m1 --fp4-recipe nvfp4 trains.
enum class Dtype { fp32, tf32, bf16, fp16, fp8, fp4 };

/// "fp32", "tf32", "bf16", "fp16", "fp8", "fp4": the names --dtype takes.
std::string_view compute_dtype_name(Dtype dtype);

struct GpuSpec {
  std::string id;                     ///< catalog key, e.g. "A100-80GB"
  std::string name;                   ///< vendor's full name
  std::vector<std::string> aliases;   ///< other accepted names (case-insensitive)
  std::string vendor;
  std::string arch;                   ///< e.g. "Ampere", "Hopper"
  int sm_count = 0;                   ///< streaming multiprocessors; 0 = not in the catalog

  std::int64_t memory_bytes = 0;      ///< usable device memory as torch reports it
  double memory_bandwidth_Bps = 0;    ///< HBM/GDDR bytes per second

  double fp32_flops = 0;              ///< dense peak FLOP/s per dtype; 0 = unsupported/unknown
  double tf32_flops = 0;
  double bf16_flops = 0;              ///< 0 on V100 (no bf16)
  double fp16_flops = 0;
  double fp8_flops = 0;
  double fp4_flops = 0;               ///< NVFP4 (block-scaled E2M1) dense peak; 0 = no NVFP4
  /// This part's measured best dense matmul (the catalog's "matmul" source: a shape search of
  /// large GEMMs); 0 = not measured.
  double matmul_bf16_flops = 0;
  double matmul_fp8_flops = 0;
  /// The mean share of the dense peak its generation's measured parts reach in that matmul (the
  /// catalog sets it from every part of the generation; 0 = none measured). Parts of one die
  /// measure apart by their software stacks more than by their SKU.
  double matmul_share_bf16 = 0;
  double matmul_share_fp8 = 0;

  LinkKind intra_node_link = LinkKind::pcie;
  int nvlink_generation = 0;          ///< 0 when no NVLink
  double intra_node_Bps = 0;          ///< per GPU, per direction, line rate
  double intra_node_pair_Bps = 0;     ///< what one GPU pair can use per direction (< intra_node_Bps
                                      ///< on switchless meshes: MI300X xGMI, V100 cube-mesh)
  bool nvswitch = false;              ///< every pair gets the full per-GPU bandwidth
  int pcie_generation = 0;            ///< host link generation (x16)
  int gpus_per_node = 8;              ///< typical server (rack-scale parts: the NVLink domain)
  /// GPUs under one operating system; 0 = gpus_per_node. A rack-scale NVLink domain is built of
  /// smaller hosts (GB200/GB300 NVL72: 4-GPU compute trays), which decides what needs one host
  /// (vLLM's custom all-reduce).
  int gpus_per_host = 0;
  double nic_Bps = 0;                 ///< inter-node NIC bandwidth per GPU, per direction (bytes/s)
  double host_to_device_Bps = 0;      ///< pinned H2D copy rate over PCIe (measured or line rate)
  /// Host DRAM bandwidth of one host (gpus_per_host GPUs share it); 0 = a 2-socket x86 server's.
  double host_memory_Bps = 0;
  /// A PyTorch op's host (CPU) time on this part's host CPU over the DGX H100's Xeon Platinum
  /// 8480C, whose hosts ran the rows the MoE host constants were fit on; 0 where not measured
  /// (x86 hosts, taken as those). Grace: TransformerEngine issue #2053.
  double host_op_time_ratio = 0;
  std::optional<MeasuredAllReduce> measured_allreduce;  ///< when a measurement was found
  std::string confidence;             ///< "high", "medium", ... with the reason
  std::string source;                 ///< where the figures come from ("field: citation; ...")
  std::map<std::string, std::string> derived;  ///< field -> how a value not in the sources was derived
  /// field -> why a value departs from the project's reference data (../shared/hardware/gpus.json):
  /// a newer or primary source (a driver query, a revised datasheet) the reference predates.
  std::map<std::string, std::string> corrections;

  /// Dense peak for a compute dtype; 0 when the GPU does not support it.
  double peak_flops(Dtype dtype) const;

  /// The catalog's arch starts with the generation ("Ampere GA100", "Hopper GH100"), any case.
  bool is_generation(std::string_view generation) const;

  /// The first word of the arch, lower case ("blackwell" for "Blackwell Ultra (2 dies)").
  std::string generation() const;
};

}  // namespace meshplan
