#pragma once
// JSON views of the hardware structs for every command's --json output. Units are in the key
// names: bytes, FLOP/s, bytes/s (per direction), seconds.
#include <nlohmann/json_fwd.hpp>

#include "hardware/cluster.hpp"
#include "hardware/gpu_spec.hpp"

namespace meshplan {

nlohmann::ordered_json gpu_json(const GpuSpec& gpu);

/// Each group with its effective links; "*_from" says "catalog" when a value is the GPU's default.
nlohmann::ordered_json cluster_json(const Cluster& cluster);

}  // namespace meshplan
