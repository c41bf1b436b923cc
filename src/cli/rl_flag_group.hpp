#pragma once
// The flags that describe an RL step (verl): one option group, shown under its own heading in
// --help, and refused by a command whose workload is not RL instead of being silently ignored.
#include <cstddef>
#include <string>

namespace CLI {
class App;
}

namespace meshplan {

inline constexpr const char* kRlFlagGroup = "RL (verl: rollout, batches, lengths)";

/// Puts every option `command` registered from index `first` on into the RL group.
void group_rl_flags_from(CLI::App& command, std::size_t first);

/// The number of options `command` has registered (the `first` of group_rl_flags_from).
std::size_t registered_options(const CLI::App& command);

/// The name of the first RL flag given on `command` ("" when none).
std::string first_rl_flag_given(const CLI::App& command);

}  // namespace meshplan
