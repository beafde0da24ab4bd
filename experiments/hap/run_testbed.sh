#!/usr/bin/env bash
# HAP's heterogeneous-cluster experiment (section 7.2, fig. 13) in the simulator: hap, dp-proportional
# (DP-CP) and dp-even (DP-EV) on hap-testbed and its 8/16/32-GPU subsets, weak scaling with 64 samples per
# GPU (32 for bert-moe). The subsets keep all 8 machines (2 V100 + 6 P100) and use k = 1, 2, 4 GPUs of each,
# as the paper's artifact does (`run_all worker.py k`), so every size has the same V100:P100 mix.
# Precision: fp32 by default, as HAP's own runs (its artifact's config.py sets fp16 = False); pass fp16 to
# see the mixed-precision case, where a V100's tensor cores are 6.7x a P100 instead of 1.7x.
# Models: "paper" (default) uses HAP's own sizes where our examples allow: vgg19-cifar (32x32 CIFAR-10
# images, HAP's Table 1 VGG19), vit-base at 65 tokens (HAP's ViT: 32x32 images in 4x4 patches + [CLS]),
# bert-hap (HAP's 8-layer BERT-Base on the WikiText-2 vocabulary), then bert-base and bert-moe at
# sequence 128; "imagenet" uses vgg19 and vit-base at 224x224 (197 tokens).
# A cell that does not fit GPU memory (CLI exit 3) prints "OOM".
# Usage: experiments/hap/run_testbed.sh [build-dir] [fp32|fp16|bf16] [paper|imagenet]   (a Markdown table)
set -euo pipefail
build=${1:-build}
precision=${2:-fp32}
set=${3:-paper}
if [ "$set" = paper ]; then
  models="vgg19-cifar:0 vit-base:65 bert-hap:128 bert-base:128 bert-moe:128"
else
  models="vgg19:0 vit-base:197 bert-base:128 bert-moe:128"
fi
cli="$build/app/cli/hetplan-cli"
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "| model | GPUs | hap (s) | dp-proportional (s) | dp-even (s) | hap speed-up vs best DP | HAP <= DP-CP <= DP-EV |"
echo "|---|---|---|---|---|---|---|"
for entry in $models; do
  model=${entry%:*}
  seq=()
  [ "${entry#*:}" != 0 ] && seq=(--seq "${entry#*:}")
  per=64
  [ "$model" = bert-moe ] && per=32
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
    printf '{"schema": "hetplan.job/1", "precision": "%s"}\n' "$precision" > "$tmp/job.json"
    row=()
    for planner in hap dp-proportional dp-even; do
      rc=0
      "$cli" plan --cluster "$tmp/c$k.json" --model "example:$model" --job "$tmp/job.json" \
        --gbs $((per * gpus)) "${seq[@]}" --planner "$planner" --out "$tmp/p.json" > /dev/null 2> "$tmp/err" || rc=$?
      if [ "$rc" = 3 ]; then
        row+=(OOM)
      elif [ "$rc" != 0 ]; then
        cat "$tmp/err" >&2
        exit "$rc"
      else
        row+=("$(python3 -c 'import json,sys; print("%.4f" % json.load(open(sys.argv[1]))["estimate"]["iteration_seconds"])' "$tmp/p.json")")
      fi
    done
    verdict=$(python3 - "${row[@]}" <<'PY'
import sys
h, cp, ev = [float("inf") if v == "OOM" else float(v) for v in sys.argv[1:]]
best = min(cp, ev)
speed = "%.2fx" % (best / h) if h < float("inf") and best < float("inf") else "-"
print(speed, "yes" if h <= cp * (1 + 1e-9) and cp <= ev * (1 + 1e-9) else "NO")
PY
)
    echo "| $model | $gpus | ${row[0]} | ${row[1]} | ${row[2]} | ${verdict% *} | ${verdict#* } |"
  done
done
