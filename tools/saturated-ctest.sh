#!/usr/bin/env bash
# Runs the whole test suite on a saturated machine: `ctest -j4` with two busy loops per core beside it,
# RUNS times in a row (default 3). Tests must pass however busy the machine is (docs/architecture.md,
# "Tests on a busy machine"). Usage: tools/saturated-ctest.sh [BUILD_DIR] [RUNS]
set -euo pipefail
build="${1:-build}"
runs="${2:-3}"
cores="$(nproc)"
loops=()
stop_loops() { for pid in "${loops[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap stop_loops EXIT
for _ in $(seq 1 $((2 * cores))); do
    (while :; do :; done) &
    loops+=("$!")
done
failed=0
for run in $(seq 1 "$runs"); do
    echo "== saturated run $run of $runs (load: $(cut -d' ' -f1-3 /proc/loadavg))"
    start=$(date +%s)
    if (cd "$build" && QT_QPA_PLATFORM=offscreen ctest -j4 --output-on-failure); then
        echo "== run $run passed in $(( $(date +%s) - start )) s"
    else
        echo "== run $run FAILED after $(( $(date +%s) - start )) s"
        failed=$((failed + 1))
    fi
done
echo "== $((runs - failed)) of $runs saturated runs passed"
[ "$failed" -eq 0 ]
