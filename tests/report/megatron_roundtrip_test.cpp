// Round trip of the Megatron-LM emit: the pretrain_gpt.py flags it writes, read back with
// Megatron-LM's own defaults (megatron/training/arguments.py and TransformerConfig at d98e8a6:
// --norm-epsilon 1e-5, --rotary-base 10000, LayerNorm, learned positions, add_bias_linear on,
// kv_channels = hidden / heads, ...), must give the model of the preset's config.json, for every
// preset. What the flags cannot build must be named in a "# Not as in config.json" line.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "approx.hpp"
#include "model/config_reader.hpp"
#include "model/model_presets.hpp"
#include "report/launch.hpp"

namespace meshplan {
namespace {

using Flags = std::map<std::string, std::string>;  // "--name" -> value ("" for a switch)

/// The arguments after pretrain_gpt.py, one "--name [value] \" per line; quotes dropped.
Flags read_flags(const std::string& script) {
  Flags flags;
  const std::size_t gpt = script.find("pretrain_gpt.py");
  std::istringstream in(script.substr(gpt != std::string::npos ? gpt : script.find("pretrain_hybrid.py")));
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t dash = line.find("--");
    if (dash == std::string::npos) continue;
    std::string item = line.substr(dash);
    if (item.ends_with(" \\")) item.resize(item.size() - 2);
    const std::size_t space = item.find(' ');
    std::string value = space == std::string::npos ? "" : item.substr(space + 1);
    std::erase(value, '"');
    flags[item.substr(0, space)] = value;
  }
  return flags;
}

std::string get(const Flags& f, const std::string& name, const std::string& fallback) {
  const auto it = f.find(name);
  return it == f.end() ? fallback : it->second;
}
std::int64_t integer(const Flags& f, const std::string& name, std::int64_t fallback) {
  return std::stoll(get(f, name, std::to_string(fallback)));
}
double real(const Flags& f, const std::string& name, double fallback) {
  const auto it = f.find(name);
  return it == f.end() ? fallback : std::stod(it->second);
}
bool has(const Flags& f, const std::string& name) { return f.count(name) > 0; }

/// moe_freq_type's list syntax "([0]*3+[1]*58)" expanded to one entry per layer.
std::vector<bool> expand_pattern(const std::string& pattern, std::int64_t layers) {
  if (pattern.empty()) return std::vector<bool>(static_cast<std::size_t>(layers), true);  // default 1: all
  std::vector<bool> out;
  for (std::size_t at = pattern.find('['); at != std::string::npos; at = pattern.find('[', at + 1)) {
    const bool moe = pattern[at + 1] == '1';
    const std::int64_t count = std::stoll(pattern.substr(pattern.find('*', at) + 1));
    out.insert(out.end(), static_cast<std::size_t>(count), moe);
  }
  return out;
}

/// What Megatron-LM builds from `f`, in ModelSpec terms.
ModelSpec megatron_model(const Flags& f) {
  ModelSpec m;
  m.num_layers = integer(f, "--num-layers", 0);
  m.hidden_size = integer(f, "--hidden-size", 0);
  AttentionSpec& a = m.attention;
  a.num_heads = integer(f, "--num-attention-heads", 0);
  if (has(f, "--multi-latent-attention")) {
    a.kind = AttentionKind::mla;
    a.num_kv_heads = a.num_heads;
    a.q_lora_rank = integer(f, "--q-lora-rank", 0);
    a.kv_lora_rank = integer(f, "--kv-lora-rank", 32);
    a.qk_nope_head_dim = integer(f, "--qk-head-dim", 128);
    a.qk_rope_head_dim = integer(f, "--qk-pos-emb-head-dim", 64);
    a.v_head_dim = integer(f, "--v-head-dim", 128);
    a.head_dim = a.qk_nope_head_dim + a.qk_rope_head_dim;
  } else {
    a.num_kv_heads = has(f, "--group-query-attention") ? integer(f, "--num-query-groups", 1) : a.num_heads;
    a.head_dim = integer(f, "--kv-channels", m.hidden_size / a.num_heads);
  }
  const bool bias_linear = !has(f, "--disable-bias-linear");
  a.qkv_bias = bias_linear || has(f, "--add-qkv-bias");
  a.o_bias = bias_linear;
  a.qk_norm = has(f, "--qk-layernorm");
  a.sinks = get(f, "--softmax-type", "vanilla") == "learnable";
  const std::string window = get(f, "--window-size", "");
  a.sliding_window = window.empty() ? 0 : std::stoll(window.substr(1));
  m.dense_mlp.intermediate_size = integer(f, "--ffn-hidden-size", 4 * m.hidden_size);
  m.dense_mlp.gated = has(f, "--swiglu");
  m.dense_mlp.bias = bias_linear;
  m.norm = get(f, "--normalization", "LayerNorm") == "RMSNorm" ? NormKind::rms_norm : NormKind::layer_norm;
  m.norm_eps = real(f, "--norm-epsilon", 1e-5);
  const std::string position = get(f, "--position-embedding-type", "learned_absolute");
  m.position = position == "learned_absolute" ? PositionKind::learned
               : position == "none"           ? PositionKind::none
                                              : PositionKind::rope;
  m.dense_mlp.squared_relu = has(f, "--squared-relu");
  m.max_position_embeddings = integer(f, "--max-position-embeddings", 0);
  RopeSpec& r = m.rope;
  r.theta = real(f, "--rotary-base", 10000);
  r.fraction = real(f, "--rotary-percent", 1.0);
  if (has(f, "--use-rope-scaling")) {
    r.scaling = "llama3";
    r.factor = real(f, "--rope-scaling-factor", 8.0);
    r.original_max_positions = 8192;  // RotaryEmbedding._apply_scaling
  } else if (has(f, "--rotary-seq-len-interpolation-factor")) {
    r.scaling = "linear";
    r.factor = real(f, "--rotary-seq-len-interpolation-factor", 1.0);
  } else if (position == "yarn" || get(f, "--rope-type", "") == "yarn") {
    r.scaling = "yarn";
    r.factor = real(f, "--rotary-scaling-factor", 1.0);
    r.mscale = real(f, "--mscale", 1.0);
    r.mscale_all_dim = real(f, "--mscale-all-dim", 0.0);
    // MLATransformerConfig defaults; non-MLA YaRN takes the --yarn-* flags.
    r.original_max_positions = integer(f, "--yarn-original-max-position-embeddings", 4096);
    r.beta_fast = real(f, "--yarn-beta-fast", 32.0);
    r.beta_slow = real(f, "--yarn-beta-slow", 1.0);
  }
  m.tie_word_embeddings = !has(f, "--untie-embeddings-and-output-weights");
  m.vocab_size = integer(f, "--padded-vocab-size", 0);
  m.num_mtp_layers = integer(f, "--mtp-num-layers", 0);
  if (has(f, "--num-experts")) {
    MoeSpec moe;
    moe.num_experts = integer(f, "--num-experts", 0);
    moe.experts_per_token = integer(f, "--moe-router-topk", 2);
    moe.expert_intermediate_size = integer(f, "--moe-ffn-hidden-size", m.dense_mlp.intermediate_size);
    moe.shared_intermediate_size = integer(f, "--moe-shared-expert-intermediate-size", 0);
    moe.shared_expert_gate = has(f, "--moe-shared-expert-gate");
    moe.score = get(f, "--moe-router-score-function", "softmax") == "sigmoid" ? RouterScore::sigmoid : RouterScore::softmax;
    // TopKRouter: softmax after the top-k (normalized) unless --moe-router-pre-softmax; sigmoid
    // scores are renormalized when top-k > 1 (moe_utils.topk_routing_with_score_function).
    moe.normalize_top_k = moe.score == RouterScore::sigmoid ? moe.experts_per_token > 1
                                                            : !has(f, "--moe-router-pre-softmax");
    moe.routed_scaling_factor = real(f, "--moe-router-topk-scaling-factor", 1.0);
    moe.num_groups = integer(f, "--moe-router-num-groups", 0);
    moe.group_top_k = integer(f, "--moe-router-group-topk", 0);
    moe.expert_bias = has(f, "--moe-router-enable-expert-bias");
    moe.layer_is_moe = expand_pattern(get(f, "--moe-layer-freq", ""), m.num_layers);
    moe.gated_experts = m.dense_mlp.gated;  // --swiglu or --squared-relu sets every MLP's activation
    m.moe = moe;
  }
  // pretrain_hybrid.py: the pattern gives the layers (arguments.py get_hybrid_total_layer_count) and
  // which are MoE; the Mamba mixer's sizes default to TransformerConfig's (state 128, 8 groups). MTP
  // depths follow the decoder's layers, each after a '/' (arguments.py's unified pattern).
  const std::string unified = get(f, "--hybrid-layer-pattern", "");
  const std::string pattern = unified.substr(0, unified.find('/'));
  if (unified.find('/') != std::string::npos) {
    const std::size_t first = unified.find('/') + 1;
    m.mtp_layer_pattern = unified.substr(first, unified.find('/', first) - first);
  }
  if (m.moe) m.moe->latent_size = integer(f, "--moe-latent-size", 0);
  if (!pattern.empty()) {
    m.hybrid_layer_pattern = pattern;
    m.num_layers = static_cast<std::int64_t>(pattern.size());
    if (m.moe) {
      m.moe->layer_is_moe.clear();
      for (const char kind : pattern) m.moe->layer_is_moe.push_back(kind == 'E');
    }
    LinearAttentionSpec mamba;
    mamba.kind = LinearAttentionKind::mamba2;
    mamba.num_layers = std::count(pattern.begin(), pattern.end(), 'M');
    mamba.num_value_heads = integer(f, "--mamba-num-heads", 0);
    mamba.value_head_dim = integer(f, "--mamba-head-dim", 64);
    mamba.key_head_dim = integer(f, "--mamba-state-dim", 128);
    mamba.num_key_heads = integer(f, "--mamba-num-groups", 8);
    m.linear_attention = mamba;
  }
  return m;
}

ModelSpec preset(const std::string& name) {
  const auto text = find_model_preset_config(name);
  REQUIRE(text.has_value());
  Result<ModelSpec> model = parse_model_config(*text, name);
  REQUIRE_MESSAGE(model.ok(), (model.ok() ? "" : model.error().to_string()));
  return std::move(model).value();
}

std::string emit_for(const ModelSpec& model) {
  Strategy strategy;
  strategy.train_mtp = model.num_mtp_layers > 0;  // the launch trains every layer the checkpoint has
  Workload workload;
  workload.seq_len = 4096;
  workload.global_batch = 256;
  NodeGroup group;
  group.nodes = 1;
  group.gpus_per_node = 8;
  group.gpu.id = "H100-80GB";
  Cluster cluster;
  cluster.groups = {group};
  return emit_megatron(LaunchSpec{model, "org/" + model.name, strategy, workload, cluster, 0});
}

bool noted(const std::string& script, const std::string& words) {
  const std::size_t at = script.find("# Not as in config.json: ");
  return at != std::string::npos && script.find(words, at) != std::string::npos;
}

}  // namespace

