#pragma once
// The Megatron-LM arguments that make pretrain_gpt.py build the Hugging Face model a ModelSpec
// describes, and what those arguments cannot express.
#include <string>
#include <vector>

#include "model/model_spec.hpp"

namespace meshplan {

struct MegatronModelArgs {
  std::vector<std::string> args;   ///< "--flag" or "--flag value", in the order a person reads them
  std::vector<std::string> notes;  ///< parts of the Hugging Face model these arguments do not build
};

/// Flag names of megatron/training/arguments.py and the TransformerConfig fields it exposes
/// (Megatron-LM d98e8a6); the Hugging Face -> Megatron correspondences of Megatron-Bridge's and
/// verl mbridge's model bridges. `tp` sizes the vocabulary padding, `seq_len` the positions;
/// `mtp_depths` > 0 trains the model's multi-token-prediction layers at that many depths
/// (--mtp-num-layers; more depths than the model has modules repeat its one module).
MegatronModelArgs megatron_model_args(const ModelSpec& model, int tp, std::int64_t seq_len, std::int64_t mtp_depths);

/// Whether Megatron-LM builds the model with pretrain_hybrid.py (HybridModel: a layer pattern of
/// Mamba, attention, MLP and MoE layers) rather than pretrain_gpt.py.
bool builds_hybrid_model(const ModelSpec& model);

}  // namespace meshplan
