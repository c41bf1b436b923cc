#include "model/config_reader.hpp"

#include <fmt/format.h>

#include <array>

#include "model/architectures.hpp"
#include "model/config_fields.hpp"
#include "model/param_count.hpp"

namespace meshplan {

namespace {

using ArchitectureReader = void (*)(const ConfigFields&, std::string_view, ModelSpec&);

/// One supported architecture: its model_type, the Hugging Face class named in
/// `architectures` (used when model_type is absent) and its reader.
struct Architecture {
  std::string_view model_type;
  std::string_view hf_class;
  ArchitectureReader read;
};

constexpr std::array kArchitectures{
    Architecture{"llama", "LlamaForCausalLM", read_dense_decoder},
    Architecture{"mistral", "MistralForCausalLM", read_dense_decoder},
    Architecture{"qwen2", "Qwen2ForCausalLM", read_dense_decoder},
    Architecture{"qwen3", "Qwen3ForCausalLM", read_dense_decoder},
    Architecture{"seed_oss", "SeedOssForCausalLM", read_dense_decoder},
    Architecture{"mimo", "MiMoForCausalLM", read_mimo},
    Architecture{"mixtral", "MixtralForCausalLM", read_moe_decoder},
    Architecture{"qwen2_moe", "Qwen2MoeForCausalLM", read_moe_decoder},
    Architecture{"qwen3_moe", "Qwen3MoeForCausalLM", read_moe_decoder},
    Architecture{"deepseek_v2", "DeepseekV2ForCausalLM", read_deepseek},
    Architecture{"deepseek_v3", "DeepseekV3ForCausalLM", read_deepseek},
    Architecture{"deepseek_v32", "DeepseekV32ForCausalLM", read_deepseek},
    Architecture{"kimi_k2", "DeepseekV3ForCausalLM", read_deepseek},
    Architecture{"glm4_moe", "Glm4MoeForCausalLM", read_glm4_moe},
    Architecture{"gpt_oss", "GptOssForCausalLM", read_gpt_oss},
    Architecture{"gemma2", "Gemma2ForCausalLM", read_gemma},
    Architecture{"gemma3_text", "Gemma3ForCausalLM", read_gemma},
    Architecture{"gemma3", "Gemma3ForConditionalGeneration", read_gemma3_vision},
    Architecture{"llama4_text", "Llama4ForCausalLM", read_llama4},
    Architecture{"glm4v", "Glm4vForConditionalGeneration", read_glm4v},
    Architecture{"glm4v_moe", "Glm4vMoeForConditionalGeneration", read_glm4v},
    Architecture{"llama4", "Llama4ForConditionalGeneration", read_llama4},
    Architecture{"qwen3_next", "Qwen3NextForCausalLM", read_qwen3_next},
    Architecture{"qwen3_5_text", "Qwen3_5ForCausalLM", read_qwen3_next},
    Architecture{"qwen3_5_moe_text", "Qwen3_5MoeForCausalLM", read_qwen3_next},
    Architecture{"nemotron_h", "NemotronHForCausalLM", read_nemotron_h},
    Architecture{"minimax", "MiniMaxForCausalLM", read_minimax},
    Architecture{"minimax_m1", "MiniMaxM1ForCausalLM", read_minimax},
    Architecture{"minimax_m2", "MiniMaxM2ForCausalLM", read_moe_decoder},
    Architecture{"qwen2_5_vl", "Qwen2_5_VLForConditionalGeneration", read_vision_language},
    Architecture{"qwen3_vl", "Qwen3VLForConditionalGeneration", read_vision_language},
    Architecture{"qwen3_vl_moe", "Qwen3VLMoeForConditionalGeneration", read_vision_language},
    Architecture{"qwen3_5", "Qwen3_5ForConditionalGeneration", read_vision_language},
    Architecture{"qwen3_5_moe", "Qwen3_5MoeForConditionalGeneration", read_vision_language},
    Architecture{"gpt2", "GPT2LMHeadModel", read_classic_gpt},
    Architecture{"gpt_neox", "GPTNeoXForCausalLM", read_classic_gpt},
};

const Architecture* find_architecture(std::string_view model_type, std::string_view hf_class) {
  for (const Architecture& architecture : kArchitectures) {
    if (!model_type.empty() ? architecture.model_type == model_type : architecture.hf_class == hf_class) {
      return &architecture;
    }
  }
  return nullptr;
}

// Dropout rates under their Hugging Face names (Llama/Qwen attention_dropout, Megatron-style
// hidden_dropout, GPT-2 attn_pdrop / resid_pdrop / embd_pdrop); absent = 0.
void read_dropout(const ConfigFields& config, ModelSpec& model) {
  model.attention_dropout = config.fraction_or("attention_dropout", config.fraction_or("attn_pdrop", 0.0));
  model.hidden_dropout = config.fraction_or("hidden_dropout", config.fraction_or("resid_pdrop", 0.0));
  model.embedding_dropout = config.fraction_or("embd_pdrop", 0.0);
}

}  // namespace

std::vector<std::string> supported_model_types() {
  std::vector<std::string> types;
  for (const Architecture& architecture : kArchitectures) types.emplace_back(architecture.model_type);
  return types;
}

Result<ModelSpec> parse_model_config(std::string_view json_text, std::string_view source_name) {
  Result<ConfigFields> parsed = ConfigFields::parse(json_text, source_name);
  if (!parsed) return parsed.error();
  const ConfigFields& config = *parsed;
  ModelSpec model;
  model.name = std::string(source_name);
  model.model_type = config.text_or_empty("model_type");
  const std::vector<std::string> classes = config.texts("architectures");
  model.architecture = classes.empty() ? "" : classes.front();
  if (config.failed()) return config.error();

  const Architecture* architecture = find_architecture(model.model_type, model.architecture);
  if (architecture == nullptr) {
    const std::string supported = fmt::format("{}", fmt::join(supported_model_types(), ", "));
    if (model.model_type.empty()) {
      const std::string why = model.architecture.empty()
                                  ? std::string("neither model_type nor architectures is set")
                                  : fmt::format("missing, and architectures[0] \"{}\" is unknown", model.architecture);
      config.fail("model_type", fmt::format("{} (supported model_type values: {})", why, supported));
    } else {
      config.fail("model_type", fmt::format("unsupported model_type \"{}\" (supported: {})", model.model_type,
                                            supported));
    }
    return config.error();
  }
  model.model_type = std::string(architecture->model_type);
  architecture->read(config, model.model_type, model);
  read_dropout(config.has("text_config") ? config.section("text_config") : config, model);
  if (config.failed()) return config.error();
  if (model.total_params >= kMaxParams) {
    config.fail("hidden_size", fmt::format("the sizes give over {:.0e} parameters; a size is absurd",
                                           static_cast<double>(kMaxParams)));
    return config.error();
  }
  return model;
}

}  // namespace meshplan