TEST_CASE("emit megatron: the flags read back with Megatron's defaults give every preset's model") {
  for (const std::string& name : model_preset_names()) {
    CAPTURE(name);
    const ModelSpec hf = preset(name);
    const std::string script = emit_for(hf);
    const ModelSpec mg = megatron_model(read_flags(script));
    CHECK(mg.num_layers == hf.num_layers);
    CHECK(mg.hidden_size == hf.hidden_size);
    CHECK(mg.vocab_size == hf.vocab_size);
    CHECK(mg.tie_word_embeddings == hf.tie_word_embeddings);
    CHECK(mg.norm == hf.norm);
    CHECK(mg.norm_eps == test::approx(hf.norm_eps).epsilon(1e-9));
    CHECK(mg.position == hf.position);
    if (hf.position == PositionKind::learned) CHECK(mg.max_position_embeddings == hf.max_position_embeddings);
    if (hf.position == PositionKind::rope) {
      CHECK(mg.max_position_embeddings >= hf.max_position_embeddings);
      CHECK(mg.rope.theta == hf.rope.theta);
      CHECK(mg.rope.fraction == hf.rope.fraction);
      // Multimodal rope equals plain rope on text: the launch says so.
      if (hf.rope.scaling == "mrope") {
        CHECK(mg.rope.scaling.empty());
        CHECK(noted(script, "mrope_section"));
      } else {
        CHECK(mg.rope.scaling == hf.rope.scaling);
      }
      if (!hf.rope.scaling.empty() && hf.rope.scaling != "mrope") CHECK(mg.rope.factor == hf.rope.factor);
      if (hf.rope.scaling == "yarn") {
        CHECK(mg.rope.mscale == hf.rope.mscale);
        CHECK(mg.rope.mscale_all_dim == hf.rope.mscale_all_dim);
        CHECK(mg.rope.original_max_positions == hf.rope.original_max_positions);
        CHECK(mg.rope.beta_fast == hf.rope.beta_fast);
        CHECK(mg.rope.beta_slow == hf.rope.beta_slow);
      }
      if (hf.rope.scaling == "llama3") CHECK(mg.rope.original_max_positions == hf.rope.original_max_positions);
    }
    const AttentionSpec& a = hf.attention;
    CHECK(mg.attention.kind == a.kind);
    CHECK(mg.attention.num_heads == a.num_heads);
    CHECK(mg.attention.num_kv_heads == a.num_kv_heads);
    CHECK(mg.attention.head_dim == a.head_dim);
    CHECK(mg.attention.q_lora_rank == a.q_lora_rank);
    CHECK(mg.attention.kv_lora_rank == a.kv_lora_rank);
    CHECK(mg.attention.qk_rope_head_dim == a.qk_rope_head_dim);
    CHECK(mg.attention.v_head_dim == a.v_head_dim);
    CHECK(mg.attention.qkv_bias == a.qkv_bias);
    CHECK(mg.attention.o_bias == a.o_bias);
    CHECK(mg.attention.qk_norm == a.qk_norm);
    CHECK(mg.attention.sinks == a.sinks);
    if (a.chunked_window) {
      // Llama 4's chunked attention is no sliding window: the launch says so and sets none.
      CHECK(mg.attention.sliding_window == 0);
      CHECK(noted(script, "chunked attention"));
    } else {
      CHECK(mg.attention.sliding_window == a.sliding_window);
    }
    if (hf.num_dense_layers > 0) {
      CHECK(mg.dense_mlp.intermediate_size == hf.dense_mlp.intermediate_size);
      CHECK(mg.dense_mlp.bias == hf.dense_mlp.bias);
    }
    CHECK(mg.dense_mlp.gated == hf.dense_mlp.gated);
    if (hf.moe) CHECK(mg.dense_mlp.squared_relu == !hf.moe->gated_experts);
    CHECK(mg.hybrid_layer_pattern == hf.hybrid_layer_pattern);
    CHECK(mg.single_sublayer_layers() == hf.single_sublayer_layers());
    if (hf.linear_attention && hf.linear_attention->kind == LinearAttentionKind::mamba2) {
      const LinearAttentionSpec& e = *hf.linear_attention;
      REQUIRE(mg.linear_attention.has_value());
      CHECK(mg.linear_attention->num_layers == e.num_layers);
      CHECK(mg.linear_attention->num_value_heads == e.num_value_heads);
      CHECK(mg.linear_attention->value_head_dim == e.value_head_dim);
      CHECK(mg.linear_attention->key_head_dim == e.key_head_dim);
      CHECK(mg.linear_attention->num_key_heads == e.num_key_heads);
      CHECK(script.find("pretrain_hybrid.py") != std::string::npos);
    }
    CHECK(mg.num_mtp_layers == hf.num_mtp_layers);
    CHECK(mg.mtp_layer_pattern == hf.mtp_layer_pattern);
    if (hf.num_mtp_layers > 0) {
      // Without MTP training the launch builds no MTP layer (the memory and time models cost none).
      Strategy plain;
      Workload workload;
      workload.seq_len = 4096;
      const std::string without = emit_megatron(LaunchSpec{hf, "org/" + hf.name, plain, workload,
                                                           Cluster{{NodeGroup{}}}, 0});
      CHECK(without.find("--mtp-num-layers") == std::string::npos);
    }
    REQUIRE(mg.moe.has_value() == hf.moe.has_value());
    if (hf.moe) {
      const MoeSpec& e = *hf.moe;
      CHECK(mg.moe->num_experts == e.num_experts);
      CHECK(mg.moe->experts_per_token == e.experts_per_token);
      CHECK(mg.moe->expert_intermediate_size == e.expert_intermediate_size);
      CHECK(mg.moe->shared_intermediate_size == e.shared_intermediate_size);
      CHECK(mg.moe->shared_expert_gate == e.shared_expert_gate);
      CHECK(mg.moe->score == e.score);
      CHECK(mg.moe->normalize_top_k == e.normalize_top_k);
      CHECK(mg.moe->routed_scaling_factor == e.routed_scaling_factor);
      CHECK(mg.moe->num_groups == e.num_groups);
      CHECK(mg.moe->group_top_k == e.group_top_k);
      CHECK(mg.moe->expert_bias == e.expert_bias);
      CHECK(mg.moe->latent_size == e.latent_size);
      CHECK(mg.moe->layer_is_moe == e.layer_is_moe);
      if (e.router_bias) CHECK(noted(script, "router's bias"));
    }
    if (hf.vision) CHECK(noted(script, "vision tower"));
  }
}

