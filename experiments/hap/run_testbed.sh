#!/usr/bin/env bash
# HAP's heterogeneous-cluster experiment (section 7.2, fig. 13) in the simulator: hap, dp-proportional
# (DP-CP) and dp-even (DP-EV) on hap-testbed and its 8/16/32-GPU subsets, weak scaling with 64 samples per
# GPU. The subsets keep all 8 machines (2 V100 + 6 P100) and use k = 1, 2, 4 GPUs of each, as the paper's
# artifact does (`run_all worker.py k`), so every size has the same V100:P100 mix.
# Usage: experiments/hap/run_testbed.sh [build-dir]   (prints a Markdown table)
set -euo pipefail
build=${1:-build}
cli="$build/app/cli/hetplan-cli"
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "| model | GPUs | hap (s) | dp-proportional (s) | dp-even (s) | hap speed-up vs best DP |"
echo "|---|---|---|---|---|---|"
for model in vgg19 vit-base bert-base; do
  seq=()
  [ "$model" = bert-base ] && seq=(--seq 128)
  for k in 1 2 4 8; do
    python3 - "$src/resources/clusters/hap-testbed.json" "$tmp/c$k.json" "$k" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
for n in c["nodes"]:
    n["gpus"] = int(sys.argv[3])
c["name"] = "hap-testbed-%d" % (8 * int(sys.argv[3]))
json.dump(c, open(sys.argv[2], "w"))
PY
    gpus=$((8 * k))
    row=()
    for planner in hap dp-proportional dp-even; do
      "$cli" plan --cluster "$tmp/c$k.json" --model "example:$model" --gbs $((64 * gpus)) "${seq[@]}" \
        --planner "$planner" --out "$tmp/p.json" > /dev/null
      row+=("$(python3 -c 'import json,sys; print("%.3f" % json.load(open(sys.argv[1]))["estimate"]["iteration_seconds"])' "$tmp/p.json")")
    done
    best=$(python3 -c "print('%.2fx' % (min(${row[1]}, ${row[2]}) / ${row[0]}))")
    echo "| $model | $gpus | ${row[0]} | ${row[1]} | ${row[2]} | $best |"
  done
done
