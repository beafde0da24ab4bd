#!/usr/bin/env bash
# tst_deb_package BUILD_DIR CPACK VERSION: packs the built tree with CPack into a temporary directory,
# unpacks the .deb with `dpkg -x` into a temporary root and runs the installed programs from there (no
# build-tree paths, a fresh HOME). Checks the control fields (Depends names the package of every library
# the binaries link, plus the SQLite driver plugin), the desktop integration files and their shared id.
# Exits 77 (CTest SKIP) without dpkg-deb / dpkg-shlibdeps (no Debian packaging tools on this machine).
set -euo pipefail
build=$1 cpack=$2 version=$3
for tool in dpkg-deb dpkg-shlibdeps; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
id=io.github.hetplan.Hetplan
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
check_file() { [ -s "$root/$1" ] || fail "package lacks $1"; }

# 1. Pack (installs the already built tree; nothing is compiled or linked).
start=$(date +%s)
"$cpack" -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/pack" >"$tmp/cpack.log" 2>&1 \
  || { cat "$tmp/cpack.log"; fail "cpack failed"; }
echo "cpack took $(( $(date +%s) - start )) s"
debs=("$tmp"/pack/hetplan_*.deb)
[ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] || fail "expected one hetplan_*.deb, got: ${debs[*]}"
deb=${debs[0]}

# 2. Control fields.
[ "$(dpkg-deb -f "$deb" Package)" = hetplan ] || fail "Package is not hetplan"
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "Version $(dpkg-deb -f "$deb" Version) != $version"
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
# has_dep PKG: PKG is one of the Depends entries (or alternatives), version constraints aside.
has_dep() { echo "$depends" | tr ',|' '\n\n' | sed 's/^ *//; s/ .*//' | grep -Fxq "$1"; }

# 3. Unpack and check the files a desktop install needs.
root=$tmp/root
dpkg -x "$deb" "$root"
for f in usr/bin/hetplan usr/bin/hetplan-cli \
         usr/share/applications/$id.desktop usr/share/metainfo/$id.metainfo.xml \
         usr/share/mime/packages/$id.xml usr/share/icons/hicolor/scalable/apps/$id.svg \
         usr/share/doc/hetplan/copyright usr/share/doc/hetplan/changelog.gz; do
  check_file "$f"
