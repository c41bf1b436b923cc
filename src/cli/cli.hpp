#pragma once
// The command line: the only layer that prints, reads files for the core, or picks exit codes.
#include <iosfwd>
#include <string>
#include <vector>

namespace meshplan {

/// Exit codes everywhere (PRODUCT.md): 0 ok, 1 the answer is "no", 2 bad input.
inline constexpr int kExitOk = 0;
inline constexpr int kExitNo = 1;
inline constexpr int kExitBadInput = 2;

/// Runs `meshplan ARGS...` (args excludes the program name), writing to `out` and `err`.
/// `terminal` says whether `out` is a TTY (colour and progress only then).
int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, bool terminal = false);

}  // namespace meshplan
