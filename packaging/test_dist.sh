#!/usr/bin/env bash
# Acceptance of `make dist` (docs/install.md): the binary is static and runs with an empty
# environment; the wheel installs offline into a fresh venv, and its console script and Python
# module answer check, plan, estimate and diagnose; the pre-commit hook runs on a sample repo.
# usage: packaging/test_dist.sh DIST_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dist=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "test-dist: FAIL: $*" >&2; exit 1; }

# 1. Static: ldd finds no dynamic section; runs with no environment at all.
if ldd "$dist/meshplan" >/dev/null 2>&1; then fail "ldd lists libraries: $(ldd "$dist/meshplan")"; fi
version=$(env -i "$dist/meshplan" --version) || fail "--version under env -i"
[[ "$version" == *"verl schemas: "*"newest: "* ]] || fail "--version names no verl schemas: $version"
[[ "$(env -i "$dist/meshplan" model qwen3-8b)" == *"qwen3-8b"* ]] || fail "model under env -i"

# A launch to check: the plan's own verl emit (it passes check), and a broken copy.
launch="$work/launch.sh"
"$dist/meshplan" plan --model qwen2.5-7b-instruct --cluster 1x8xH100-80GB --workload rl \
  --global-batch 256 --mini-batch 64 --rollout-n 4 --emit verl > "$launch" 2>/dev/null
sed 's/data.train_batch_size=256/data.train_batch_size=7/' "$launch" > "$work/broken.sh"

# 2. The wheel in a fresh venv with no package index.
python=/usr/bin/python3
"$python" -m venv "$work/venv"
"$work/venv/bin/pip" install --no-index --quiet "$dist"/meshplan-*.whl
cli="$work/venv/bin/meshplan"
# (the output is captured first: grep -q would close the pipe early under pipefail)
has() { [[ "$1" == *"$2"* ]]; }
has "$("$cli" check "$launch" --json)" '"errors": 0' || fail "console script: check"
has "$("$cli" plan --model qwen3-8b --cluster 1x8xH100-80GB --json)" '"candidates"' || fail "console script: plan"
has "$("$cli" estimate --model qwen3-8b --cluster 1x8xH100-80GB --tp 2 --json)" '"memory"' || fail "console script: estimate"
has "$("$cli" diagnose "$root/tests/fixtures/logs/oom_training_update_actor_rank3.log" --json)" '"oom_training"' \
  || fail "console script: diagnose"
cd "$work"
"$work/venv/bin/python" - "$launch" "$work/broken.sh" "$root/tests/fixtures/logs/oom_training_update_actor_rank3.log" <<'PY'
import sys
import meshplan

launch, broken, log = sys.argv[1:4]
ok = meshplan.check(launch)
assert ok["errors"] == 0, ok
bad = meshplan.check(broken)
assert bad["errors"] >= 1, bad
plan = meshplan.plan(model="qwen3-8b", cluster="1x8xH100-80GB", top=2)
assert len(plan["candidates"]) == 2, plan.keys()
estimate = meshplan.estimate(model="qwen3-8b", cluster="1x8xH100-80GB", tp=2, sequence_parallel=True)
assert estimate["strategy"]["tp"] == 2, estimate["strategy"]
diagnosis = meshplan.diagnose([log])
assert diagnosis["diagnoses"][0]["category"] == "oom_training", diagnosis
try:
    meshplan.plan(model="no-such-model", cluster="1x8xH100-80GB")
except meshplan.MeshplanError as error:
    assert error.returncode == 2 and "no-such-model" in str(error), error
else:
    raise AssertionError("bad input did not raise")
print("python module: check, plan, estimate, diagnose ok")
PY

# 3. The pre-commit hook on a sample repository: the clean launch passes, the broken one fails.
export PRE_COMMIT_HOME="$work/pre-commit-home" PATH="$work/venv/bin:$PATH"
git -C "$work" init -q sample
cp "$launch" "$work/sample/launch.sh"
printf '#!/bin/sh\necho building\n' > "$work/sample/build.sh"  # no launch in it: skipped
git -C "$work/sample" add launch.sh build.sh
(cd "$work/sample" && pre-commit try-repo "$root" meshplan-check --files launch.sh build.sh) >"$work/hook.log" 2>&1 \
  || { cat "$work/hook.log"; fail "pre-commit hook on a clean launch"; }
cp "$work/broken.sh" "$work/sample/broken.sh"
git -C "$work/sample" add broken.sh
if (cd "$work/sample" && pre-commit try-repo "$root" meshplan-check --files broken.sh) >"$work/hook.log" 2>&1; then
  fail "pre-commit hook passed a broken launch"
fi
grep -q 'error\[' "$work/hook.log" || { cat "$work/hook.log"; fail "pre-commit hook output has no finding"; }
echo "test-dist: ok (static binary, wheel in a fresh venv, pre-commit hook)"
