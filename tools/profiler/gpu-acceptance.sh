#!/usr/bin/env bash
# The profiler's GPU acceptance run: profile gpt2-amp and opt-350m on this machine's GPU at micro-batch 1-8 and
# print measured vs analytic per layer kind. Needs PyTorch with CUDA and a built hetplan-cli.
# usage: tools/profiler/gpu-acceptance.sh DEVICE_TYPE HETPLAN_CLI OUT_DIR   (e.g. H100-SXM build/app/cli/hetplan-cli /tmp/acc)
set -euo pipefail
type=$1 cli=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
python3 -c 'import torch; print("torch", torch.__version__, "CUDA", torch.version.cuda, torch.cuda.get_device_name(0))'
for model in gpt2-amp opt-350m; do
  python3 "$here/hetplan-profile" --model "$model" --device cuda --device-type "$type" --mbs 1,2,4,8 \
      --precision fp16 --out "$out/$model.measured.json"
  "$cli" profile --model "example:$model" --device "$type" --mbs 1,2,4,8 --precision fp16 \
      --out "$out/$model.analytic.json"
  echo "== $model on $type"
  python3 "$here/compare-analytic" "$out/$model.measured.json" "$out/$model.analytic.json"
done
