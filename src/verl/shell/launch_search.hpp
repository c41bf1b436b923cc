#pragma once
// Where a script's launch is when the path bash takes with the given environment holds none: the
// head node's branch of a multi-node script, or another script a wrapper runs (then the error says
// which), never a guess.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "verl/shell/launch.hpp"

namespace meshplan {

/// The script read as a multi-node job's head node: every launcher rank variable it names (RANK,
/// NODE_RANK, SLURM_PROCID, ...) set to 0, when `environment` gives none of them and a launch is
/// found that way (065536/Asycn_verl: `if [ "${NODE_RANK:-}" = "0" ] || [ "${RANK:-}" = "0" ]`).
struct HeadNodeRead {
  ShellScript script;
  std::vector<Launch> launches;
  std::string assumed;  ///< "RANK=0, NODE_RANK=0"
};
std::optional<HeadNodeRead> read_as_head_node(std::string_view text, const std::string& file_name,
                                              const std::map<std::string, std::string>& environment);

/// The launch inside the string of a `bash -c "..."` / `sh -c "..."` command (verl-megatron's
/// `ray job submit ... -- bash -c "cd ... && python3 -m verl.trainer.main_ppo ..."`): the string,
/// which the script's shell has already expanded, read as a script with the command's exported
/// variables, its lines counted from the string's line.
struct CommandStringRead {
  ShellScript script;
  std::vector<Launch> launches;
  int line = 0;  ///< where the string starts
};
std::optional<CommandStringRead> read_command_string(const ShellScript& script, const std::string& file_name,
                                                     const std::map<std::string, std::string>& environment);

/// Why `script` (of `file_name`) holds no launch: a command whose name is not known statically may
/// be one; a wrapper runs another script (`bash X`, `exec bash X`, `nohup bash X`) that may hold it;
/// else none is there.
Error no_launch_error(const ShellScript& script, const std::string& file_name);

}  // namespace meshplan
