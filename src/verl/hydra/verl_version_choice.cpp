#include "verl/hydra/verl_version_choice.hpp"

namespace meshplan {
namespace {

Finding version_info(const SourceLocation& where, std::string message) {
  Finding finding;
  finding.severity = Severity::info;
  finding.rule = "verl.version";
  finding.message = std::move(message);
  finding.location = where;
  return finding;
}

}  // namespace

Result<VerlVersionChoice> choose_verl_version(const std::vector<InputText>& inputs, const VerlReadOptions& options,
                                              const SourceLocation& where) {
  VerlVersionChoice choice;
  for (const InputText& input : inputs) {
    if (is_yaml_input(input)) continue;
    if (auto vllm = package_version_pin(input.text, "vllm")) {
      choice.vllm_pin = std::move(vllm);
      choice.vllm_pin_file = input.file_name;
    }
  }
  if (options.verl_version) {
    const auto found = find_verl_version(*options.verl_version);
    const std::string next_to =
        options.verl_found_at.empty() ? "" : " (found next to the script in " + options.verl_found_at + ")";
    if (!found && !options.config_texts.empty() && predates_embedded_verl(*options.verl_version)) {
      // verl/version/version of a --verl-path older than what is embedded (research forks of
      // verl 0.1-0.3): its config tree is read, its Python side is not known.
      choice.version = embedded_verl_versions().front();
      choice.older_verl = *options.verl_version;
      choice.findings.push_back(version_info(
          where, "verl " + choice.older_verl + next_to + " is older than every embedded version (" +
                     embedded_verl_range() + "): its own config tree is composed; the start-up rules are those of verl " +
                     choice.version.id + " and what they find is a warning, since verl " + choice.older_verl +
                     " may not check it"));
    } else if (!found) {
      const bool older = predates_embedded_verl(*options.verl_version);
      return Error{"", 0, "--verl-version",
                   "no embedded verl version matches '" + *options.verl_version + "' (embedded: " +
                       embedded_verl_range() + ")" +
                       (older ? "; an older verl is checked with its own config tree: give --verl-path <its checkout>"
                              : "")};
    }
    if (found) choice.version = *found;
    if (found && !next_to.empty()) {
      choice.findings.push_back(version_info(where, "checked against verl " + choice.version.id + next_to +
                                                        "; --verl-version X or --verl-path DIR checks another"));
    }
    return choice;
  }
  for (const InputText& input : inputs) {
    if (is_yaml_input(input)) continue;
    const auto pin = verl_version_pin(input.text);
    if (!pin) continue;
    const auto found = find_verl_version(pin->version);
    if (!found) continue;
    choice.version = *found;
    choice.findings.push_back(version_info(SourceLocation{input.file_name, pin->line},
                                           "checked against verl " + found->id + " (" + found->date +
                                               "): the script installs verl==" + pin->version +
                                               "; --verl-version X checks another"));
    return choice;
  }
  choice.version = newest_verl_version();
  choice.assumed = true;
  const std::string why = options.config_texts_from_verl
                              ? "the verl checkout's config tree is read, but it has no version file"
                              : "the launch names no version";
  choice.findings.push_back(version_info(
      where, "checked against verl " + choice.version.id + " (" + choice.version.date + "), the newest embedded; " +
                 why + ": give --verl-version X (" + embedded_verl_range() + ") or --verl-path <verl checkout>"));
  return choice;
}

}  // namespace meshplan
