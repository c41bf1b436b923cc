#include "verl/shell/launch_search.hpp"

#include <array>

namespace meshplan {

std::optional<HeadNodeRead> read_as_head_node(std::string_view text, const std::string& file_name,
                                              const std::map<std::string, std::string>& environment) {
  static constexpr std::array<std::string_view, 7> kRankVariables = {
      "RANK", "NODE_RANK", "SLURM_PROCID", "SLURM_NODEID", "OMPI_COMM_WORLD_RANK", "PET_NODE_RANK", "GROUP_RANK"};
  std::map<std::string, std::string> head = environment;
  std::string assumed;
  for (const std::string_view name : kRankVariables) {
    const std::string variable(name);
    if (environment.count(variable) > 0) return std::nullopt;
    const bool read = text.find("$" + variable) != std::string_view::npos ||
                      text.find("${" + variable) != std::string_view::npos;
    if (!read) continue;
    head[variable] = "0";
    assumed += (assumed.empty() ? "" : ", ") + variable + "=0";
  }
  if (assumed.empty()) return std::nullopt;
  HeadNodeRead result{evaluate_shell_script(text, file_name, head), {}, assumed};
  result.launches = find_launches(result.script);
  if (result.launches.empty()) return std::nullopt;
  return result;
}

namespace {

void shift_lines(ShellArgument& argument, int offset) { argument.location.line += offset; }

void shift_lines(ShellInvocation& call, int offset) {
  call.location.line += offset;
  for (ShellArgument& argument : call.args) shift_lines(argument, offset);
  for (auto& [name, value] : call.environment) shift_lines(value, offset);
}

}  // namespace

std::optional<CommandStringRead> read_command_string(const ShellScript& script, const std::string& file_name,
                                                     const std::map<std::string, std::string>& environment) {
  for (const ShellInvocation& call : script.invocations) {
    for (std::size_t at = 0; at + 2 < call.args.size(); ++at) {
      if ((call.args[at].text != "bash" && call.args[at].text != "sh") || call.args[at + 1].text != "-c") continue;
      const ShellArgument& command = call.args[at + 2];
      std::map<std::string, std::string> exported = environment;
      for (const auto& [name, value] : call.environment) {
        if (!value.unknown) exported[name] = value.text;
      }
      CommandStringRead read{evaluate_shell_script(command.text, file_name, exported), {}, command.location.line};
      const int offset = command.location.line - 1;
      for (ShellInvocation& inner : read.script.invocations) shift_lines(inner, offset);
      for (Finding& finding : read.script.findings) finding.location.line += offset;
      read.launches = find_launches(read.script);
      if (!read.launches.empty()) return read;
    }
  }
  return std::nullopt;
}

Error no_launch_error(const ShellScript& script, const std::string& file_name) {
  // A command whose own name is not known statically may be the launch.
  for (const ShellInvocation& call : script.invocations) {
    if (call.args.empty() || !call.args.front().unknown) continue;
    return Error{file_name, call.location.line, "",
                 "no trainer launch found: the command at this line may be one, but its name is not known "
                 "statically (" + *call.args.front().unknown + "); give the launch line itself to check"};
  }
  // A wrapper that runs another script (`bash "$BASE_SCRIPT" overrides "$@"`): that one holds it.
  for (const ShellInvocation& call : script.invocations) {
    std::size_t at = 0;  // `exec bash X`, `nohup bash X`: the command after the prefix runs the script
    while (at < call.args.size() &&
           (call.args[at].text == "exec" || call.args[at].text == "nohup" || call.args[at].text == "time")) {
      ++at;
    }
    if (at < call.args.size() && (call.args[at].text == "bash" || call.args[at].text == "sh")) ++at;
    if (at >= call.args.size()) continue;
    const ShellArgument& callee = call.args[at];
    const std::string& path = callee.unknown && !callee.partial.empty() ? callee.partial : callee.text;
    if (!path.ends_with(".sh")) continue;
    return Error{file_name, call.location.line, "",
                 "no trainer launch found: this script runs " + path +
                     ", which may hold it; check that script (give the overrides this one passes with --set)"};
  }
  // A loop that never runs (`for N in ; do`) may hold it: say so at the loop.
  for (const Finding& finding : script.findings) {
    if (finding.rule != "shell.empty-loop") continue;
    return Error{file_name, finding.location.line, "",
                 "no trainer launch found that runs: the 'for' loop at this line iterates over an empty word list, "
                 "so bash never runs its body (a launch in it included); give its words, or the launch line itself"};
  }
  return Error{file_name, 0, "",
               "no trainer launch found (expected python3 -m verl.trainer.main_ppo, torchrun, ray job submit, "
               "or a Megatron-LM pretrain_*.py)"};
}

}  // namespace meshplan
