# Thin wrapper over CMake. `make demo` and `make test` are the README's two commands.
SHELL := /bin/bash
JOBS ?= $(shell nproc)
BUILD ?= build
# nvcc is often installed outside PATH; CUDA is compiled whenever it is present.
ifneq ($(wildcard /usr/local/cuda/bin/nvcc),)
  export CUDACXX ?= /usr/local/cuda/bin/nvcc
  export PATH := /usr/local/cuda/bin:$(PATH)
endif
CMAKE_FLAGS ?=
export CCACHE_BASEDIR := $(CURDIR)
FUZZ_SECONDS ?= 60

.PHONY: setup build demo test test-quick sanitize fuzz bench clean

setup:
	@bash scripts/setup.sh

build: setup
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DWF_WERROR=ON $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

# The main job on the bundled real graph: IMM, IC, weighted cascade, k = 50, eps = 0.05.
demo: build
	./$(BUILD)/apps/wildfire/wildfire imm -i data/soc-Epinions1.txt.gz -k 50 -e 0.05 -d IC -w wc

# The whole suite: warning-clean build and tests, then ASan+UBSan tests, then bounded fuzzing.
test: test-quick sanitize fuzz

test-quick: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

sanitize: setup
	cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWF_SANITIZE=ON -DWF_ENABLE_CUDA=OFF \
	  -DWF_BUILD_BENCH=ON -DWF_WERROR=ON >/dev/null
	cmake --build build-sanitize -j $(JOBS)
	cd build-sanitize && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
	  ctest --output-on-failure -j $(JOBS) -LE slow

fuzz: setup
	CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWF_FUZZ=ON \
	  -DWF_ENABLE_CUDA=OFF -DWF_BUILD_BENCH=OFF >/dev/null
	cmake --build build-fuzz -j $(JOBS) --target fuzz_targets
	bash scripts/run_fuzzers.sh build-fuzz $(FUZZ_SECONDS)

bench: build
	@echo "benchmarks are in $(BUILD)/bench; see docs/benchmarks.md"

clean:
	rm -rf build build-sanitize build-fuzz
