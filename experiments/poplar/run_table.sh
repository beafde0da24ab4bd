#!/usr/bin/env bash
# Poplar's main experiment on our simulator: poplar-a/b/c with llama-0.5b, ZeRO 0-3, poplar vs its two
# baselines (whale, deepspeed-zero). Global batch of about 2 M tokens as in the paper (1024 x 2048).
# usage: experiments/poplar/run_table.sh [path/to/hetplan-cli]   (prints a Markdown table)
set -u
CLI=${1:-build/app/cli/hetplan-cli}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
iter() { python3 -c "import json,sys; print('%.3f' % json.load(open(sys.argv[1]))['estimate']['iteration_seconds'])" "$1"; }
echo "| cluster | ZeRO | poplar s | whale s | deepspeed-zero s | vs whale | vs deepspeed |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for c in poplar-a poplar-b poplar-c; do
  for z in 0 1 2 3; do
    row=()
    for p in poplar whale deepspeed-zero; do
      if "$CLI" plan --cluster example:$c --model example:llama-0.5b --gbs 1024 --seq 2048 --zero $z \
          --planner $p --out "$OUT/$p.json" --quiet 2>"$OUT/err"; then
        row+=("$(iter "$OUT/$p.json")")
      else
        row+=("none")
      fi
    done
    su() { [[ $1 == none || $2 == none ]] && echo "–" || python3 -c "print('%.2fx' % ($2/$1))"; }
    echo "| $c | $z | ${row[0]} | ${row[1]} | ${row[2]} | $(su ${row[0]} ${row[1]}) | $(su ${row[0]} ${row[2]}) |"
  done
done
