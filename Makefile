# Two entry points (see README): `make run` and `make test`. Both install missing Debian packages first,
# then configure once and build incrementally with Ninja + ccache in build/.
BUILD ?= build
# CI (any non-empty CI variable) builds with warnings as errors.
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHETPLAN_WERROR=$(if $(CI),ON,OFF)
JOBS ?= $(shell nproc)

.PHONY: deps configure build run test bench bench-scale bench-consistency clean package fuzz check-sanitize check-nounity

deps:
	@bash packaging/install-deps.sh

$(BUILD)/build.ninja: | deps
	cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS) -DCMAKE_CXX_COMPILER_LAUNCHER=ccache

configure: $(BUILD)/build.ninja

build: deps configure
	cmake --build $(BUILD) -j $(JOBS)

run: build
	@bash packaging/run-example.sh $(BUILD)

test: build
	cd $(BUILD) && QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j $(JOBS)

bench: build
	$(BUILD)/bench/hetplan-bench
	QT_QPA_PLATFORM=offscreen $(BUILD)/bench/hetplan-gui-bench
	QT_QPA_PLATFORM=offscreen bash -c "time $(BUILD)/app/gui/hetplan --startup-time"
	$(MAKE) bench-scale
	$(MAKE) bench-consistency

# Every planner on a seeded grid of mixed clusters (8-256 GPUs): plans that do not fit, false "no plan",
# planners beaten inside their own search space; writes the table to docs/consistency.md.
CONSISTENCY_ARGS ?= 24 256 7 5
bench-consistency: build
	$(BUILD)/bench/hetplan-consistency $(CONSISTENCY_ARGS) > docs/consistency.md

# Every planner at 1024 and 4096 GPUs as a child process: wall time, peak RSS, exit code, iteration time.
SCALE_GPUS ?= 1024,4096
SCALE_TIME_LIMIT ?= 60
bench-scale: build
	/usr/bin/python3 bench/scale_table.py $(BUILD) docs/scale.md --gpus $(SCALE_GPUS) --time-limit $(SCALE_TIME_LIMIT)

# The Debian package: man pages (help2man), cpack, then lintian (fails on errors, lists warnings).
package: build
	@bash packaging/install-deps.sh packaging/package-tools.txt
	cmake --build $(BUILD) --target hetplan_manpages
	cd $(BUILD) && cpack
	lintian --fail-on error --display-info $(BUILD)/hetplan_*.deb

clean:
	rm -rf $(BUILD)

# libFuzzer targets, one per reader (fuzz/): a clang build of the engine only in $(FUZZ_BUILD), each target
# run for FUZZ_SECONDS (FUZZ_JOBS at a time); prints execs/s and coverage per target, fails on a crash.
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_JOBS ?= 1
fuzz:
	@bash packaging/install-deps.sh packaging/fuzz-packages.txt
	cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++-14 \
	    -DHETPLAN_FUZZ=ON -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_all
	FUZZ_JOBS=$(FUZZ_JOBS) bash tools/fuzz/run-fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

# The test suite under ASan+UBSan (build-asan) and the threaded suites under TSan (build-tsan).
check-sanitize:
	@bash packaging/install-deps.sh packaging/sanitize-packages.txt
	JOBS=$(JOBS) bash tools/sanitize/check-sanitize.sh all

# Every source file compiled on its own (build-nounity/), then the suite: the normal build compiles unity
# batches, where a file can lean on an include of its batch neighbour until a new file shifts the batches.
check-nounity: deps
	cmake -S . -B build-nounity -G Ninja $(CMAKE_FLAGS) -DHETPLAN_UNITY_BUILD=OFF -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
	cmake --build build-nounity -j $(JOBS)
	cd build-nounity && QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j $(JOBS)
