// if / elif conditions decided statically, each against what bash's test builtin returns for it.
#include <doctest/doctest.h>

#include "verl/shell/shell_condition.hpp"

namespace meshplan {
namespace {

std::optional<bool> decide(const std::vector<std::string>& words, ShellVariables variables = {}) {
  std::vector<ShellWord> shell_words;
  for (const std::string& word : words) shell_words.push_back(ShellWord{word, 1});
  return evaluate_condition(shell_words, variables).value;
}

ShellVariables with(const std::string& name, const std::string& value) {
  ShellVariables variables;
  variables[name].values = {value};
  return variables;
}

}  // namespace

TEST_CASE("string and integer tests with known operands are decided as bash's test builtin") {
  const ShellVariables backend = with("B", "vllm");
  CHECK(decide({"[", "\"${B}\"", "=", "trtllm", "]"}, backend) == false);
  CHECK(decide({"[", "\"$B\"", "==", "vllm", "]"}, backend) == true);
  CHECK(decide({"[", "\"$B\"", "!=", "vllm", "]"}, backend) == false);
  CHECK(decide({"test", "$B", "=", "vllm"}, backend) == true);
  CHECK(decide({"[", "-n", "\"$B\"", "]"}, backend) == true);
  CHECK(decide({"[", "-z", "\"$B\"", "]"}, backend) == false);
  CHECK(decide({"[", "\"\"", "]"}) == false);  // a lone empty word fails
  CHECK(decide({"[", "x", "]"}) == true);
  CHECK(decide({"[", "]"}) == false);
  // Integers: bash compares their values (" 08" is 8 in test's -eq; "010" is 10, not octal).
  const ShellVariables pp = with("PP", "2");
  CHECK(decide({"[", "\"${PP}\"", "-gt", "1", "]"}, pp) == true);
  CHECK(decide({"[", "$PP", "-le", "1", "]"}, pp) == false);
  CHECK(decide({"[", "010", "-eq", "10", "]"}) == true);
  CHECK(decide({"[", "-3", "-lt", "-2", "]"}) == true);
  // `!`, -a / -o inside [ ], true / false / :.
  CHECK(decide({"!", "[", "$B", "=", "vllm", "]"}, backend) == false);
  CHECK(decide({"[", "!", "$B", "=", "vllm", "]"}, backend) == false);
  CHECK(decide({"[", "!", "=", "x", "]"}) == false);  // three words, a binary operator in the middle: "!" = "x"
  CHECK(decide({"[", "!", "!", "x", "]"}) == true);
  CHECK(decide({"[", "$B", "=", "x", "-o", "$B", "=", "vllm", "]"}, backend) == true);
  CHECK(decide({"[", "$B", "=", "vllm", "-a", "1", "-eq", "2", "]"}, backend) == false);
  CHECK(decide({"true"}) == true);
  CHECK(decide({":"}) == true);
  CHECK(decide({"false"}) == false);
  CHECK(decide({"!", "false"}) == true);
}

TEST_CASE("in [[ ]] an unquoted right side is a glob pattern, a quoted one literal") {
  const ShellVariables model = with("M", "Qwen3-30B-A3B");
  CHECK(decide({"[[", "$M", "==", "Qwen3*", "]]"}, model) == true);
  CHECK(decide({"[[", "$M", "==", "\"Qwen3*\"", "]]"}, model) == false);
  CHECK(decide({"[[", "$M", "!=", "*A3B", "]]"}, model) == false);
  // In [ ] the same word is compared literally.
  CHECK(decide({"[", "\"$M\"", "=", "Qwen3*", "]"}, model) == false);
}

TEST_CASE("a condition with an unknown operand, a file test, a command or a broken test is not decided") {
  CHECK_FALSE(decide({"[", "\"$UNSET\"", "=", "1", "]"}).has_value());  // from the environment
  CHECK_FALSE(decide({"[", "-f", "/etc/passwd", "]"}).has_value());
  CHECK_FALSE(decide({"[", "-d", "\"$HOME\"", "]"}).has_value());
  CHECK_FALSE(decide({"command", "-v", "nvidia-smi"}).has_value());
  CHECK_FALSE(decide({"[", "abc", "-eq", "1", "]"}).has_value());  // bash: integer expression expected
  CHECK_FALSE(decide({"[", "a", "=", "a"}).has_value());           // no closing ]
  CHECK_FALSE(decide({"[[", "$M", "=~", "^Q", "]]"}, with("M", "Q")).has_value());
  // Unquoted in [ ], an empty value vanishes and changes the test bash sees.
  CHECK_FALSE(decide({"[", "$E", "=", "x", "]"}, with("E", "")).has_value());
  CHECK_FALSE(decide({"[", "$S", "=", "x", "]"}, with("S", "a b")).has_value());
}

}  // namespace meshplan
