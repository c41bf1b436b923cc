#!/usr/bin/env bash
# Runs every target of BUILD_DIR/fuzz/meshplan_fuzz (fuzz/fuzz_targets.cpp) for FUZZ_SECONDS
# (default 60), each seeded from the test fixtures it parses, and prints one line per target:
# executions and findings (inputs that crashed, hung, leaked or ran out of memory).
# Usage: scripts/fuzz.sh BUILD_DIR [target...]
set -u
build=${1:?usage: scripts/fuzz.sh BUILD_DIR [target...]}
shift
seconds=${FUZZ_SECONDS:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
fx=$root/tests/fixtures

# The fixtures each target starts from (globs under tests/fixtures), beside fuzz/seeds/<target>/.
seeds_of() {
  case $1 in
    shell_lexer|shell_script|check) echo "verl/*.sh configs/*.sh" ;;
    interpolation|yaml_config) echo "cluster/*.yaml" ;;
    hf_config) echo "models/*/config.json" ;;
    cluster_spec) echo "cluster/*" ;;
    gpu_catalog) echo "gpu_catalog/*.json" ;;
    nccl_tests) echo "nccl/*" ;;
    verl_metrics) echo "verl/console_metrics.log" ;;
    line_reader|diagnose) echo "logs/*.log" ;;
    *) echo "" ;;
  esac
}

fuzzer=$build/fuzz/meshplan_fuzz
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(MESHPLAN_FUZZ_TARGET=list "$fuzzer" 2>/dev/null)
fi

status=0
for target in "${targets[@]}"; do
  corpus=$build/corpus/$target
  findings=$build/findings/$target
  mkdir -p "$corpus" "$findings"
  for glob in $(seeds_of "$target"); do
    for file in $fx/$glob; do [ -f "$file" ] && cp "$file" "$corpus/$(echo "${file#$fx/}" | tr / _)"; done
  done
  [ -d "$root/fuzz/seeds/$target" ] && cp "$root/fuzz/seeds/$target"/* "$corpus/"
  log=$build/findings/$target.log
  MESHPLAN_FUZZ_TARGET=$target "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$findings/" "$corpus" >"$log" 2>&1
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  found=$(find "$findings" -type f | wc -l)
  printf '%-22s %10s executions  %d findings\n' "$target" "${runs:-?}" "$found"
  [ "$found" -eq 0 ] || status=1
done
exit $status
