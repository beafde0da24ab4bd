#!/bin/bash
# Regenerates every image in docs/screenshots/ from a build (offscreen, no display needed):
#   tools/make-screenshots.sh [BUILD_DIR]
# The main views come from the app's --screenshots option on examples; the dialogs, menus, large clusters,
# re-planning and live re-planning come from the GUI tests, which save what they check when HETPLAN_SCREENSHOTS
# is set.
set -euo pipefail
build=${1:-build}
out=docs/screenshots
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export QT_QPA_PLATFORM=offscreen HETPLAN_SCREENSHOTS="$tmp/tests"
mkdir -p "$HETPLAN_SCREENSHOTS" "$out"
app="$build/app/gui/hetplan"

# app DIR ARGS...: the app's own PNG per view for one example and run.
app() { local dir="$tmp/$1"; shift; "$app" "$@" --screenshots "$dir" >/dev/null 2>"$tmp/app.log" || { cat "$tmp/app.log"; exit 1; }; }
app amp --example amp-het-cluster:gpt2-amp --run amp,megatron,annealing,random,uniform
cp "$tmp/amp/"*.png "$out/" # every view the app has (its plan-view list), canvas, run and model

echo '{"global_batch_size": 1024, "sequence_length": 1024}' > "$tmp/hethub-job.json"
echo '{"global_batch_size": 1024}' > "$tmp/hap-job.json"
app ditto --example ditto-ex3:gpt2-xl --profile example:gpt2-xl-ditto --run ditto
app hethub --example hethub-pair:llama2-7b --job "$tmp/hethub-job.json" --run hethub
app hap --example hap-testbed:vgg19 --job "$tmp/hap-job.json" --run hap
app poplar --example poplar-c:llama-0.5b --run poplar
cp "$tmp/ditto/details.png" "$out/details-ditto.png"
cp "$tmp/hethub/details.png" "$out/details-hethub.png"
cp "$tmp/hap/details.png" "$out/details-hap.png"
cp "$tmp/poplar/gantt.png" "$out/gantt-poplar.png"
# HetHub's plan for gpt2-amp on AMP's cluster runs interleaved 1F1B (2 chunks per stage) with Megatron's options.
app interleaved --example amp-het-cluster:gpt2-amp --run hethub
cp "$tmp/interleaved/gantt.png" "$out/gantt-interleaved.png"

for t in tst_views tst_gantt_view tst_large_views tst_project_window tst_window_context tst_replan_window tst_window_shortcuts \
         tst_run_outcomes tst_live_window tst_plan_pair tst_whatif_window; do
    "$build/tests/$t" >"$tmp/$t.log" 2>&1 || { cat "$tmp/$t.log"; exit 1; }
done
for f in gantt-hap stagemap-hap curves-poplar gantt-256 stagemap-1024 critical-path tree-menu import-error \
         profile-flag window-1024x700 replan-failed-node keyboard-shortcuts cancelled-run \
         comparison-failed-planner live-replan summary two-plans whatif; do
    cp "$HETPLAN_SCREENSHOTS/$f.png" "$out/"
done
echo "wrote $(ls "$out" | wc -l) images into $out"
