#pragma once
// Rebuilds launch scripts from ../shared/verl/examples_overrides.jsonl records (shared by the
// examples test and the benchmark), and reads the bundles of verl's scripts kept as fixtures.
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "verl/check.hpp"

namespace meshplan::test {

struct ExampleLaunch {
  std::string source;   ///< path in verl's repository
  std::string script;   ///< the rebuilt script
  CheckOptions options; ///< --config-name for configs that live in the example's own --config-path
};

/// Every verl.trainer.main_ppo record of the file as a script.
std::vector<ExampleLaunch> example_launches(const std::filesystem::path& jsonl);

/// source -> (rule id that must fire, why the launch is really broken).
std::map<std::string, std::pair<std::string, std::string>> broken_example_launches();

/// source -> why the record cannot be turned back into the script it came from.
std::map<std::string, std::string> unrebuildable_example_launches();

/// The scripts of a bundle (tests/fixtures/verl/examples/*.bundle, tools/bundle_verl_examples.py):
/// (path in its repository, text) in the bundle's order.
std::vector<std::pair<std::string, std::string>> bundled_scripts(const std::filesystem::path& bundle);

}  // namespace meshplan::test
