// Hydra override semantics (Hydra 1.3 struct mode) and OmegaConf interpolation on small trees.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include "approx.hpp"
#include "verl/hydra/config_loader.hpp"
#include "verl/hydra/hydra_override.hpp"
#include "verl/hydra/hydra_value.hpp"
#include "verl/hydra/interpolation.hpp"

namespace meshplan {
namespace {

ConfigNode tree(const std::string& yaml) {
  auto parsed = config_from_yaml(yaml, "t.yaml");
  REQUIRE(parsed.ok());
  return parsed.value();
}

std::optional<Finding> apply(ConfigNode& root, const std::string& word) {
  auto parsed = parse_override(word, SourceLocation{"run.sh", 3});
  REQUIRE_MESSAGE(parsed.ok(), word);
  return apply_override(root, parsed.value());
}

}  // namespace

TEST_CASE("override values are typed as Hydra types them") {
  CHECK(parse_override_value("True")->kind == NodeKind::boolean);
  CHECK(parse_override_value("True")->boolean);
  CHECK(parse_override_value("1e-6")->kind == NodeKind::floating);
  CHECK(parse_override_value("1e-6")->floating == test::approx(1e-6));
  CHECK(parse_override_value("1_000")->integer == 1000);
  CHECK(parse_override_value("-3")->integer == -3);
  CHECK(parse_override_value("null")->kind == NodeKind::null);
  CHECK(parse_override_value("inf")->kind == NodeKind::floating);
  CHECK(parse_override_value("fsdp2")->text == "fsdp2");
  CHECK(parse_override_value("")->kind == NodeKind::string);
  const auto list = parse_override_value("[\"console\",\"wandb\"]");
  REQUIRE(list->kind == NodeKind::list);
  CHECK(list->items.size() == 2);
  CHECK(list->items[1].text == "wandb");
  const auto dict = parse_override_value("{a: 1, b: [x, y]}");
  REQUIRE(dict->is_map());
  CHECK(dict->child("a")->integer == 1);
  CHECK(dict->child("b")->items.size() == 2);
  CHECK(parse_override_value("'quoted: 1'")->text == "quoted: 1");
  CHECK(parse_override_value("${a.b}")->text == "${a.b}");
  // Hydra 1.3 ESC (\\ ( ) [ ] { } : = , blank, tab) in dict keys and unquoted values: the
  // character itself (verl 1dda039b's fsdp_turbo examples write layer-wildcard keys this way).
  const auto escaped = parse_override_value("{model.layers.\\{*\\}:{},lm_head:{}}");
  REQUIRE(escaped.ok());
  REQUIRE(escaped->child("model.layers.{*}") != nullptr);
  CHECK(escaped->child("model.layers.{*}")->is_map());
  CHECK(escaped->child("lm_head") != nullptr);
  CHECK(parse_override_value("job\\{a\\=1\\,b\\}")->text == "job{a=1,b}");
  CHECK_FALSE(parse_override_value("a,b").ok());  // a sweep needs --multirun
  CHECK_FALSE(parse_override_value("[1, 2").ok());
}

TEST_CASE("key=v on an existing key assigns, on an unknown key it is Hydra's struct error with a suggestion") {
  ConfigNode root = tree("trainer:\n  nnodes: 1\n  n_gpus_per_node: 8\n");
  CHECK_FALSE(apply(root, "trainer.nnodes=2"));
  CHECK(find_path(root, "trainer.nnodes")->integer == 2);
  CHECK(find_path(root, "trainer.nnodes")->origin.line == 3);
  const auto finding = apply(root, "trainer.n_gpu_per_node=4");
  REQUIRE(finding);
  CHECK(finding->rule == "hydra.unknown-key");
  CHECK(finding->message.find("Key 'n_gpu_per_node' is not in struct") != std::string::npos);
  CHECK(finding->fix[0] == "trainer.n_gpus_per_node=4");
  CHECK(finding->fix[1] == "+trainer.n_gpu_per_node=4");
}

TEST_CASE("an unknown key deeper than its section: OmegaConf names the first missing part, no '+' into a class") {
  // Hydra 1.3 on `actor.megatron.tp=2` when actor has no `megatron`: "Could not override
  // 'actor.megatron.tp'. ... Key 'megatron' is not in struct". actor is built as a dataclass
  // (`_target_`), so adding the section with '+' would fail there instead: no '+' fix.
  ConfigNode root = tree("actor:\n  _target_: verl.workers.config.FSDPActorConfig\n  strategy: fsdp\nplain:\n  a: 1\n");
  const auto deep = apply(root, "actor.megatron.tp=2");
  REQUIRE(deep);
  CHECK(deep->message.find("Key 'megatron' is not in struct") != std::string::npos);
  CHECK(deep->message.find("FSDPActorConfig") != std::string::npos);
  CHECK(deep->fix.empty());
  const auto plain = apply(root, "plain.sub.b=2");
  REQUIRE(plain);
  CHECK(plain->message.find("Key 'sub' is not in struct") != std::string::npos);
  REQUIRE_FALSE(plain->fix.empty());
  CHECK(plain->fix.back() == "+plain.sub.b=2");
}

TEST_CASE("+key adds and fails on a non-null key, ++ forces, ~ deletes") {
  ConfigNode root = tree("a:\n  b: 1\n  c: null\n  d: {}\n");
  const auto exists = apply(root, "+a.b=2");
  REQUIRE(exists);
  CHECK(exists->rule == "hydra.append-existing");
  CHECK(exists->fix[0] == "a.b=2");
  CHECK_FALSE(apply(root, "+a.c=5"));  // null: Hydra 1.3 lets '+' set it
  CHECK(find_path(root, "a.c")->integer == 5);
  CHECK_FALSE(apply(root, "+a.d.e.f=x"));  // creates the missing dicts
  CHECK(find_path(root, "a.d.e.f")->text == "x");
  CHECK(apply(root, "a.d.g=1")->rule == "hydra.unknown-key");  // children of {} need '+'
  CHECK_FALSE(apply(root, "++a.b=3"));
  CHECK(find_path(root, "a.b")->integer == 3);
  CHECK_FALSE(apply(root, "++a.new=4"));
  CHECK_FALSE(apply(root, "~a.b"));
  CHECK(find_path(root, "a.b") == nullptr);
  CHECK(apply(root, "~a.b")->rule == "hydra.delete-missing");
}

TEST_CASE("+ and ++ under an interpolated parent: select follows it, update replaces it with {}") {
  // Hydra 1.3 _apply_overrides_to_config: '+' fails only when OmegaConf.select (which
  // dereferences interpolations on the way) finds a value; OmegaConf.update(force_add=True) then
  // replaces each parent that is not a dict (here the `${oc.select:...}` string) with {}.
  const std::string yaml = "actor:\n  otc:\n    sp: true\nref:\n  otc: ${oc.select:actor.otc,{}}\n  x: 1\n";
  ConfigNode root = tree(yaml);
  const auto through = apply(root, "+ref.otc.sp=True");
  REQUIRE(through);
  CHECK(through->rule == "hydra.append-existing");  // the actor's sp, read through the interpolation
  CHECK_FALSE(apply(root, "+ref.otc.fusion=False"));
  REQUIRE(find_path(root, "ref.otc")->is_map());
  CHECK(find_path(root, "ref.otc")->entries.size() == 1);  // the actor's keys are not copied
  CHECK(find_path(root, "ref.otc.fusion")->kind == NodeKind::boolean);

  ConfigNode forced = tree(yaml);
  CHECK_FALSE(apply(forced, "++ref.otc.sp=False"));
  CHECK_FALSE(find_path(forced, "ref.otc.sp")->boolean);
  CHECK_FALSE(apply(forced, "+ref.otc.sp2=1"));  // ref.otc is a plain dict now
  CHECK(find_path(forced, "actor.otc.sp")->boolean);
  // A value (not a dict) as parent: select raises ConfigTypeError for '+', update replaces it for '++'.
  CHECK(apply(forced, "+ref.x.y=1")->rule == "hydra.not-a-dict");
  CHECK_FALSE(apply(forced, "++ref.x.y=1"));
  CHECK(find_path(forced, "ref.x.y")->integer == 1);
}

TEST_CASE("malformed overrides are errors naming the word") {
  CHECK_FALSE(parse_override("a.b", SourceLocation{}).ok());
  CHECK_FALSE(parse_override("=1", SourceLocation{}).ok());
  CHECK_FALSE(parse_override("a..b=1", SourceLocation{}).ok());
}

TEST_CASE("OmegaConf interpolations resolve: absolute, relative, oc.select with default, embedded") {
  ConfigNode root = tree(
      "data:\n  max_prompt_length: 512\n"
      "rollout:\n  prompt_length: ${oc.select:data.max_prompt_length,256}\n"
      "  missing: ${oc.select:data.nothing,7}\n"
      "  none: ${oc.select:data.nothing, null}\n"
      "critic:\n  ppo_micro_batch_size: 4\n  ppo_micro_batch_size_per_gpu: ${oc.select:.ppo_micro_batch_size,null}\n"
      "  forward: ${.ppo_micro_batch_size_per_gpu}\n"
      "trainer:\n  project: p\n  dir: ckpt/${trainer.project}/${data.max_prompt_length}\n");
  CHECK(resolve_interpolations(root).empty());
  CHECK(find_path(root, "rollout.prompt_length")->integer == 512);
  CHECK(find_path(root, "rollout.missing")->integer == 7);
  CHECK(find_path(root, "rollout.none")->kind == NodeKind::null);
  CHECK(find_path(root, "critic.ppo_micro_batch_size_per_gpu")->integer == 4);
  CHECK(find_path(root, "critic.forward")->integer == 4);
  CHECK(find_path(root, "trainer.dir")->text == "ckpt/p/512");
}

TEST_CASE("a missing interpolation target and a cycle are findings") {
  ConfigNode root = tree("a: ${b.c}\nx: ${y}\ny: ${x}\n");
  const std::vector<Finding> findings = resolve_interpolations(root);
  REQUIRE(findings.size() >= 2);
  CHECK(findings[0].rule == "config.interpolation");
  CHECK(findings[0].keys[0] == "a");
}

TEST_CASE("an empty interpolation is an error, and strings that double at each level stop at 1 MiB") {
  // OmegaConf's grammar rejects "${}" (a fuzz finding: it used to copy the whole root in).
  ConfigNode empty = tree("a: x${}y\n");
  const std::vector<Finding> findings = resolve_interpolations(empty);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].message.find("empty interpolation") != std::string::npos);
  // k0 is 16 bytes and each level holds the one below twice: k20 would be 16 MiB.
  std::string yaml = "k0: abcdefghijklmnop\n";
  for (int i = 1; i <= 20; ++i) yaml += fmt::format("k{}: ${{k{}}}${{k{}}}\n", i, i - 1, i - 1);
  ConfigNode doubling = tree(yaml);
  CHECK(resolve_interpolations(doubling).empty());
  CHECK(find_path(doubling, "k16")->text.size() == std::size_t{16} << 16);  // 1 MiB: still evaluated
  CHECK(find_path(doubling, "k17")->kind == NodeKind::unknown);
  CHECK(find_path(doubling, "k20")->text.size() < std::size_t{1} << 20);  // built on the unknown k17
}

