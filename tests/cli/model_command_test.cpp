// `meshplan model`: output, JSON fields and every bad input (exit 2, message naming file and key).
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace meshplan {

namespace {

/// A scratch directory of this test process (ctest runs test cases as parallel processes, and
/// other checkouts may run the same tests), removed when the process exits.
struct ScratchDir {
  std::filesystem::path path = std::filesystem::temp_directory_path() /
                               ("meshplan_model_command_test_" + std::to_string(getpid()));
  ScratchDir() {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

std::filesystem::path scratch_dir() {
  static const ScratchDir dir;
  return dir.path;
}

std::string write_config(const std::string& name, const std::string& text) {
  const std::filesystem::path path = scratch_dir() / name;
  std::ofstream(path) << text;
  return path.string();
}

void check_bad_input(const test::CliRun& run, const std::string& file, const std::string& key) {
  CHECK(run.exit_code == 2);
  CHECK(run.out.empty());
  CHECK_MESSAGE(run.err.find(file) != std::string::npos, run.err);
  CHECK_MESSAGE(run.err.find(key) != std::string::npos, run.err);
}

}  // namespace

TEST_CASE("meshplan model PRESET prints the table") {
  const test::CliRun run = test::run({"model", "qwen2.5-7b-instruct"});
  CHECK(run.exit_code == 0);
  CHECK(run.out.find("7.62 B (7615616512)") != std::string::npos);
  CHECK(run.out.find("57344 bytes/token") != std::string::npos);
  CHECK(run.out.find("routed_experts") == std::string::npos);  // dense: no MoE rows
}

TEST_CASE("meshplan model: sliding-window layers' KV is capped at the window, as the rollout budget counts it") {
  // Gemma-3-1B: 26 layers, 1 kv head of 256; layers 5, 11, 17, 23 global, 22 slide over 512 tokens.
  // Full layers 2 x 4 x 1 x 256 x 2 B = 4096 B/token; sliding 2 x 22 x 256 x 2 = 22,528 B/token for
  // at most 512 tokens = 11,534,336 B per sequence (where all 26 at full length grow 26,624 B/token).
  const test::CliRun run = test::run({"model", "gemma-3-1b-it"});
  CHECK(run.exit_code == 0);
  CHECK_MESSAGE(run.out.find("4096 bytes/token (4.0 KiB) in bf16 = 2 x 4 full-attention layers x 1 kv heads") !=
                    std::string::npos,
                run.out);
  CHECK(run.out.find("+ 22528 bytes/token on 22 sliding-window layers, kept for the last 512 tokens only: at most "
                     "11534336 bytes/sequence") != std::string::npos);
}

TEST_CASE("meshplan model --json has the documented fields") {
  const test::CliRun run = test::run({"model", "Qwen/Qwen3-30B-A3B", "--json", "--seq-len", "8192"});
  REQUIRE(run.exit_code == 0);
  const nlohmann::json doc = nlohmann::json::parse(run.out);
  CHECK(doc["name"] == "qwen3-30b-a3b");
  CHECK(doc["model_type"] == "qwen3_moe");
  CHECK(doc["total_params"] == 30532122624);
  CHECK(doc["active_params"] == 3353032704);
  CHECK(doc["embedding_params"] == 151936LL * 2048);
  CHECK(doc["lm_head_params"] == 151936LL * 2048);
  CHECK(doc["vision_params"] == 0);
  CHECK(doc["mtp_params"] == 0);
  CHECK(doc["layers"] == 48);
  CHECK(doc["hidden_size"] == 2048);
  CHECK(doc["num_attention_heads"] == 32);
  CHECK(doc["num_key_value_heads"] == 4);
  CHECK(doc["head_dim"] == 128);
  CHECK(doc["vocab_size"] == 151936);
  CHECK(doc["moe"]["experts"] == 128);
  CHECK(doc["moe"]["experts_per_token"] == 8);
  CHECK(doc["moe"]["expert_params"] == 3 * 2048 * 768);
  CHECK(doc["moe"]["moe_layers"] == 48);
  CHECK(doc["moe"]["shared_experts"] == 0);
  CHECK(doc["kv_cache_bytes_per_token"] == 2 * 48 * 4 * 128 * 2);
  CHECK(doc["seq_len"] == 8192);
  CHECK(doc["train_flops_per_token"].get<double>() > 6.0 * 3353032704.0 * 0.5);
  std::int64_t sum = 0;
  for (const auto& [component, params] : doc["breakdown"].items()) {
    if (component != "mtp") sum += params.get<std::int64_t>();
  }
  CHECK(sum == 30532122624);
}

TEST_CASE("meshplan model --json: tied head is 0, dense model has moe null, MTP reported apart") {
  const nlohmann::json tied = nlohmann::json::parse(test::run({"model", "qwen2.5-0.5b", "--json"}).out);
  CHECK(tied["lm_head_params"] == 0);
  CHECK(tied["moe"].is_null());
  const nlohmann::json v3 = nlohmann::json::parse(test::run({"model", "deepseek-v3", "--json"}).out);
  CHECK(v3["mtp_params"] == 11610068224);
  CHECK(v3["total_params"] == 671026419200);
  CHECK(v3["moe"]["shared_experts"] == 1);
}

TEST_CASE("meshplan model reads a config.json path and a directory holding one") {
  const std::string text = R"({"model_type": "llama", "hidden_size": 8, "num_hidden_layers": 2,
    "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 16, "vocab_size": 10})";
  const std::string file = write_config("tiny.json", text);
  CHECK(test::run({"model", file}).out.find("(1352)") != std::string::npos);  // config_reader_test
  std::filesystem::create_directories(scratch_dir() / "checkpoint");
  write_config("checkpoint/config.json", text);
  const test::CliRun run = test::run({"model", (scratch_dir() / "checkpoint").string(), "--json"});
  CHECK(run.exit_code == 0);
  CHECK(nlohmann::json::parse(run.out)["total_params"] == 1352);
}

TEST_CASE("meshplan model: a model whose every layer slides shows only the window-capped KV row") {
  // Mistral-7B-v0.1's shapes: sliding_window 4096 on all 32 layers, 8 kv heads of 128:
  // 2 x 32 x 8 x 128 x 2 B = 131,072 B/token for at most 4096 tokens = 512 MiB per sequence.
  const std::string file = write_config("mistral.json", R"({"model_type": "mistral", "hidden_size": 4096,
    "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8,
    "vocab_size": 32000, "sliding_window": 4096})");
  const test::CliRun run = test::run({"model", file});
  CHECK(run.exit_code == 0);
  CHECK_MESSAGE(run.out.find("KV cache      131072 bytes/token on 32 sliding-window layers, kept for the last 4096 "
                             "tokens only: at most 536870912 bytes/sequence (512.00 MiB)") != std::string::npos,
                run.out);
  CHECK(run.out.find("full-attention layers") == std::string::npos);
}

TEST_CASE("meshplan model --list shows every preset") {
  const test::CliRun run = test::run({"model", "--list"});
  CHECK(run.exit_code == 0);
  CHECK(run.out.find("deepseek-v3") != std::string::npos);
  CHECK(run.out.find("671.03 B") != std::string::npos);
}

TEST_CASE("meshplan model: bad input exits 2 with the file and the key") {
  SUBCASE("malformed JSON") {
    const std::string file = write_config("malformed.json", "{\n  \"model_type\": \"llama\"\n  \"hidden_size\": 8\n}");
    check_bad_input(test::run({"model", file}), file + ":3", "malformed JSON");
  }
  SUBCASE("truncated JSON") {
    const std::string file = write_config("truncated.json", "{\n  \"model_type\": \"llama\",\n  \"hidden_size\": 8,");
    check_bad_input(test::run({"model", file}), file + ":3", "truncated");
  }
  SUBCASE("wrong type") {
    const std::string file = write_config("wrong_type.json", "{\"model_type\": \"llama\",\n\"hidden_size\": true}");
    check_bad_input(test::run({"model", file}), file + ":2", "hidden_size");
  }
  SUBCASE("absurd size") {
    const std::string file = write_config("absurd.json", "{\"model_type\": \"qwen2\",\n\"hidden_size\": 1e30}");
    check_bad_input(test::run({"model", file}), file + ":2", "hidden_size");
  }
  SUBCASE("kv heads above heads") {
    const std::string file = write_config("kv.json", R"({"model_type": "llama", "hidden_size": 8,
      "num_hidden_layers": 2, "intermediate_size": 16, "vocab_size": 10, "num_attention_heads": 4,
      "num_key_value_heads": 8})");
    check_bad_input(test::run({"model", file}), file + ":3", "num_key_value_heads");
  }
  SUBCASE("heads not dividing hidden") {
    const std::string file = write_config("heads.json", R"({"model_type": "qwen2", "hidden_size": 10,
      "num_hidden_layers": 2, "intermediate_size": 16, "vocab_size": 10, "num_attention_heads": 4})");
    check_bad_input(test::run({"model", file}), file + ":2", "num_attention_heads");
  }
  SUBCASE("unknown architecture") {
    const std::string file = write_config("arch.json", R"({"model_type": "rwkv", "hidden_size": 8})");
    const test::CliRun run = test::run({"model", file});
    check_bad_input(run, file + ":1", "model_type");
    CHECK(run.err.find("rwkv") != std::string::npos);
    CHECK(run.err.find("qwen3_moe") != std::string::npos);
  }
  SUBCASE("missing file") {
    const std::string file = (scratch_dir() / "nope" / "config.json").string();
    check_bad_input(test::run({"model", file}), file, "MODEL");
  }
  SUBCASE("directory without config.json") {
    std::filesystem::create_directories(scratch_dir() / "empty");
    const std::string dir = (scratch_dir() / "empty").string();
    const test::CliRun run = test::run({"model", dir});
    check_bad_input(run, dir, "config.json");
  }
  SUBCASE("unknown preset suggests the nearest one and a path") {
    const test::CliRun run = test::run({"model", "qwen3-8c"});
    check_bad_input(run, "qwen3-8c", "MODEL");
    CHECK(run.err.find("did you mean \"qwen3-8b\"") != std::string::npos);
    CHECK(run.err.find("config.json") != std::string::npos);
  }
  SUBCASE("no MODEL and a bad --seq-len") {
    CHECK(test::run({"model"}).exit_code == 2);
    check_bad_input(test::run({"model", "qwen3-8b", "--seq-len", "0"}), "", "--seq-len");
    CHECK(test::run({"model", "qwen3-8b", "--seq-len", "abc"}).exit_code == 2);
  }
}

}  // namespace meshplan
