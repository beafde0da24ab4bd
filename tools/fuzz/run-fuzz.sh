#!/usr/bin/env bash
# `make fuzz`: runs every libFuzzer target of BUILD for SECONDS each and prints one line per
# target from libFuzzer's final status line (execs/s, cov:, ft:). Targets run FUZZ_JOBS at a time
# (default 1). Each works on a corpus under BUILD/fuzz-work/<target> seeded from fuzz/corpus/<target>;
# a crash leaves its input in BUILD/fuzz-work/<target>/crash-* and fails the run: copy it to
# fuzz/regressions/<target>/ once fixed, where the normal build's ctest replays it.
# Usage: run-fuzz.sh BUILD SECONDS [TARGET...]
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd); seconds=$2; shift 2
jobs=${FUZZ_JOBS:-1}
cd "$root"
if [[ $# -gt 0 ]]; then targets=("$@"); else
  mapfile -t targets < <(find "$build/fuzz" -maxdepth 1 -type f -executable -name 'fuzz_*' -printf '%f\n' |
                         sed 's/^fuzz_//' | sort); fi
work=$build/fuzz-work
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export TMPDIR=${TMPDIR:-/dev/shm}   # the entries write each input to a scratch file

run_one() {
  local t=$1
  local dir=$work/$t
  mkdir -p "$dir/corpus"
  "$build/fuzz/fuzz_$t" -max_total_time="$seconds" -print_final_stats=1 -max_len=65536 -timeout=25 \
    -rss_limit_mb=2048 -artifact_prefix="$dir/" "$dir/corpus" "fuzz/corpus/$t" >"$dir/log" 2>&1
  echo $? >"$dir/rc"
}
export -f run_one; export build seconds work
rm -f "$work"/*/rc "$work"/*/log
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one {}'

status=0
printf '%-18s %6s %10s %8s %8s %8s  %s\n' target rc runs execs/s cov ft result
for t in "${targets[@]}"; do
  dir=$work/$t; rc=$(cat "$dir/rc" 2>/dev/null || echo '?')
  last=$(grep -E '^#[0-9]+' "$dir/log" | tail -1)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log")
  execs=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log")
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last"); ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  crashes=$(ls "$dir"/crash-* "$dir"/leak-* "$dir"/timeout-* "$dir"/oom-* 2>/dev/null | wc -l)
  result=ok; if [[ $rc != 0 || $crashes != 0 ]]; then result="FAILED ($crashes artifact(s), log $dir/log)"; status=1; fi
  printf '%-18s %6s %10s %8s %8s %8s  %s\n' "$t" "$rc" "${runs:-?}" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$result"
done
exit $status
