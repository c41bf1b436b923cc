// One JSON contract (docs/json.md): every command's --json output carries the schema_version its
// section in docs/json.md names, and every top-level field it prints is documented there.
#include <doctest/doctest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace meshplan {
namespace {

struct DocSection {
  int schema_version = 0;
  std::set<std::string> fields;  ///< the backticked names in the first column of its first table
};

// "## `meshplan NAME --json` (schema_version N)" sections of docs/json.md.
std::map<std::string, DocSection> documented_sections() {
  std::map<std::string, DocSection> sections;
  std::istringstream in(test::file_text(test::source_dir() / "docs" / "json.md"));
  const std::string heading = "## `meshplan ", version = "--json` (schema_version ";
  std::string line, current;
  bool in_table = false, table_done = false;
  while (std::getline(in, line)) {
    const std::size_t version_at = line.find(version);
    if (line.rfind(heading, 0) == 0 && version_at != std::string::npos) {
      current = line.substr(heading.size(), line.find(' ', heading.size()) - heading.size());
      sections[current].schema_version = std::stoi(line.substr(version_at + version.size()));
      in_table = table_done = false;
    } else if (line.rfind("## ", 0) == 0) {
      current.clear();
    } else if (!current.empty() && !table_done && line.rfind("| ", 0) == 0) {
      in_table = true;
      // Every `name` in the first cell.
      const std::string first_cell = line.substr(2, line.find(" |", 2) - 2);
      for (std::size_t open = first_cell.find('`'); open != std::string::npos; open = first_cell.find('`', open + 1)) {
        const std::size_t close = first_cell.find('`', open + 1);
        if (close == std::string::npos) break;
        sections[current].fields.insert(first_cell.substr(open + 1, close - open - 1));
        open = close;
      }
    } else if (in_table) {
      table_done = true;
      in_table = false;
    }
  }
  return sections;
}

void check_against(const std::string& command, const std::vector<std::string>& args,
                   const std::map<std::string, DocSection>& sections) {
  std::string line;
  for (const auto& a : args) line += a + " ";
  CAPTURE(line);
  const test::CliRun run = test::run(args);
  REQUIRE(run.exit_code != 2);
  const nlohmann::json json = nlohmann::json::parse(run.out);
  REQUIRE(json.is_object());
  REQUIRE_MESSAGE(sections.count(command) == 1, "docs/json.md has no section for " << command);
  const DocSection& doc = sections.at(command);
  REQUIRE(json.contains("schema_version"));
  CHECK(json["schema_version"] == doc.schema_version);
  for (const auto& [key, value] : json.items()) CHECK_MESSAGE(doc.fields.count(key) == 1, key << " is not in docs/json.md");
}

}  // namespace

TEST_CASE("every --json output carries the schema_version and the fields docs/json.md documents") {
  const auto sections = documented_sections();
  CHECK(sections.size() >= 5);
  check_against("plan",
                {"plan", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xA100-80GB", "--global-batch", "64",
                 "--seq-len", "2048", "--json"},
                sections);
  // Nothing fits: closest_miss and remedies appear.
  check_against("plan", {"plan", "--model", "llama-3.1-70b", "--cluster", "1x1xA100-40GB", "--json"}, sections);
  check_against("estimate", {"estimate", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xA100-80GB", "--json"},
                sections);
  check_against("estimate",
                {"estimate", "--model", "qwen2.5-7b-instruct", "--cluster", "1x8xA100-80GB", "--json", "--explain"},
                sections);
  check_against("check", {"check", test::fixture("verl/broken_grpo.sh").string(), "--json"}, sections);
  check_against("model", {"model", "qwen2.5-7b-instruct", "--json"}, sections);
  check_against("model", {"model", "deepseek-v3", "--json"}, sections);
  check_against("gpus", {"gpus", "--json"}, sections);
  check_against("gpus", {"gpus", "--json", "--cluster", test::fixture("cluster/hetero.json").string()}, sections);
}

TEST_CASE("every command with --json is covered by the contract test") {
  // diagnose --json gains its schema_version and its section in the diagnose work of issue 16.
  const std::set<std::string> covered = {"plan", "estimate", "check", "model", "gpus", "diagnose"};
  for (const char* command : {"plan", "estimate", "check", "diagnose", "model", "gpus", "calibrate"}) {
    CAPTURE(command);
    const test::CliRun help = test::run({command, "--help"});
    if (help.out.find("--json") != std::string::npos) CHECK(covered.count(command) == 1);
  }
}

}  // namespace meshplan