TEST_CASE("emit megatron: rope base, norm epsilon and biases are config.json's own values") {
  // Read straight from the preset's config.json (independent of the model reader): Llama-3.1
  // rope_theta 500000 with llama3 scaling factor 8, rms_norm_eps 1e-5; Qwen2.5 rope_theta 1e6,
  // rms_norm_eps 1e-6 and q/k/v biases (Qwen2Attention).
  for (const char* name : {"llama-3.1-8b", "qwen2.5-7b-instruct"}) {
    CAPTURE(name);
    const nlohmann::json config = nlohmann::json::parse(*find_model_preset_config(name));
    const Flags flags = read_flags(emit_for(preset(name)));
    CHECK(std::stod(flags.at("--rotary-base")) == config["rope_theta"].get<double>());
    CHECK(std::stod(flags.at("--norm-epsilon")) == config["rms_norm_eps"].get<double>());
    CHECK(std::stoll(flags.at("--padded-vocab-size")) == config["vocab_size"].get<std::int64_t>());
    CHECK(has(flags, "--overlap-grad-reduce"));
    CHECK(has(flags, "--overlap-param-gather"));
  }
  const Flags llama = read_flags(emit_for(preset("llama-3.1-8b")));
  CHECK(llama.at("--rotary-base") == "500000");
  CHECK(has(llama, "--use-rope-scaling"));
  CHECK(llama.at("--rope-scaling-factor") == "8");
  CHECK(llama.at("--norm-epsilon") == "1e-05");
  CHECK(!has(llama, "--add-qkv-bias"));
  const Flags qwen = read_flags(emit_for(preset("qwen2.5-7b-instruct")));
  CHECK(qwen.at("--rotary-base") == "1000000");
  CHECK(has(qwen, "--add-qkv-bias"));
  CHECK(has(qwen, "--disable-bias-linear"));
  CHECK(!has(qwen, "--use-rope-scaling"));
}