TEST_CASE("did you mean: only a key of the same section and role") {
  ConfigNode root = tree(
      "actor_rollout_ref:\n  actor:\n    lr: 1\n    fsdp_config:\n      fsdp_size: -1\n"
      "  rollout:\n    tensor_model_parallel_size: 1\n");
  // The actor has no TP in an FSDP config; the rollout's TP would change the run.
  const auto other_role = apply(root, "actor_rollout_ref.actor.tensor_model_parallel_size=2");
  REQUIRE(other_role);
  CHECK(other_role->message.find("did you mean") == std::string::npos);
  const auto same_role = apply(root, "actor_rollout_ref.actor.fsdp_size=2");
  REQUIRE(same_role);
  CHECK(same_role->message.find("did you mean 'actor_rollout_ref.actor.fsdp_config.fsdp_size'?") != std::string::npos);
}

TEST_CASE("an override key walks into a list by its index, as OmegaConf.update does") {
  // chenyiqun/UnityMAS-O star_ppo_trainer.yaml: trainer.llm_engines is a list of engine dicts, and
  // its launch sets `trainer.llm_engines.0.model_path=...` (Hydra's DOT_PATH admits unsigned ints).
  ConfigNode root = tree("trainer:\n  llm_engines:\n    - model_id: L0\n      model_path: null\n"
                         "    - model_id: L1\n      model_path: null\n");
  CHECK_FALSE(apply(root, "trainer.llm_engines.1.model_path=/models/b").has_value());
  CHECK(find_path(root, "trainer.llm_engines.1.model_path")->text == "/models/b");
  CHECK(find_path(root, "trainer.llm_engines.0.model_path")->kind == NodeKind::null);
  // An index past the end, or a key the element lacks, is still Hydra's error.
  const auto past = apply(root, "trainer.llm_engines.2.model_path=/models/c");
  REQUIRE(past.has_value());
  CHECK(past->rule == "hydra.unknown-key");
  REQUIRE(apply(root, "trainer.llm_engines.0.nnodes=2").has_value());
  // '+' cannot add an element to a list by index.
  const auto added = apply(root, "+trainer.llm_engines.2=x");
  REQUIRE(added.has_value());
  CHECK(added->rule == "hydra.not-a-dict");
}

}  // namespace meshplan
