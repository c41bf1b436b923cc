// The meshplan executable: everything lives in the library; this only hands over argv.
#include <unistd.h>

#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli/cli.hpp"

int main(int argc, char** argv) {
  try {
    std::vector<std::string> args(argv + 1, argv + argc);
    return meshplan::run_cli(args, std::cout, std::cerr, isatty(STDOUT_FILENO) == 1);
  } catch (const std::exception& e) {
    std::cerr << "meshplan: internal error: " << e.what() << "\n";
    return 70;  // EX_SOFTWARE: a bug, never bad input
  }
}