done
for size in 16 32 48 128 256; do
  png=usr/share/icons/hicolor/${size}x${size}/apps/$id.png
  check_file "$png"
  # PNG signature, then the IHDR width and height (big-endian u32 at bytes 16 and 20).
  [ "$(head -c 8 "$root/$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$png is not a PNG"
  dims=$(od -An -j16 -N8 -tu1 "$root/$png" | awk '{print $3*256+$4 "x" $7*256+$8}')
  [ "$dims" = "${size}x${size}" ] || fail "$png is $dims"
done
changelog_version=$(zcat "$root/usr/share/doc/hetplan/changelog.gz" | head -1 | sed -n 's/^hetplan (\([^)]*\)).*/\1/p')
[ "$changelog_version" = "$version" ] || fail "changelog's top entry is '$changelog_version', package is $version"

# 4. Every library a binary links comes from a package named in Depends.
package_of() {  # the package that installed a library path on this machine (merged-/usr aware)
  [ -n "$1" ] || return 1
  { dpkg -S "$1" 2>/dev/null || dpkg -S "$(readlink -f "$1")" 2>/dev/null || dpkg -S "/usr$1" 2>/dev/null; } \
    | head -1 | cut -d: -f1
}
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
for bin in "$root"/usr/bin/*; do
  # Shipped programs name no path of the trees they were built from: stripped, and every resource (examples,
  # user guide, catalog) compiled in, so nothing is looked up in the build or source tree.
  for tree in "$(cd "$build" && pwd)" "$source_dir"; do
    grep -aqF "$tree" "$bin" && fail "$bin names the build or source tree $tree"
  done
  [ -z "$(readelf -d "$bin" | grep -E 'RPATH|RUNPATH')" ] || fail "$bin has an RPATH/RUNPATH"
  ldd "$bin" | grep -q 'not found' && fail "$bin: $(ldd "$bin" | grep 'not found')"
  for soname in $(objdump -p "$bin" | awk '/NEEDED/ {print $2}'); do
    # "soname => path (addr)", or "path (addr)" for the dynamic loader
    path=$(ldd "$bin" | awk -v s="$soname" '{ n = split($1, p, "/") } $1 == s { print $3 } n > 1 && p[n] == s { print $1 }')
    [ -n "$path" ] || fail "$(basename "$bin"): ldd does not resolve $soname"
    pkg=$(package_of "$path")
    echo "$(basename "$bin") links $soname from $pkg"
    has_dep "$pkg" || fail "$(basename "$bin") links $soname from $pkg, which Depends does not name"
  done
done

# 5. The desktop entry, the icon, the MIME type and the metainfo agree on one id and on what is installed.
desktop=$root/usr/share/applications/$id.desktop
exec_bin=$(sed -n 's/^Exec=\([^ ]*\).*/\1/p' "$desktop")
[ -x "$root/usr/bin/$exec_bin" ] || fail "Exec=$exec_bin is not an installed program"
[ "$(sed -n 's/^Icon=//p' "$desktop")" = "$id" ] || fail "Icon= is not $id"
mime=$(sed -n 's/^MimeType=\([^;]*\);.*/\1/p' "$desktop")
grep -q "<mime-type type=\"$mime\">" "$root/usr/share/mime/packages/$id.xml" || fail "MIME XML lacks $mime"
grep -q '<glob pattern="\*.hetplan"/>' "$root/usr/share/mime/packages/$id.xml" || fail "MIME XML lacks *.hetplan"
grep -q "<launchable type=\"desktop-id\">$id.desktop</launchable>" "$root/usr/share/metainfo/$id.metainfo.xml" \
  || fail "metainfo does not launch $id.desktop"
if command -v update-mime-database >/dev/null; then  # compiles the XML as the package's trigger will
  cp -r "$root/usr/share/mime" "$tmp/mime"
  update-mime-database "$tmp/mime" || fail "update-mime-database rejects the MIME XML"
  grep -qx "[0-9]*:$mime:\*\.hetplan" "$tmp/mime/globs2" || fail "compiled MIME database lacks *.hetplan -> $mime"
  grep -q HETP "$tmp/mime/magic" || fail "compiled MIME magic lacks the 'HETP' application_id"
fi
if command -v desktop-file-validate >/dev/null; then desktop-file-validate "$desktop" || fail "desktop-file-validate"; fi
if command -v appstreamcli >/dev/null; then
  appstreamcli validate --no-net "$root/usr/share/metainfo/$id.metainfo.xml" >/dev/null || fail "appstreamcli validate"
fi

# 6. Run the installed programs from a directory outside the build tree, with a fresh HOME.
cd "$tmp"
export HOME=$tmp/home XDG_CONFIG_HOME=$tmp/home/.config QT_QPA_PLATFORM=offscreen
mkdir -p "$HOME"
[ "$("$root/usr/bin/hetplan-cli" --version)" = "hetplan $version" ] || fail "hetplan-cli --version"
"$root/usr/bin/hetplan-cli" plan --cluster example:amp-het-cluster --model example:gpt2-amp --planner megatron \
    --quiet --out "$tmp/plan.json" || fail "hetplan-cli plan exited $?"
grep -q '"schema": "hetplan.plan/1"' "$tmp/plan.json" || fail "plan.json is not a hetplan.plan/1 plan"
QT_DEBUG_PLUGINS=1 "$root/usr/bin/hetplan" --example amp-het-cluster:gpt2-amp --run megatron \
    --screenshots "$tmp/shots" 2>"$tmp/gui.log" || { tail -20 "$tmp/gui.log"; fail "hetplan --screenshots exited"; }
for shot in canvas gantt model run; do
  [ -s "$tmp/shots/$shot.png" ] || fail "hetplan --screenshots wrote no $shot.png"
done
# Qt plugins are dlopened, so ELF headers do not show them: each one the run loaded must be in Depends too.
plugins=$(sed -n 's/.*"\([^"]*\/plugins\/[^"]*\.so\)" loaded library.*/\1/p' "$tmp/gui.log" | sort -u)
[ -n "$plugins" ] || fail "QT_DEBUG_PLUGINS showed no loaded plugin (the platform plugin at least)"
for plugin in $plugins; do
  pkg=$(package_of "$plugin")
  echo "plugin $plugin from $pkg"
  has_dep "$pkg" || fail "hetplan loaded $plugin from $pkg, which Depends does not name"
done
echo "PASS: $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB) installs into a temporary root and runs"
