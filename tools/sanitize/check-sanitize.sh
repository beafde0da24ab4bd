#!/usr/bin/env bash
# `make check-sanitize`: the whole ctest suite under ASan+UBSan (build-asan), then the threaded
# suites under TSan (build-tsan: only those targets are built, a TSan build of everything is not needed).
# Any sanitizer report fails the run (halt_on_error). Suppressions: tools/sanitize/*.supp, each entry
# explained there. Usage: check-sanitize.sh [asan|asan-engine|tsan|all] (default all; asan-engine builds
# and runs only the suites that need no widgets: core, CLI and fuzz replays, for a quick or busy-machine
# check); JOBS=N sets the parallelism. The package test (label "package") is left out: a sanitizer build is
# not what ships (it links libasan and names the build tree, which that test rightly refuses).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
what=${1:-all}
jobs=${JOBS:-$(nproc)}
here=tools/sanitize
export QT_QPA_PLATFORM=offscreen
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

configure() { # dir, sanitizer flags
  cmake -S . -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
    -DHETPLAN_WERROR=OFF -DCMAKE_CXX_FLAGS="$2 -fno-omit-frame-pointer" \
    -DCMAKE_EXE_LINKER_FLAGS="$2" -DCMAKE_SHARED_LINKER_FLAGS="$2" >/dev/null
}

# The suites that run work on other threads: the engine's parallel loop (amp, the catalog), the planners'
# cancel path, the sweep, and the GUI's worker hand-off (run controller, live re-planning, replanning).
tsan_tests=(tst_amp tst_planner_conformance tst_catalog tst_template_planners tst_sweep
            tst_worker_thread tst_run_feedback tst_live tst_replan tst_run_outcomes tst_live_window
            tst_replan_window)

# The suites that link neither hetplan_widgets nor hetplan_gui, and the fuzz corpus replays.
engine_tests=($(sed -n 's/^hetplan_test(\([a-z_]*\) .*/\1/p' tests/CMakeLists.txt | sort -u |
                while read -r t; do grep -qE "^hetplan_test\($t .*hetplan_(widgets|gui)" tests/CMakeLists.txt || echo "$t"; done))

if [[ $what == asan || $what == asan-engine || $what == all ]]; then
  configure build-asan "-fsanitize=address,undefined -fno-sanitize-recover=undefined"
  tests_regex=""
  if [[ $what == asan-engine ]]; then
    cmake --build build-asan -j "$jobs" --target hetplan-cli hetplan-fuzz-replay "${engine_tests[@]}"
    tests_regex="^(fuzz_.*|$(IFS='|'; echo "${engine_tests[*]}"))\$"
  else
    cmake --build build-asan -j "$jobs"
  fi
  ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1" \
  LSAN_OPTIONS="suppressions=$root/$here/lsan.supp:print_suppressions=0" \
    ctest --test-dir build-asan --output-on-failure -j "$jobs" --timeout 1200 -LE package ${tests_regex:+-R "$tests_regex"}
fi

if [[ $what == tsan || $what == all ]]; then
  configure build-tsan "-fsanitize=thread"
  cmake --build build-tsan -j "$jobs" --target hetplan-cli "${tsan_tests[@]}"
  regex="^($(IFS='|'; echo "${tsan_tests[*]}"))\$"
  TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$root/$here/tsan.supp" \
    ctest --test-dir build-tsan --output-on-failure -j "$jobs" --timeout 1800 -R "$regex"
  # The canary: a deliberate race between a WorkerThread job and a GUI-thread slot must still be reported
  # with these suppressions, or they hide real races.
  canary=$(HETPLAN_TSAN_CANARY=1 TSAN_OPTIONS="halt_on_error=1:exitcode=66:suppressions=$root/$here/tsan.supp" \
             build-tsan/tests/tst_worker_thread canaryRaceIsReported 2>&1) && rc=0 || rc=$?
  if [[ $rc -ne 66 ]] || ! grep -q "WARNING: ThreadSanitizer: data race" <<<"$canary"; then
    echo "check-sanitize: TSan did not report tst_worker_thread's deliberate race (exit $rc): the suppressions hide real races" >&2
    exit 1
  fi
  echo "check-sanitize: TSan reported the deliberate canary race, as it must"
fi
