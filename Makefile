# Thin wrapper over CMake/ctest for the README's commands.
#   make demo   build the CLI and the demo program, record a demo trace, convert it to Parquet
#               and a trace
#   make test   install test deps (plain Debian packages, npm), build and run the whole suite
#               (plain, ASan+UBSan, TSan, fuzz); changes nothing in the host's apt configuration
#   make test-deps  what the release tests need beyond that, changing the host's apt
#               configuration (says what it changes): the arm64 foreign architecture, deb-src
#               lines; without them those tests report themselves skipped. CI runs it first.
#   make test-fuzz  build the libFuzzer targets (clang) and run each for FUZZ_SECONDS (45)
#   make bench  build optimised and run the benchmarks
#   make release  static CLI archives + checksums in $(RELEASE_DIR) (scripts/release.sh)
# SPDX-License-Identifier: MIT
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

# A test that fails is run once more before the pass fails (timing-sensitive concurrent tests on a
# loaded 2-CPU machine; a deterministic failure still fails twice). CTEST_RETRY= turns it off.
CTEST_RETRY ?= --repeat until-pass:2

.PHONY: all demo test test-deps test-plain test-asan test-tsan test-fuzz bench clean release

all:
	./scripts/install-deps.sh
	cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null
	cmake --build build -j$(JOBS)

demo:
	./scripts/install-deps.sh
	cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null
	cmake --build build -j$(JOBS) --target backbeat_cli demo
	./scripts/demo.sh build

test:
	./scripts/install-deps.sh --test
	$(MAKE) test-plain test-asan test-tsan test-fuzz

test-deps:
	./scripts/install-deps.sh --test --host-config

test-plain:
	cmake -S . -B build-test -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBB_WERROR=ON >/dev/null
	cmake --build build-test -j$(JOBS)
	cd build-test && ../scripts/ctest.sh --output-on-failure $(CTEST_RETRY) -j$(JOBS)

test-asan:
	CC=clang CXX=clang++ cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DBB_WERROR=ON \
	  -DBB_SANITIZE=address,undefined >/dev/null
	cmake --build build-asan -j$(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1 ../scripts/ctest.sh --output-on-failure $(CTEST_RETRY) -j$(JOBS) -LE no-sanitize

test-tsan:
	cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBB_WERROR=ON \
	  -DBB_SANITIZE=thread >/dev/null
	cmake --build build-tsan -j$(JOBS)
	cd build-tsan && ../scripts/ctest.sh --output-on-failure $(CTEST_RETRY) -j$(JOBS) -L concurrent

# libFuzzer targets under ASan+UBSan (fuzz/run.sh: -rss_limit_mb=2048 -timeout=10, fails on any
# report). FUZZ_SECONDS=3600 make test-fuzz runs each for an hour.
FUZZ_SECONDS ?= 45
# (fuzz_reader, the reader alone, is built too: FUZZ_TARGETS=fuzz_reader runs it; the CLI targets
# cover the reader as well. fuzz_dataset appends a dump to a dataset whose partitioning, part
# counter, journal and index files are fuzzed.)
FUZZ_TARGETS ?= fuzz_cli_convert_parquet fuzz_cli_convert_trace fuzz_cli_merge fuzz_cli_inspect \
  fuzz_ringfile fuzz_dataset
test-fuzz:
	CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBB_WERROR=ON \
	  -DBB_SANITIZE=address,undefined -DBB_FUZZ=ON >/dev/null
	cmake --build build-fuzz -j$(JOBS) --target $(FUZZ_TARGETS) fuzz_reader cli_gen robust_gen \
	  gen_scale ring_gen
	for t in $(FUZZ_TARGETS); do FUZZ_BUILD=build-fuzz ./fuzz/run.sh $$t $(FUZZ_SECONDS) || exit 1; done

bench:
	./scripts/install-deps.sh --test
	cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build build-bench -j$(JOBS)
	./scripts/bench.sh build-bench

RELEASE_DIR ?= out/release
release:
	./scripts/install-deps.sh --static
	./scripts/release.sh $(RELEASE_DIR)

clean:
	rm -rf build build-test build-asan build-tsan build-bench build-fuzz
