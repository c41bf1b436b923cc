// The real-world corpus: excerpts of failure logs pasted in public issue threads (verl, vLLM,
// SGLang, Megatron-LM, NCCL, PyTorch, Ray, DeepSpeed, OpenRLHF, TRL, NeMo RL, ...), kept to the
// lines the diagnosis needs, each labelled in tests/fixtures/logs/real/index.json with the root
// cause its thread established (a category) and a knob the right fix names. The diagnosis must
// name the category first for at least 90% of them, with a fix naming the knob.
#include <doctest/doctest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "core/text.hpp"
#include "diagnose/signature.hpp"
#include "test_support.hpp"

namespace meshplan {

namespace {

struct Outcome {
  bool category = false;
  bool fix = false;
  std::string got;
};

Outcome diagnose_excerpt(const nlohmann::json& entry) {
  const test::CliRun run =
      test::run({"diagnose", "--json", test::fixture("logs/real/" + entry["file"].get<std::string>()).string()});
  Outcome outcome;
  if (run.exit_code == 2) {
    outcome.got = "exit 2: " + run.err;
    return outcome;
  }
  const auto json = nlohmann::json::parse(run.out);
  if (json["diagnoses"].empty()) {
    outcome.got = "no diagnosis";
    return outcome;
  }
  const auto& root = json["diagnoses"][0];
  outcome.got = root["category"].get<std::string>();
  outcome.category = outcome.got == entry["category"].get<std::string>();
  const std::string knob = to_lower(entry["fix"].get<std::string>());
  for (const auto& fix : root["fixes"]) {
    outcome.fix = outcome.fix || to_lower(fix["text"].get<std::string>()).find(knob) != std::string::npos;
  }
  outcome.fix = outcome.fix || knob.empty();
  return outcome;
}

}  // namespace

TEST_CASE("real corpus: at least 150 excerpts, each with its thread's address and a known category") {
  const auto index = nlohmann::json::parse(test::file_text(test::fixture("logs/real/index.json")));
  CHECK(index.size() >= 150);
  for (const auto& entry : index) {
    CAPTURE(entry["file"].get<std::string>());
    CHECK(entry["url"].get<std::string>().starts_with("https://github.com/"));
    CHECK(find_category(entry["category"].get<std::string>()) != nullptr);
    CHECK(std::filesystem::exists(test::fixture("logs/real/" + entry["file"].get<std::string>())));
  }
}

TEST_CASE("real corpus: the right root cause with a fix naming the right knob for at least 90%") {
  const auto index = nlohmann::json::parse(test::file_text(test::fixture("logs/real/index.json")));
  std::size_t right = 0;
  std::map<std::string, std::pair<int, int>> per_category;  // right, total
  for (const auto& entry : index) {
    const Outcome outcome = diagnose_excerpt(entry);
    auto& [category_right, category_total] = per_category[entry["category"].get<std::string>()];
    ++category_total;
    if (outcome.category && outcome.fix) {
      ++right;
      ++category_right;
    } else {
      MESSAGE(entry["file"].get<std::string>() << ": expected " << entry["category"].get<std::string>() << " with '"
                                                << entry["fix"].get<std::string>() << "', got " << outcome.got
                                                << std::string(outcome.category ? " without that fix" : ""));
    }
  }
  for (const auto& [category, counts] : per_category) {
    MESSAGE(category << ": " << counts.first << "/" << counts.second);
  }
  MESSAGE("real corpus: " << right << "/" << index.size() << " right");
  CHECK(static_cast<double>(right) >= 0.9 * static_cast<double>(index.size()));
}

}  // namespace meshplan
