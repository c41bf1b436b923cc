// The static shell parser, one construct at a time, checked against what bash does with it.
#include <doctest/doctest.h>

#include <algorithm>

#include "verl/shell/launch.hpp"
#include "verl/shell/shell_lexer.hpp"
#include "verl/shell/shell_script.hpp"

namespace meshplan {
namespace {

ShellScript run_script(const std::string& text, const std::map<std::string, std::string>& env = {}) {
  return evaluate_shell_script(text, "run.sh", env);
}

// The expanded arguments of the last invocation.
std::vector<std::string> last_args(const ShellScript& script) {
  std::vector<std::string> out;
  if (script.invocations.empty()) return out;
  for (const ShellArgument& arg : script.invocations.back().args) out.push_back(arg.text);
  return out;
}

bool has_rule(const std::vector<Finding>& findings, const std::string& rule) {
  for (const Finding& f : findings) {
    if (f.rule == rule) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("comments, quotes and continuations") {
  const ShellScript s = run_script(
      "# a comment\n"
      "echo 'single $X' \"double\" a\\ b \\\n"
      "   tail # trailing comment\n");
  CHECK(last_args(s) == std::vector<std::string>{"echo", "single $X", "double", "a b", "tail"});
  CHECK(s.invocations.back().args.back().location.line == 3);
  CHECK(s.findings.empty());
}

TEST_CASE("assignments, export, defaults and := assignment") {
  const ShellScript s = run_script(
      "A=1\nexport B=two\nC=${UNSET:-fallback}\nD=${A:-x}\nE=${NEW:=made}\n"
      "python3 x.py $A $B $C $D $E $NEW\n");
  CHECK(last_args(s) == std::vector<std::string>{"python3", "x.py", "1", "two", "fallback", "1", "made", "made"});
  CHECK(s.invocations.back().environment.count("B") == 1);
  CHECK(s.invocations.back().environment.count("A") == 0);
}

TEST_CASE("the word of ${X:-word} inside double quotes keeps its single quotes, as bash 5.2 and dash do") {
  // Stellaris167/LZE: TRAIN_FILES="${TRAIN_FILES:-['https://...?split=train']}" gives Hydra a list of
  // one quoted string (bash prints ['a'] for "${T:-['a']}"); unquoted, ${Z:-'q r'} is q r.
  const ShellScript s = run_script(
      "T=\"${T:-['https://hf.co/d?split=train&x=1']}\"\nY=${Z:-'q r'}\npython3 x.py a=\"$T\" b=\"$Y\"\n");
  REQUIRE(s.invocations.size() == 1);
  CHECK(last_args(s) == std::vector<std::string>{"python3", "x.py", "a=['https://hf.co/d?split=train&x=1']", "b=q r"});
}

TEST_CASE("positional parameters: unset when checking, so ${1:-x} takes its default and $@ is empty") {
  const ShellScript s = run_script("ENGINE=${1:-vllm}\npython3 x.py engine=$ENGINE \"$@\" $@\n");
  CHECK(last_args(s) == std::vector<std::string>{"python3", "x.py", "engine=vllm"});
  CHECK(s.invocations.back().uses_script_arguments);
  // ${@:2} is the arguments from the second on: the same, none assumed.
  const ShellScript from = run_script("python3 x.py a=1 \"${@:1}\" ${@:2}\n");
  CHECK(last_args(from) == std::vector<std::string>{"python3", "x.py", "a=1"});
  CHECK(from.invocations.back().uses_script_arguments);
}

TEST_CASE("a bare positional parameter is the script's argument: not known, never the empty string") {
  // `bash run.sh 8` gives n=8; the check does not know the arguments, so the override is unknown
  // (reason named), while ${1:-4} still takes its default.
  const ShellScript s = run_script("N=$2\npython3 x.py n=$N m=${10} k=${1:-4}\n");
  const auto& args = s.invocations.back().args;
  REQUIRE(args.size() == 5);
  CHECK(args[2].unknown.has_value());
  CHECK(args[2].unknown.value_or("").find("$2 is an argument of the script") != std::string::npos);
  CHECK(args[3].unknown.has_value());
  CHECK(args[4].text == "k=4");
  CHECK_FALSE(args[4].unknown.has_value());
}

TEST_CASE("the ')' of a case pattern is not a subshell: an argument parser's case block is read, LR unknown after it") {
  // An argument parser in a while loop (`--lr) LR="$2"; shift 2;;`): one note for the loop (its
  // body is read once), one for the case block inside it (its word $1 is not known: every branch
  // is read), none per pattern; LR is "$2" in one branch and 1 in the other: unknown after it,
  // the launch still found.
  const ShellScript s = run_script("LR=1\nwhile [[ $# -gt 0 ]]; do\n  case \"$1\" in\n    --lr) LR=\"$2\"; shift 2;;\n"
                                   "    *) break;;\n  esac\ndone\npython3 x.py lr=$LR\n");
  int unsupported = 0;
  for (const Finding& f : s.findings) unsupported += f.rule == "shell.unsupported" ? 1 : 0;
  CHECK(unsupported == 2);
  CHECK(s.findings.at(0).message.find("'while' loop: its body is read once") != std::string::npos);
  CHECK(s.findings.at(1).message.find("'case' block: its word is not known statically") != std::string::npos);
  REQUIRE(s.invocations.back().args.size() == 3);
  CHECK(s.invocations.back().args[2].unknown.has_value());
}

TEST_CASE("a for loop over an empty word list never runs its body: its launch is not read, its variables unchanged") {
  // giorgossideris/verl bash/20260203_rollout_sweep.sh: the sweep written out with its list already
  // expanded to nothing (`for N in ; do`). bash runs the body zero times and leaves N unassigned.
  const ShellScript empty = run_script("N=4\nfor N in ; do\n  python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.n=$N\n"
                                       "done\npython3 x.py $N\n");
  REQUIRE(empty.invocations.size() == 1);
  CHECK(last_args(empty) == std::vector<std::string>{"python3", "x.py", "4"});
  REQUIRE(has_rule(empty.findings, "shell.empty-loop"));
  CHECK(empty.findings.front().severity == Severity::warning);
  CHECK(empty.findings.front().location.line == 2);
  // A list of unquoted expansions of empty variables is empty too; nested blocks inside are skipped.
  const ShellScript expanded = run_script("LIST=\nfor N in $LIST ${LIST}; do\n  if true; then python3 a.py; fi\ndone\n");
  CHECK(expanded.invocations.empty());
  CHECK(has_rule(expanded.findings, "shell.empty-loop"));
  // A quoted empty word is one (empty) field, and a list from the environment is not known: both
  // bodies are read once, as any loop's.
  // Artessay/Amo scripts/trainers/_common/launch.sh: an array of the script's own arguments, which
  // check reads without any, is not known to be empty; nor is "$@" or $1.
  for (const char* script : {"for N in \"\"; do python3 a.py; done\n", "for N in $SWEEP; do python3 a.py; done\n",
                             "for N; do python3 a.py; done\n", "A=(\"$@\")\nfor x in \"${A[@]}\"; do python3 a.py; done\n",
                             "for x in \"$@\"; do python3 a.py; done\n", "for x in ${1}; do python3 a.py; done\n"}) {
    const ShellScript read = run_script(script);
    CHECK_MESSAGE(read.invocations.size() == 1, script);
    CHECK_MESSAGE(!has_rule(read.findings, "shell.empty-loop"), script);
  }
}

TEST_CASE("a case block whose word is known runs the first branch whose pattern matches, as bash does") {
  // verl 1dda039b examples/dppo_trainer/run_qwen3_30b_a3b_megatron.sh: LOSS_MODE defaults to
  // dppo_tv, so CLIP_DEFAULT is 0.15 (bash: the dppo_tv) branch; the *) branch exits).
  const std::string dppo =
      "LOSS_MODE=${LOSS_MODE:-dppo_tv}\ncase $LOSS_MODE in\n    dppo_tv)  CLIP_DEFAULT=0.15 ;;\n"
      "    dppo_kl)  CLIP_DEFAULT=0.05 ;;\n    vanilla)  CLIP_DEFAULT=0.20 ;;\n"
      "    *) echo \"Unknown LOSS_MODE: $LOSS_MODE\"; exit 1 ;;\nesac\npython3 x.py clip=${CLIP_LOW:-$CLIP_DEFAULT}\n";
  const ShellScript known = run_script(dppo);
  REQUIRE(last_args(known).size() == 3);
  CHECK(last_args(known)[2] == "clip=0.15");
  CHECK_FALSE(known.invocations.back().args[2].unknown);
  CHECK(has_rule(known.findings, "shell.unsupported"));  // the info saying which branch was read
  CHECK(known.findings.back().message.find("its word is 'dppo_tv', so the branch at line 3 is read") !=
        std::string::npos);
  // --env LOSS_MODE=dppo_kl: the second branch.
  CHECK(last_args(run_script(dppo, {{"LOSS_MODE", "dppo_kl"}}))[2] == "clip=0.05");
  // Glob patterns and alternatives, on one line; the first match wins (bash stops there).
  const ShellScript glob = run_script(
      "M=llama-3.1-8b\ncase \"$M\" in qwen*) TP=1;; llama*|mistral*) TP=2;; *) TP=8;; esac\npython3 x.py $TP\n");
  CHECK(last_args(glob) == std::vector<std::string>{"python3", "x.py", "2"});
  // No pattern matches: no branch runs, TP keeps its value.
  const ShellScript none = run_script("TP=4\nM=gemma\ncase $M in\n  qwen) TP=1 ;;\nesac\npython3 x.py $TP\n");
  CHECK(last_args(none) == std::vector<std::string>{"python3", "x.py", "4"});
  // `;&` falls through into the next branch's commands.
  const ShellScript through = run_script("M=a\ncase $M in\n  a) X=1 ;&\n  b) Y=2 ;;\n  c) Y=3 ;;\nesac\n"
                                         "python3 x.py $X $Y\n");
  CHECK(last_args(through) == std::vector<std::string>{"python3", "x.py", "1", "2"});
  // A launch inside the chosen branch is found with the branch's values; the others are not run.
  const ShellScript launch = run_script(
      "MODE=train\ncase $MODE in\n  train)\n    python3 -m verl.trainer.main_ppo a=1\n    ;;\n"
      "  eval)\n    python3 -m verl.trainer.main_eval b=2\n    ;;\nesac\n");
  REQUIRE(launch.invocations.size() == 1);
  CHECK(last_args(launch) == std::vector<std::string>{"python3", "-m", "verl.trainer.main_ppo", "a=1"});
}

TEST_CASE("a case block whose word is not known reads every branch, and a branch that exits does not go on") {
  // The dppo script with LOSS_MODE from the environment only: CLIP is one of three overrides (the
  // *) branch exits, so no path leaves it unset): unknown, with those three alternatives.
  const ShellScript s = run_script(
      "case $LOSS_MODE in\n    dppo_tv)  CLIP=(clip=0.15) ;;\n    dppo_kl)  CLIP=(clip=0.05) ;;\n"
      "    vanilla)  CLIP=(clip=0.20) ;;\n    *) echo \"Unknown\"; exit 1 ;;\nesac\nK=1\npython3 x.py \"${CLIP[@]}\" $K\n");
  const auto& args = s.invocations.back().args;
  REQUIRE(args.size() == 4);
  REQUIRE(args[2].unknown);
  CHECK(*args[2].unknown == "$CLIP is set differently in the branches of the case at line 1");
  CHECK(args[2].alternatives == std::vector<std::string>{"clip=0.15", "clip=0.05", "clip=0.20"});
  CHECK_FALSE(args[3].unknown);
  // Without the exiting *) branch, not entering any branch is a path: CLIP may be unset, no
  // alternatives are known.
  const ShellScript open = run_script("case $LOSS_MODE in\n  a) CLIP=(clip=0.15) ;;\nesac\npython3 x.py \"${CLIP[@]}\"\n");
  REQUIRE(open.invocations.back().args.size() == 3);
  CHECK(open.invocations.back().args[2].unknown);
  CHECK(open.invocations.back().args[2].alternatives.empty());
  // An exit inside an if of a branch may not run: that branch still goes on, CLIP may be (a=1).
  const ShellScript guarded = run_script(
      "case $M in\n  a)\n    if [ -z \"$X\" ]; then\n      exit 1\n    fi\n    CLIP=(a=1) ;;\n  *) CLIP=(a=2) ;;\nesac\n"
      "python3 x.py \"${CLIP[@]}\"\n");
  REQUIRE(guarded.invocations.back().args.size() == 3);
  CHECK(guarded.invocations.back().args[2].alternatives == std::vector<std::string>{"a=1", "a=2"});
  // Every branch sets the same value: known after the block.
  const ShellScript same = run_script("case $X in\n  a) TP=2 ;;\n  *) TP=2 ;;\nesac\npython3 x.py $TP\n");
  CHECK(last_args(same) == std::vector<std::string>{"python3", "x.py", "2"});
  CHECK_FALSE(same.invocations.back().args[2].unknown);
}

TEST_CASE("a loop inside an if branch closes no block of the if: its else still pairs with it") {
  // bash: C is unknown, so A is (a=1) (then, after the loop) or (a=2) (else): two alternatives
  // after fi. (Before, the loop's end closed the if, and its else ran as a command.)
  const ShellScript s = run_script("if [ -n \"$C\" ]; then\n  for i in 1 2; do\n    echo $i\n  done\n  A=(a=1)\n"
                                   "else\n  A=(a=2)\nfi\npython3 x.py \"${A[@]}\"\n");
  const auto& args = s.invocations.back().args;
  REQUIRE(args.size() == 3);
  REQUIRE(args[2].unknown);
  CHECK(args[2].alternatives == std::vector<std::string>{"a=1", "a=2"});
  CHECK(s.invocations.size() == 2);  // echo, python3: no command named "else"
}

TEST_CASE("a launch inside a loop is found, the loop's variables unknown in it and after it") {
  // OSU-NLP-Group/ACuRL scripts/ACuRL/run.sh launches inside `for ((iter=...))`; a sweep
  // `for lr in ...` passes its variable. R is set before the loop and kept; I is set in the body.
  const ShellScript s = run_script(
      "R=1\nfor lr in 1e-6 2e-6; do\n  I=$lr\n  python3 x.py lr=$lr r=$R i=$I\ndone\npython3 y.py lr=$lr i=$I\n");
  REQUIRE(s.invocations.size() == 2);
  const auto& in_loop = s.invocations[0].args;
  REQUIRE(in_loop.size() == 5);
  CHECK(in_loop[2].unknown.has_value());
  CHECK(in_loop[3].text == "r=1");
  CHECK_FALSE(in_loop[3].unknown.has_value());
  CHECK(in_loop[4].unknown.has_value());  // I=$lr: unknown like lr
  const auto& after = s.invocations[1].args;
  CHECK(after[2].unknown.has_value());
  CHECK(after[3].unknown.has_value());
  // Nesting is read to 16 loops deep; deeper loops are skipped (the recursion is bounded).
  std::string nested;
  for (int depth = 0; depth < 20; ++depth) nested += "for a in 1; do\n";
  nested += "python3 deep.py\n";
  for (int depth = 0; depth < 20; ++depth) nested += "done\n";
  CHECK(run_script(nested).invocations.empty());
  CHECK(run_script("for a in 1; do\nfor b in 2; do\npython3 two.py\ndone\ndone\n").invocations.size() == 1);
}

TEST_CASE("a program run after && or || is read, what such a command assigns is unknown after it") {
  // ACuRL: `[[ -n "$latest" && "$MODE" == "disable" ]] || ray job submit ... -- python -m ...`.
  const ShellScript s = run_script("X=1\n[[ -n \"$D\" ]] || X=2\n[[ -n \"$D\" ]] || python3 x.py a=1 x=$X\n");
  REQUIRE_FALSE(s.invocations.empty());
  const auto& args = s.invocations.back().args;
  REQUIRE(args.size() == 4);
  CHECK(args[1].text == "x.py");
  CHECK(args[2].text == "a=1");
  CHECK(args[3].unknown.has_value());  // X may be 1 or 2
}

TEST_CASE("a nested $(( )) with an unknown operand stays one argument when expanded unquoted") {
  // bash: an arithmetic result is one number, never split; G is unset, so the value is unknown.
  const ShellScript s = run_script("B=8\nC=$(($(($G * $B)) * 4))\npython3 x.py k=$C z=1\n");
  const auto& args = s.invocations.back().args;
  REQUIRE(args.size() == 4);
  CHECK(args[2].unknown.has_value());
  CHECK(args[3].text == "z=1");
}

TEST_CASE("arrays and \"${A[@]}\" keep one argument per element, with the element's line") {
  const ShellScript s = run_script(
      "ARGS=(\n  a=1   # first\n  \"b=two words\"\n)\nARGS+=(c=3)\n"
      "python3 x.py \"${ARGS[@]}\" ${#ARGS[@]} ${ARGS[1]}\n");
  CHECK(last_args(s) == std::vector<std::string>{"python3", "x.py", "a=1", "b=two words", "c=3", "3", "b=two", "words"});
  CHECK(s.invocations.back().args[2].location.line == 2);
  CHECK(s.invocations.back().args[3].location.line == 3);
}

TEST_CASE("escaped quotes inside an array stay one literal element, in a case arm too") {
  // bash: A=(+k=\"none\") holds the one element +k="none"; the escapes do not open a quote.
  const ShellScript s = run_script("A=(\n  +k=\\\"none\\\"\n  b=1\n)\npython3 x.py \"${A[@]}\"\n");
  CHECK(last_args(s) == std::vector<std::string>{"python3", "x.py", "+k=\"none\"", "b=1"});
  CHECK(s.findings.empty());
  const ShellScript c = run_script("case \"$D\" in\n  gpu)\n    A+=(\n      +k=\\\"none\\\"\n    )\n    ;;\nesac\n"
                                   "python3 -m verl.trainer.main_ppo a=1\n");
  CHECK(last_args(c) == std::vector<std::string>{"python3", "-m", "verl.trainer.main_ppo", "a=1"});
  CHECK_FALSE(has_rule(c.findings, "shell.unterminated"));
}

TEST_CASE("a string of overrides known only in part splits into fields, only those with the unknown part are unknown") {
  // bash splits the unquoted $CFG on blanks: three arguments, the second holding $HOME.
  const ShellScript s = run_script("CFG=\"a.b=1 c.d=$HOME/x e.f=$(date +%s) g=2\"\npython3 x.py $CFG\n");
  const auto& args = s.invocations.back().args;
  REQUIRE(args.size() == 6);
  CHECK(args[2].text == "a.b=1");
  CHECK_FALSE(args[2].unknown);
  CHECK(args[3].text == "c.d=$HOME/x");
  CHECK(args[3].unknown);
  CHECK(args[4].text == "e.f=$(date +%s)");  // the blank inside $(...) does not split it
  CHECK(args[4].unknown);
  CHECK(args[5].text == "g=2");
  CHECK_FALSE(args[5].unknown);
  // Quoted, it stays one argument, unknown as a whole.
  const ShellScript q = run_script("CFG=\"a.b=1 c.d=$HOME/x\"\npython3 x.py \"$CFG\"\n");
  REQUIRE(q.invocations.back().args.size() == 3);
  CHECK(q.invocations.back().args[2].unknown);
}

TEST_CASE("a value known in part stays known in part through the variables that copy and extend it") {
  // verl's run_qwen3_5_35b_a3b_veomni.sh: model_path=${model_path:-$HOME/model/Qwen3.5-35B-A3B},
  // actor_model_path=$model_path, ACTOR_CONFIG="... actor_rollout_ref.model.path=$actor_model_path
  // ...", ACTOR_CONFIG="$ACTOR_CONFIG $ACTOR_VEOMNI_CONFIG", then $ACTOR_CONFIG unquoted. bash
  // splits it into its overrides; only the one holding $HOME is unknown, and it keeps its key.
  const ShellScript s = run_script(
      "M=${M:-$HOME/model/Qwen3-8B}\nA=$M\nCFG=\"a.b=1 model.path=$A\"\nX=\"c.d=2\"\nCFG=\"$CFG $X\"\n"
      "CFG+=\" e.f=$HOME/g\"\npython3 x.py $CFG\n");
  const auto& args = s.invocations.back().args;
  REQUIRE(args.size() == 6);
  CHECK(args[2].text == "a.b=1");
  CHECK_FALSE(args[2].unknown);
  CHECK(args[3].text == "model.path=$HOME/model/Qwen3-8B");
  CHECK(args[3].partial == "model.path=$HOME/model/Qwen3-8B");
  CHECK(args[3].unknown.has_value());
  CHECK(args[4].text == "c.d=2");
  CHECK_FALSE(args[4].unknown);
  CHECK(args[5].text == "e.f=$HOME/g");
  CHECK(args[5].unknown.has_value());
}

TEST_CASE("a value known in part keeps its known part beside the unknown text, appending keeps it unknown") {
  // CodeDance: CONFIG_PATH="$(pwd)/configs" ... --config-path "$CONFIG_PATH"; ActGuide-RL builds
  // TRAIN_FILES in a loop and closes it with TRAIN_FILES+="]".
  const ShellScript s = run_script(
      "CONFIG_PATH=\"$(pwd)/configs\"\nF=\"[\"\nfor f in a b; do F+=\"$f,\"; done\nF+=\"]\"\n"
      "python3 x.py --config-path \"$CONFIG_PATH\" files=${F} n=$(nproc)\n");
  const auto& args = s.invocations.back().args;
  REQUIRE(args.size() == 6);
  CHECK(args[3].text == "$CONFIG_PATH");
  CHECK(args[3].partial == "$(pwd)/configs");
  CHECK(args[3].unknown.has_value());
  CHECK(args[4].unknown.has_value());  // not files=]
  CHECK(args[4].partial == "files=$F]");
  const ShellScript whole = run_script("N=$(nvidia-smi -L | wc -l)\npython3 x.py n=$N\n");
  CHECK(whole.invocations.back().args[2].partial.empty());  // nothing of it is known
}

TEST_CASE("arithmetic $(( )) is evaluated: (2048 + 8192) * 2 = 20480, 7 / 2 = 3, 2 ** 10 = 1024") {
  const ShellScript s = run_script(
      "P=$((1024 * 2))\nR=$((1024 * 8))\nT=$(((P + R) * 2))\npython3 x.py $T $((7 / 2)) $(( 2 ** 10 )) $((P % 1000))\n");
  CHECK(last_args(s) == std::vector<std::string>{"python3", "x.py", "20480", "3", "1024", "48"});
}

TEST_CASE("$(...) and backticks are never run: the value is unknown") {
  const ShellScript s = run_script("N=$(nvidia-smi -L | wc -l)\npython3 x.py n=$N m=`hostname` k=$HOME/x\n");
  const auto& args = s.invocations.back().args;
  REQUIRE(args.size() == 5);
  CHECK(args[2].text == "n=$N");  // unknown parts are shown as written
  CHECK(args[2].unknown->find("$(nvidia-smi -L | wc -l) is never run") != std::string::npos);
  CHECK(args[3].unknown.has_value());
  CHECK(args[4].unknown->find("HOME") != std::string::npos);
}

TEST_CASE("a backslash followed by blanks ends the command exactly as bash does") {
  // The line after the break is a command of its own: bash would try to run `trainer.b=2`.
  const ShellScript s = run_script("python3 -m verl.trainer.main_ppo a.x=1 \\  \n    trainer.b=2 \\\n    c.d=3\n");
  REQUIRE(s.invocations.size() == 2);
  CHECK(last_args(s) == std::vector<std::string>{"trainer.b=2", "c.d=3"});
  CHECK(s.invocations.front().args.back().text == " ");  // bash passes a literal blank argument
  REQUIRE(has_rule(s.findings, "shell.broken-continuation"));
  CHECK(s.findings.front().location.line == 1);
}

TEST_CASE("a comment inside a continuation ends the command") {
  const ShellScript s = run_script("python3 -m m a.x=1 \\\n    # b.y=2 \\\n    c.z=3\n");
  REQUIRE(s.invocations.size() == 2);
  CHECK(last_args(s) == std::vector<std::string>{"c.z=3"});
  CHECK(has_rule(s.findings, "shell.broken-continuation"));
  // A comment line without a backslash of its own is one break, said once (MaoChouHJM/verl's
  // run_qwen3moe-30b_megatron.sh was told twice: as a comment and as a blank line).
  const ShellScript once = run_script("python3 -m m a.x=1 \\\n  # c\n  b.y=2 \\\n  c.z=3\n");
  CHECK(std::count_if(once.findings.begin(), once.findings.end(),
                      [](const Finding& f) { return f.rule == "shell.broken-continuation"; }) == 1);
}

TEST_CASE("declare -a NAME is an empty array: its expansion adds no argument") {
  // RLPR's reproduce script: `declare -a WANDB_PARAMETERS`, filled only in a branch whose condition
  // is false, then "${WANDB_PARAMETERS[@]}" in the launch: no word at all. A name the script never
  // sets stays unknown (a scalar of the environment would give one word).
  const ShellScript s = run_script(
      "USE_WANDB=false\ndeclare -a W\nif [ \"$USE_WANDB\" = \"true\" ]; then\n  W=(trainer.logger=[wandb])\nfi\n"
      "python3 -m verl.trainer.main_ppo \"${W[@]}\" \"${T[@]}\" a.b=1\n");
  REQUIRE(s.invocations.size() == 1);
  const auto& args = s.invocations.front().args;
  REQUIRE(args.size() == 5);  // python3 -m verl.trainer.main_ppo ${T[@]} a.b=1
  CHECK(args[3].unknown);
  CHECK(args[3].unknown->find("array T is not set in the script") != std::string::npos);
  CHECK(args[4].text == "a.b=1");
}

TEST_CASE("an array filled by a command substitution is unknown, not empty") {
  // ports=(`echo $PORTS | tr ',' ' '`); port=${ports[0]}: how many words the command prints is
  // not known, so --master_port $port keeps its value slot (it swallowed pretrain_gpt.py before).
  const ShellScript s = run_script(
      "ports=(`echo $PORTS | tr ',' ' '`)\nport=${ports[0]}\n"
      "torchrun --nproc_per_node 8 --master_port $port pretrain_gpt.py --num-layers 5\n");
  const auto launches = find_launches(s);
  REQUIRE(launches.size() == 1);
  CHECK(launches[0].kind == LaunchKind::megatron);
  CHECK(launches[0].arguments.front().text == "--num-layers");
  // Arithmetic $((...)) in an element is one known word (verl's run_deepseek_v3_671b_megatron.sh).
  const ShellScript arithmetic = run_script("L=(a.b=$((1 + 2)))\npython3 x.py \"${L[@]}\"\n");
  CHECK(last_args(arithmetic) == std::vector<std::string>{"python3", "x.py", "a.b=3"});
}

TEST_CASE("a blank line after a continuation ends the command: an argument line after it is an error") {
  // Tool-Star's train_multi_node.sh: `ray job submit --address=... \`, a blank line, then
  // `-- python3 -m verl.trainer.main_ppo ...`: bash ends the ray command at the blank line and then
  // runs `--` as a command ("--: command not found").
  const ShellScript s = run_script(
      "ray job submit --address=http://127.0.0.1:8265 \\\n    \n\n    -- python3 -m verl.trainer.main_ppo \\\n    a.b=1\n");
  REQUIRE(s.invocations.size() == 2);
  REQUIRE(has_rule(s.findings, "shell.broken-continuation"));
  CHECK(s.findings.front().location.line == 2);
  // A trailing backslash before a blank line and a next command is the common harmless ending.
  const ShellScript harmless = run_script("python3 -m verl.trainer.main_ppo \\\n    a.b=1 \\\n\necho done\n");
  CHECK_FALSE(has_rule(harmless.findings, "shell.broken-continuation"));
}

TEST_CASE("every branch of an if is walked, afterwards a variable is known only where all paths agree") {
  // X is 2 in the then-branch and 1 when no branch runs (no else): unknown after the block.
  // Y is 5 in both branches of an if/else: known. The launch in each branch is found.
  const ShellScript s = run_script(
      "X=1\n"
      "if [ -z \"$A\" ]; then\n"
      "  X=2\n"
      "  python3 -m verl.trainer.main_ppo a=$X\n"
      "fi\n"
      "if [ \"$B\" == fsdp ]; then Y=5; python3 -m verl.trainer.main_ppo b=1\n"
      "elif [ \"$B\" == megatron ]; then\n"
      "  Y=5\n"
      "else\n"
      "  Y=5\n"
      "  python3 -m verl.trainer.main_ppo c=1\n"
      "fi\n"
      "python3 x.py $X $Y\n");
  REQUIRE(s.invocations.size() == 4);
  CHECK(s.invocations[0].args.back().text == "a=2");
  CHECK_FALSE(s.invocations[0].args.back().unknown.has_value());
  CHECK(s.invocations[1].args.back().text == "b=1");
  CHECK(s.invocations[2].args.back().text == "c=1");
  const auto& last = s.invocations[3].args;
  REQUIRE(last.size() == 4);
  REQUIRE(last[2].unknown.has_value());
  CHECK(*last[2].unknown == "$X is set differently in the branches of the if at line 2");
  CHECK(last[3].text == "5");
  CHECK_FALSE(last[3].unknown.has_value());
  CHECK_FALSE(has_rule(s.findings, "shell.unsupported"));
}

TEST_CASE("an if whose condition is known takes the branch bash takes, and no other") {
  // verl's run_qwen3_30b_a3b_megatron.sh: INFER_BACKEND defaults to vllm, so `if [ ... = trtllm ]`
  // never runs and the elif does: X is 2, and the trtllm branch's launch is not read.
  const ShellScript s = run_script(
      "B=${B:-vllm}\n"
      "if [ \"${B}\" = trtllm ]; then\n  X=1\n  python3 -m verl.trainer.main_ppo t=1\n"
      "elif [ \"$B\" = vllm ]; then\n  X=2\nelse\n  X=3\nfi\npython3 x.py $X\n");
  REQUIRE(s.invocations.size() == 1);
  CHECK(last_args(s) == std::vector<std::string>{"python3", "x.py", "2"});
  CHECK_FALSE(s.invocations.back().args[2].unknown);
  bool said_false = false;
  for (const Finding& f : s.findings) {
    said_false = said_false || f.message.find("'[ vllm = trtllm ]' at line 2 is false") != std::string::npos;
  }
  CHECK(said_false);
  // A true condition: no later branch runs, and no path skips the block.
  CHECK(last_args(run_script("Y=0\nif true; then Y=1; else Y=2; fi\npython3 x.py $Y\n")) ==
        std::vector<std::string>{"python3", "x.py", "1"});
  // An unknown condition, then a true one: the first two branches may run, the else never does.
  const ShellScript z = run_script(
      "if [ -n \"$U\" ]; then Z=(z=1); elif [ 1 -eq 1 ]; then Z=(z=2); else Z=(z=3); fi\n"
      "python3 x.py \"${Z[@]}\"\n");
  const auto& zargs = z.invocations.back().args;
  REQUIRE(zargs.size() == 3);
  REQUIRE(zargs[2].unknown);
  CHECK(zargs[2].alternatives == std::vector<std::string>{"z=1", "z=2"});
  // A false condition and no else: the block is skipped, the value from before stays known.
  CHECK(last_args(run_script("W=5\nif [ 1 = 2 ]; then W=6; fi\npython3 x.py $W\n")) ==
        std::vector<std::string>{"python3", "x.py", "5"});
  // A list of tests runs left to right: true && unknown is unknown (both paths remain) ...
  const ShellScript list = run_script("V=0\nB=vllm\nif [ $B = vllm ] && [ -n \"$U\" ]; then V=1; fi\npython3 x.py $V\n");
  CHECK(list.invocations.back().args.back().unknown.has_value());
  // ... unknown && false is false (verl's run_qwen3_30b_a3b_megatron.sh guard, its defaults: no
  // quantization, vllm), unknown || true is true.
  CHECK(last_args(run_script("Q=${Q:-}\nB=vllm\nV=0\nif [ -n \"${Q}\" ] && [ \"${B}\" != trtllm ]; then V=1; fi\n"
                             "python3 x.py $V\n")) == std::vector<std::string>{"python3", "x.py", "0"});
  CHECK(last_args(run_script("V=0\nif [ -n \"$U\" ] || [ 1 -eq 1 ]; then V=1; fi\npython3 x.py $V\n")) ==
        std::vector<std::string>{"python3", "x.py", "1"});
  // A command that is not a test in the list, or && inside [[ ]], leaves the condition undecided.
  CHECK(run_script("V=0\nif [ 1 = 2 ] || grep -q x f; then V=1; fi\npython3 x.py $V\n")
            .invocations.back().args.back().unknown.has_value());
  CHECK(run_script("V=0\nif [[ 1 = 1 && 2 = 2 ]]; then V=1; fi\npython3 x.py $V\n")
            .invocations.back().args.back().unknown.has_value());
  // Blocks nested in a branch that never runs are skipped whole: their fi / done close nothing.
  const ShellScript nested = run_script(
      "if false; then\n  if true; then A=1\n  else A=2\n  fi\n  for i in 1; do A=3; done\n"
      "  python3 -m verl.trainer.main_ppo never=1\nelse\n  A=4\nfi\npython3 x.py $A\n");
  REQUIRE(nested.invocations.size() == 1);
  CHECK(last_args(nested) == std::vector<std::string>{"python3", "x.py", "4"});
}

TEST_CASE("an array extended in one branch keeps the elements every path shares") {
  // EXTRA starts (model_engine=megatron); one branch appends more: after the if, the first element
  // is known and the rest is one unknown element.
  const ShellScript s = run_script(
      "EXTRA=(model_engine=megatron)\nif [ -n \"$NPU\" ]; then\n  EXTRA+=(a.b=1)\nfi\n"
      "python3 x.py \"${EXTRA[@]}\"\n");
  const auto& args = s.invocations.back().args;
  REQUIRE(args.size() == 4);
  CHECK(args[2].text == "model_engine=megatron");
  CHECK_FALSE(args[2].unknown.has_value());
  REQUIRE(args[3].unknown.has_value());
  CHECK(*args[3].unknown == "$EXTRA is set differently in the branches of the if at line 2");
}

TEST_CASE("loops, case on an unknown word and && / || branches: what they may assign is unknown after them") {
  const ShellScript s = run_script(
      "X=1\nfor n in 1 2; do\n  if true; then X=4; fi\n  X=2\ndone\npython3 x.py $X $n\n");
  CHECK(has_rule(s.findings, "shell.unsupported"));
  REQUIRE(s.invocations.size() == 1);
  const auto& args = s.invocations.back().args;
  REQUIRE(args.size() == 4);
  REQUIRE(args[2].unknown);  // not the 1 from before the loop
  CHECK(args[2].unknown->find("$X may be set in the 'for' block at line 2") != std::string::npos);
  REQUIRE(args[3].unknown);  // the loop variable
  // bash runs one arm of a case; which one depends on $MODEL, not known here: TP is 2, 4 or the 1
  // from before (no arm matches).
  const ShellScript c = run_script(
      "TP=1\ncase $MODEL in\n  qwen) TP=2 ;;\n  llama) export TP=4 ;;\nesac\n"
      "[ -z \"$PP\" ] && PP=2\nK=3\npython3 x.py $TP $PP $K\n");
  const auto& cargs = c.invocations.back().args;
  REQUIRE(cargs.size() == 5);
  REQUIRE(cargs[2].unknown);
  CHECK(cargs[2].unknown->find("the branches of the case at line 2") != std::string::npos);
  REQUIRE(cargs[3].unknown);
  CHECK(cargs[3].unknown->find("after '&&'/'||' at line 6") != std::string::npos);
  CHECK_FALSE(cargs[4].unknown);
  CHECK(cargs[4].text == "3");
}

// wjl-bupt/EasyOPD runs its launch in a subshell; it was skipped (exit 0, nothing checked). A
// subshell's commands are read; `((...))` arithmetic and a case pattern's ')' are not subshells.
TEST_CASE("a launch inside a subshell is found") {
  auto sub = find_launches(run_script("(\n  cd work && python3 -m verl.trainer.main_ppo a.b=1\n)\necho done\n"));
  REQUIRE(sub.size() == 1);
  CHECK(sub[0].arguments.back().text == "a.b=1");
  auto inline_sub = find_launches(run_script("( python3 -m verl.trainer.main_ppo c.d=2 )\n"));
  REQUIRE(inline_sub.size() == 1);
  CHECK(inline_sub[0].arguments.back().text == "c.d=2");
}

TEST_CASE("launchers behind a wrapper or in a variable set per branch are found") {
  // uv run (verl's newer examples) in front of the interpreter.
  auto uv = find_launches(run_script("uv run --frozen --extra vllm python3 -m verl.trainer.main_ppo a.b=1\n"));
  REQUIRE(uv.size() == 1);
  CHECK(uv[0].kind == LaunchKind::verl_ppo);
  // uv's own -m (NovaSky-AI/SkyRL's skyrl-agent launches: uv run --isolated --frozen --extra verl
  // --env-file .env -m <module>): the module is the entry.
  auto uv_module = find_launches(
      run_script("uv run --isolated --frozen --extra verl --env-file .env -m verl.trainer.main_ppo a.b=1\n"));
  REQUIRE(uv_module.size() == 1);
  CHECK(uv_module[0].kind == LaunchKind::verl_ppo);
  CHECK(uv_module[0].arguments.back().text == "a.b=1");
  // Another program's -m is not a module to run.
  CHECK(find_launches(run_script("git commit -m verl.trainer.main_ppo\n")).empty());
  // `python -m torch.distributed.run` is torchrun (Megatron-LM's examples/gptoss/02_train.sh).
  auto torch_run = find_launches(run_script(
      "python -m torch.distributed.run --nproc_per_node 8 --nnodes 1 pretrain_gpt.py --num-layers 12\n"));
  REQUIRE(torch_run.size() == 1);
  CHECK(torch_run[0].kind == LaunchKind::megatron);
  CHECK(torch_run[0].arguments.front().text == "--num-layers");
  // A command line printed, not run, is no launch (MindSpeed: printf '%q ' "${CMD[@]}" > run.log).
  CHECK(find_launches(run_script("CMD=(torchrun pretrain_gpt.py --num-layers 5)\nprintf '%q ' \"${CMD[@]}\"\n"
                                 "echo python3 -m verl.trainer.main_ppo a=1\n"))
            .empty());
  // LAUNCH is (python3) or (uv run ... python3) depending on a branch: unknown, but "-m" follows it.
  auto branch = find_launches(run_script(
      "LAUNCH=(python3)\nif [ -n \"$UV\" ]; then\n  LAUNCH=(uv run --frozen python3)\nfi\n"
      "\"${LAUNCH[@]}\" -m verl.trainer.main_ppo a.b=1\n"));
  REQUIRE(branch.size() == 1);
  CHECK(branch[0].kind == LaunchKind::verl_ppo);
  CHECK(branch[0].arguments.back().text == "a.b=1");
  // An unknown command without "-m" is not guessed to be a launch.
  CHECK(find_launches(run_script("CMD=$(which trainer)\n$CMD a.b=1\n")).empty());
}

TEST_CASE("an unterminated quote is reported") {
  const ShellScript s = run_script("python3 x.py 'a=1\n");
  CHECK(has_rule(s.findings, "shell.unterminated"));
}

TEST_CASE("redirections and here-documents are dropped, set -x is harmless") {
  const ShellScript s = run_script("set -x\ncat <<EOF > cfg.yaml\na: 1\nEOF\npython3 x.py a=1 2>&1 | tee log.txt\n");
  REQUIRE(s.invocations.size() == 3);
  CHECK(s.invocations[2].args[0].text == "tee");
  CHECK(last_args(ShellScript{{s.invocations[1]}, {}}) == std::vector<std::string>{"python3", "x.py", "a=1"});
}

TEST_CASE("--env values are seen by the script and exported") {
  const ShellScript s = run_script("N=${NNODES:-1}\npython3 x.py $N\n", {{"NNODES", "4"}});
  CHECK(last_args(s) == std::vector<std::string>{"python3", "x.py", "4"});
  CHECK(s.invocations.back().environment.count("NNODES") == 1);
}

TEST_CASE("launchers: python3 -m, torchrun, ray job submit --, and Megatron-LM pretrain_gpt.py") {
  const auto launch_of = [](const std::string& text) {
    return find_launches(evaluate_shell_script(text, "run.sh", {}));
  };
  auto plain = launch_of("PYTHONUNBUFFERED=1 python3 -m verl.trainer.main_ppo --config-name=ppo_megatron_trainer a=1\n");
  REQUIRE(plain.size() == 1);
  CHECK(plain[0].kind == LaunchKind::verl_ppo);
  CHECK(*plain[0].config_name == "ppo_megatron_trainer");
  CHECK(plain[0].arguments.size() == 1);
  CHECK(plain[0].environment.count("PYTHONUNBUFFERED") == 1);

  auto torchrun = launch_of("torchrun --nnodes 2 --nproc_per_node=8 --standalone -m verl.trainer.main_ppo a=1 b=2\n");
  REQUIRE(torchrun.size() == 1);
  CHECK(torchrun[0].arguments.size() == 2);

  auto ray = launch_of("ray job submit --address http://x:8265 --runtime-env=r.yaml --no-wait -- "
                       "python3 -m verl.trainer.main_ppo -cn ppo_trainer a=1\n");
  REQUIRE(ray.size() == 1);
  CHECK(*ray[0].config_name == "ppo_trainer");
  // argparse's abbreviations of Hydra's flags (allow_abbrev): --config-n is --config-name, --config-p
  // is --config-path; `--config` abbreviates three and stays an argument (check refuses it).
  auto abbreviated = launch_of("python3 -m verl.trainer.main_ppo --config-n=ppo_megatron_trainer --config-p conf a=1\n");
  REQUIRE(abbreviated.size() == 1);
  CHECK(*abbreviated[0].config_name == "ppo_megatron_trainer");
  CHECK(*abbreviated[0].config_path == "conf");
  CHECK(abbreviated[0].arguments.size() == 1);
  CHECK(launch_of("python3 -m verl.trainer.main_ppo --config c.yaml a=1\n")[0].arguments.size() == 3);

  auto megatron = launch_of("torchrun --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size 2\n");
  REQUIRE(megatron.size() == 1);
  CHECK(megatron[0].kind == LaunchKind::megatron);
  CHECK(megatron[0].arguments.size() == 2);

  // `function name() { ... }` ends at its '}' (verl v0.6.1's sglang_multiturn examples define one).
  auto after_function = launch_of("function now() {\n    date '+%d'\n}\nN=\"x_$(now)\"\npython3 -m verl.trainer.main_ppo a=1\n");
  REQUIRE(after_function.size() == 1);
  CHECK(after_function[0].kind == LaunchKind::verl_ppo);

  auto nothing = launch_of("echo hello\nmkdir -p x\n");
  CHECK(nothing.empty());
}

}  // namespace meshplan