TEST_CASE("emit megatron: run settings are variables at the top, used by the flags") {
  const std::string script = emit_for(preset("qwen3-8b"));
  for (const char* variable : {"DATA_PATH", "TOKENIZER_MODEL", "CHECKPOINT_DIR", "LR", "MIN_LR", "TRAIN_SAMPLES"}) {
    CAPTURE(variable);
    const std::string assignment = std::string("\n") + variable + "=${" + variable + ":-";
    const std::size_t defined = script.find(assignment);
    CHECK(defined != std::string::npos);
    CHECK(script.find(std::string("\"$") + variable + "\"") > defined);
  }
  CHECK(script.find("TOKENIZER_MODEL=${TOKENIZER_MODEL:-org/qwen3-8b}") != std::string::npos);
}


TEST_CASE("emit megatron: Nemotron 3 Super's latent MoE and its MTP module run at two depths, as its recipes train it") {
  // Megatron-Bridge's Nemotron 3 Super recipes (recipes/nemotronh/h100/nemotron_3_super.py at
  // 067f987df) train the config's one MTP module at mtp_num_layers = 2 with mtp_use_repeated_layer;
  // Megatron-LM writes the depths into the unified pattern ("M*M*/MM/MM": two depths of "MM").
  const ModelSpec model = preset("nvidia-nemotron-3-super-120b-a12b-bf16");
  Strategy strategy;
  strategy.train_mtp = true;
  strategy.mtp_depths = 2;
  Workload workload;
  workload.seq_len = 8192;
  const std::string script =
      emit_megatron(LaunchSpec{model, "org/" + model.name, strategy, workload, Cluster{{NodeGroup{}}}, 0});
  CHECK(script.find("--hybrid-layer-pattern " + model.hybrid_layer_pattern + "/*E/*E") != std::string::npos);
  CHECK(script.find("--mtp-num-layers 2") != std::string::npos);
  CHECK(script.find("--mtp-use-repeated-layer") != std::string::npos);
  CHECK(script.find("--moe-latent-size 1024") != std::string::npos);
  // One depth per module: no repetition flag.
  strategy.mtp_depths = 0;
  const std::string one =
      emit_megatron(LaunchSpec{model, "org/" + model.name, strategy, workload, Cluster{{NodeGroup{}}}, 0});
  CHECK(one.find("--mtp-num-layers 1") != std::string::npos);
  CHECK(one.find("--mtp-use-repeated-layer") == std::string::npos);
  // Its NVFP4 recipe keeps the last 14 layers in bf16 (Megatron-Bridge mixed_precision.py
  // nemotron_3_super_bf16_with_nvfp4_mixed): Megatron-LM's three flags say so.
  strategy.compute_dtype = Dtype::fp4;
  strategy.bf16_last_layers = 14;
  const std::string nvfp4 =
      emit_megatron(LaunchSpec{model, "org/" + model.name, strategy, workload, Cluster{{NodeGroup{}}}, 0});
  CHECK(nvfp4.find("--first-last-layers-bf16") != std::string::npos);
  CHECK(nvfp4.find("--num-layers-at-start-in-bf16 0") != std::string::npos);
  CHECK(nvfp4.find("--num-layers-at-end-in-bf16 14") != std::string::npos);
  CHECK(one.find("--first-last-layers-bf16") == std::string::npos);
}

}  // namespace meshplan
