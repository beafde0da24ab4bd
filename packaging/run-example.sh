#!/usr/bin/env bash
# `make run`: plan a bundled example with the CLI (the GUI is started when a display exists and the
# GUI target is built).
set -euo pipefail
build=${1:-build}
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -x "$build/app/gui/hetplan" ] && [ -z "${CI:-}" ]; then
  exec "$build/app/gui/hetplan" --example amp-het-cluster:gpt2-amp
fi
echo "No display: running the CLI job (for the desktop app use: xvfb-run $build/app/gui/hetplan)."
"$build/app/cli/hetplan-cli" plan --cluster example:amp-het-cluster --model example:gpt2-amp --gbs 32 --planner amp
