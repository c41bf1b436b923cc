# meshplan — two commands for a fresh Debian 12 machine: `make demo` and `make test`.
# Every target installs the Debian packages it needs first (apt-get, when run as root).

BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
JOBS       ?= $(shell nproc)
CMAKE_GEN  := -G Ninja
# ccache (when installed) shares objects between clones and build folders of this tree.
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1

.PHONY: all deps build test test-release test-asan demo bench clean test-browser dist test-dist fuzz mutate

all: build

deps:
	@./scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

test-release: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

test-asan: deps
	cmake -S . -B $(ASAN_BUILD) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE= -DCMAKE_CXX_FLAGS=-O1 -DMESHPLAN_SANITIZE=ON >/dev/null
	cmake --build $(ASAN_BUILD) -j $(JOBS) --target meshplan_tests fit_efficiency
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS)

test: test-release test-asan

# libFuzzer targets for every parser (fuzz/README.md): each runs FUZZ_SECONDS, one line per target.
fuzz: deps
	@dpkg -s libfuzzer-14-dev >/dev/null 2>&1 || apt-get install -y clang libfuzzer-14-dev
	cmake -S . -B $(FUZZ_BUILD) $(CMAKE_GEN) -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE= \
	  -DCMAKE_CXX_FLAGS="-O1 -g" -DMESHPLAN_FUZZ=ON -DMESHPLAN_WERROR=OFF >/dev/null
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target meshplan_fuzz
	FUZZ_SECONDS=$(FUZZ_SECONDS) ./scripts/fuzz.sh $(FUZZ_BUILD)

# Mutation testing of the core formulas and rules (tools/mutate.py): slow, not part of `test`.
mutate: deps
	python3 tools/mutate.py --jobs $(JOBS)

# The seeds' case: Qwen2.5-VL-7B GRPO on 4 nodes x 8 A100-40GB (settings of verl's
# examples/grpo_trainer/run_qwen2_5_vl-7b.sh): the plan, why, and the launch it recommends.
DEMO_PLAN = ./$(BUILD)/meshplan plan --model qwen2.5-vl-7b-instruct --cluster 4x8xA100-40GB --workload rl \
	  --global-batch 512 --mini-batch 128 --rollout-n 5 --prompt-len 1024 --response-len 2048 \
	  --model-path Qwen/Qwen2.5-VL-7B-Instruct
demo: build
	$(DEMO_PLAN) --top 5 --explain
	$(DEMO_PLAN) --emit verl

# Renders the HTML report in headless Chromium (Debian package `chromium`) and checks that the
# screenshot is not blank.
test-browser: build
	@command -v chromium >/dev/null 2>&1 || (apt-get update && apt-get install -y chromium)
	$(DEMO_PLAN) --html $(BUILD)/plan.html > /dev/null
	chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1000,1600 \
	  --screenshot=$(abspath $(BUILD))/plan.png file://$(abspath $(BUILD))/plan.html
	python3 scripts/png_not_blank.py $(BUILD)/plan.png

# A static x86-64 binary (static glibc, libstdc++, yaml-cpp and zlib from Debian; fmt's compiled
# part from its headers) and a wheel holding it, built offline with Debian's python3-wheel.
# The Release objects are reused: only the link differs.
DIST    ?= dist
VERSION := $(shell grep -m1 '^project' CMakeLists.txt | grep -o 'VERSION [0-9.]*' | cut -d' ' -f2)
LIBDIR  := /usr/lib/x86_64-linux-gnu
dist: build
	@./scripts/install-deps.sh dist
	mkdir -p $(DIST)
	rm -f $(DIST)/meshplan-*.whl
	$(CXX) -std=c++20 -O2 -Isrc -static -s -pthread -o $(DIST)/meshplan src/main.cpp packaging/fmt_library.cpp \
	  $(BUILD)/libmeshplan_cli.a $(BUILD)/libmeshplan_core.a $(LIBDIR)/libyaml-cpp.a $(LIBDIR)/libz.a
	/usr/bin/python3 packaging/build_wheel.py $(DIST)/meshplan $(VERSION) $(DIST)

test-dist: dist
	packaging/test_dist.sh $(DIST)

bench: deps
	cmake -S . -B $(BUILD) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Release -DMESHPLAN_BENCH=ON
	cmake --build $(BUILD) -j $(JOBS)
	@for b in $(BUILD)/bench/*; do echo "== $$b"; $$b --benchmark_min_time=0.2 || exit 1; done

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(DIST) $(FUZZ_BUILD) build-mutate
