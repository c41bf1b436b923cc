// Identical input gives byte-identical output: every command, every output form (text, JSON,
// HTML, emitted launches), run twice. The one field that varies is the wall time of `plan`
// ("in N ms" in the text and HTML, `elapsed_ms` in the JSON; docs/json.md): it is masked first.
#include <doctest/doctest.h>

#include <filesystem>
#include <cctype>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace meshplan {
namespace {

// `text` with the number after each `marker` replaced by "<ms>".
std::string mask_after(std::string text, const std::string& marker) {
  for (std::size_t at = text.find(marker); at != std::string::npos; at = text.find(marker, at + 1)) {
    const std::size_t start = at + marker.size();
    std::size_t end = start;
    while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.' ||
                                 text[end] == 'e' || text[end] == '-' || text[end] == '+')) {
      ++end;
    }
    text.replace(start, end - start, "<ms>");
  }
  return text;
}

// The wall time of plan: "searched N candidates in T ms" (text, HTML) and "elapsed_ms": T (JSON).
std::string without_timing(const std::string& text) {
  return mask_after(mask_after(mask_after(text, "candidates in "), "\"elapsed_ms\": "), "\"elapsed_ms\":");
}

const std::vector<std::string> kPlan = {"plan", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xA100-80GB",
                                        "--global-batch", "64", "--seq-len", "2048"};

std::vector<std::string> plus(std::vector<std::string> args, const std::vector<std::string>& extra) {
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

}  // namespace

TEST_CASE("every command prints byte-identical output when run twice") {
  const std::string broken = test::fixture("verl/broken_grpo.sh").string();
  const std::string log = test::fixture("logs/oom_training_update_actor_rank3.log").string();
  const std::vector<std::vector<std::string>> commands = {
      kPlan,
      plus(kPlan, {"--json"}),
      {"plan", "--model", "qwen2.5-0.5b", "--cluster", "1x8xA100-80GB", "--workload", "rl", "--global-batch", "64",
       "--mini-batch", "16", "--rollout-n", "4", "--prompt-len", "512", "--response-len", "512", "--emit", "verl"},
      plus(kPlan, {"--emit", "megatron"}),
      plus(kPlan, {"--emit", "env"}),
      plus(kPlan, {"--emit", "slurm"}),
      {"estimate", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xA100-80GB", "--explain"},
      {"estimate", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xA100-80GB", "--json", "--explain"},
      {"check", broken},
      {"check", broken, "--json"},
      {"diagnose", log},
      {"diagnose", log, "--json"},
      {"model", "qwen2.5-7b-instruct"},
      {"model", "qwen2.5-7b-instruct", "--json"},
      {"gpus"},
      {"gpus", "--json"},
      {"gpus", "--json", "--cluster", test::fixture("cluster/hetero.json").string()},
      {"calibrate", "--nccl", test::fixture("nccl/a100_8gpu_all_reduce_perf.txt").string(), "--gpu", "A100-80GB"},
  };
  for (const auto& args : commands) {
    std::string line;
    for (const auto& a : args) line += a + " ";
    CAPTURE(line);
    const test::CliRun first = test::run(args);
    const test::CliRun second = test::run(args);
    CHECK(first.exit_code == second.exit_code);
    CHECK(first.exit_code != 2);  // the command ran (a usage error would compare two equal messages)
    CHECK(without_timing(first.out) == without_timing(second.out));
    CHECK(first.err == second.err);
    CHECK(!first.out.empty());
  }
}

TEST_CASE("the HTML report is byte-identical across runs, but for the wall time") {
  const auto dir = std::filesystem::temp_directory_path();
  const std::string a = (dir / "meshplan_det_a.html").string();
  const std::string b = (dir / "meshplan_det_b.html").string();
  REQUIRE(test::run(plus(kPlan, {"--html", a})).exit_code == 0);
  REQUIRE(test::run(plus(kPlan, {"--html", b})).exit_code == 0);
  const std::string first = test::file_text(a);
  CHECK(first.size() > 1000);
  CHECK(without_timing(first) == without_timing(test::file_text(b)));
}

}  // namespace meshplan
