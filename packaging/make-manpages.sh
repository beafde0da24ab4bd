#!/usr/bin/env bash
# make-manpages.sh GUI CLI OUTDIR: writes hetplan.1.gz and hetplan-cli.1.gz from the programs' --help and
# --version (help2man, installed by `make package` from packaging/package-tools.txt). The programs run
# through PATH so the pages say "hetplan", not the build directory.
set -euo pipefail
gui=$1 cli=$2 out=$3
mkdir -p "$out"
bindir=$(mktemp -d)
trap 'rm -rf "$bindir"' EXIT
ln -s "$gui" "$bindir/hetplan"
ln -s "$cli" "$bindir/hetplan-cli"
export PATH="$bindir:$PATH" QT_QPA_PLATFORM=offscreen
help2man --no-info --section=1 \
    --name="plan training of large models on heterogeneous GPU clusters (desktop app)" \
    --output="$out/hetplan.1" hetplan
# hetplan-cli --version says "hetplan X": name the page after the program itself.
help2man --no-info --section=1 --version-string="hetplan-cli $(hetplan-cli --version | awk '{print $2}')" \
    --name="plan training of large models on heterogeneous GPU clusters (command line)" \
    --output="$out/hetplan-cli.1" hetplan-cli
gzip -9nf "$out/hetplan.1" "$out/hetplan-cli.1"
