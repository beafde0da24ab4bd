#!/bin/bash
# Screenshots of the app in a real window (Xvfb + openbox), every main tab after an example run, at the
# window sizes given (default 1024x700 1280x800 1920x1080):
#   tools/window-shots.sh [BUILD_DIR] [OUT_DIR] [WxH ...]
# The screen is made a little larger than the window so the app's first launch (90 % of the screen, at most
# 1400x900) lays its docks out for that size; wider windows are then resized as a user maximising would.
# Needs the Debian packages xvfb, openbox, xdotool and imagemagick (not build dependencies).
# EXAMPLE=cluster:model and PLANNERS=a,b,c choose the run.
set -euo pipefail
build=${1:-build}
out=${2:-/tmp/hetplan-window-shots}
shift $(( $# >= 2 ? 2 : $# ))
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(1024x700 1280x800 1920x1080)
example=${EXAMPLE:-amp-het-cluster:gpt2-amp}
planners=${PLANNERS:-amp,megatron,annealing,random,uniform,hethub,ditto}
for tool in Xvfb openbox xdotool import; do
    command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install xvfb openbox xdotool imagemagick)"; exit 1; }
done
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
mkdir -p "$out"
for size in "${sizes[@]}"; do
    w=${size%x*} h=${size#*x}
    sw=$(( w * 10 / 9 + 2 )) sh=$(( h * 10 / 9 + 2 ))
    export DISPLAY=:97
    Xvfb :97 -screen 0 "${sw}x${sh}x24" >/dev/null 2>&1 & xvfb=$!
    sleep 1
    openbox >/dev/null 2>&1 & wm=$!
    sleep 1
    rm -rf "$home"/*
    HOME=$home XDG_CONFIG_HOME=$home/.config "$build/app/gui/hetplan" --example "$example" --run "$planners" \
        >"$home/app.log" 2>&1 & app=$!
    sleep 6 # start, open the example, run the planners
    win=$(xdotool search --name hetplan | tail -1)
    xdotool windowactivate "$win"
    if [ "$w" -gt 1400 ] || [ "$h" -gt 900 ]; then
        xdotool windowsize "$win" "$w" "$h"
        xdotool windowmove "$win" 0 0
        sleep 2
    fi
    for tab in 0 1 2 3 4 5 6 7 8; do # Ctrl+Tab walks the main tabs
        import -window "$win" "$out/${size}-tab$tab.png"
        xdotool key ctrl+Tab
        sleep 1
    done
    kill "$app" "$wm" "$xvfb" 2>/dev/null || true
    wait 2>/dev/null || true
done
echo "wrote $(ls "$out" | wc -l) images into $out"
