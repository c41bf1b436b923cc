#pragma once
// The parts of the signature table (one file per area, joined in signatures.cpp in this order;
// inside a line the first matching signature wins, so specific ones come first; the shape
// signatures come last and see only the error lines no literal signature explained).
#include <vector>

#include "diagnose/signature.hpp"

namespace meshplan {

/// The enumerators every table writes bare (`number`, `override_line`, `primary`); each table
/// file says `using namespace signature_words;`.
namespace signature_words {
using enum CaptureKind;
using enum FixKind;
using enum EventRole;
using enum MatchKind;
}  // namespace signature_words

std::vector<Signature> memory_signatures();   ///< GPU and host memory (signatures_memory.cpp)
std::vector<Signature> transport_signatures();  ///< NCCL's intra-node transports, peer access, NIC registration
std::vector<Signature> runtime_signatures();  ///< NCCL, devices, resources, checkpoints
std::vector<Signature> config_signatures();   ///< parallel sizes, batches, keys, lengths
std::vector<Signature> kernel_signatures();   ///< Transformer Engine, FP8, MoE dispatch kernels
std::vector<Signature> version_signatures();  ///< a driver, a package or a pair of packages that do not match
std::vector<Signature> launch_size_signatures();  ///< GPUs, placement bundles and batches a launch asks too many of
std::vector<Signature> model_bridge_signatures();  ///< HF <-> Megatron bridges, weight-sync buckets
std::vector<Signature> shape_signatures();    ///< error message shapes, then unclassified (signatures_shape.cpp)

}  // namespace meshplan
