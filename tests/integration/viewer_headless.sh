#!/usr/bin/env bash
# qview headless: renders of deterministic views show the map, the crack
# check passes on a sealed map and fails when a face is left out, soft and
# GL agree (when EGL works here), bad input fails with the file's name.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
q2m_need Q2MAP_BIN Q2MAP_DATA Q2MAP_TMP
q2m_scratch
T="$Q2MAP_TMP"
Q="$Q2MAP_BIN/qview"
if [ ! -x "$Q" ]; then
    echo "SKIP: qview not built (SDL2, libepoxy or EGL missing)"
    exit 0
fi
MAP="$Q2MAP_DATA/viewer/q2tools_q2_areaportal.bsp"
MAP2="$Q2MAP_DATA/viewer/id_q2_light_sun.bsp"

# --- one view and several views, 160x120
"$Q" "$MAP" --render "$T/one.png" --size 160x120 >/dev/null
[ -s "$T/one.png" ] || fail "--render wrote nothing"
"$Q" "$MAP" --views 3 --out-dir "$T/views" --size 160x120 --mode clusters >/dev/null
n=$(ls "$T/views"/view_*.png | wc -l)
[ "$n" -eq 3 ] || fail "--views 3 wrote $n images"
for p in "$T/views"/view_*.png; do
    line=$("$Q" --image-stats "$p")
    cov=$(echo "$line" | sed -E 's/.*, ([0-9.]+) not black.*/\1/')
    awk -v c="$cov" 'BEGIN { exit !(c > 0.9) }' || fail "$p is mostly background: $line"
done
# a view far outside the map shows nothing
"$Q" "$MAP" --render "$T/outside.png" --size 160x120 --camera 30000 30000 30000 0 0 >/dev/null
line=$("$Q" --image-stats "$T/outside.png")
echo "$line" | grep -q " 0.000 not black" || fail "a camera outside the world drew something: $line"
# overlays and modes run
"$Q" "$Q2MAP_DATA/viewer/ericw_q2_liquids.bsp" --render "$T/prt.png" --size 160x120 --wire \
    --prt "$Q2MAP_DATA/viewer/ericw_q2_liquids.prt" --mode lightmap >/dev/null
[ -s "$T/prt.png" ] || fail "overlay render wrote nothing"

# --- crack check: zero on sealed maps, key pixels once a visible face is skipped
for m in "$MAP" "$MAP2"; do
    "$Q" --check-cracks "$m" --views 4 --size 160x120 >"$T/cracks.txt" || fail "crack check failed on $m: $(cat "$T/cracks.txt")"
    grep -q " 0 key pixels in all" "$T/cracks.txt" || fail "crack summary: $(tail -1 "$T/cracks.txt")"
    face=$("$Q" "$m" --face-at-center --size 160x120 | sed -E 's/.*: (-?[0-9]+)$/\1/')
    [ "$face" -ge 0 ] || fail "no face at the centre of view 0"
    set +e
    "$Q" --check-cracks "$m" --views 1 --size 160x120 --skip-face "$face" >"$T/cracks2.txt"
    rc=$?
    set -e
    [ $rc -eq 1 ] || fail "crack check without face $face: exit $rc, want 1"
    grep -Eq "view 0: .*: [1-9][0-9]* key pixels" "$T/cracks2.txt" || fail "no key pixels without face $face: $(cat "$T/cracks2.txt")"
done

# --- soft vs GL: mean absolute error under 4/255 per view
GLOK=0
set +e
"$Q" --compare "$MAP" --views 4 --size 160x120 --max-mae 4 >"$T/compare.txt" 2>&1
rc=$?
set -e
if [ $rc -eq 3 ]; then
    echo "SKIP: GL comparison: $(cat "$T/compare.txt")"
else
    [ $rc -eq 0 ] || fail "compare: $(cat "$T/compare.txt")"
    grep -q "worst mean absolute error" "$T/compare.txt" || fail "compare printed no summary"
    "$Q" "$MAP" --render "$T/gl.png" --renderer gl --size 160x120 >/dev/null
    GLOK=1
    [ -s "$T/gl.png" ] || fail "GL render wrote nothing"
fi

# --- textures through --game: a PNG made by qview itself (a 64x64 view in
# cluster colours) stands in for every texture of the map; soft and GL
# still agree with real textures
"$Q" "$MAP2" --render "$T/tex64.png" --size 64x64 --mode clusters >/dev/null
[ -s "$T/tex64.png" ] || fail "no texture image"
mkdir -p "$T/game"
"$Q" "$MAP" --list-textures >"$T/textures.txt"
[ -s "$T/textures.txt" ] || fail "--list-textures printed nothing"
while read -r name state; do
    [ "$state" = flat ] || fail "texture $name found without --game"
    mkdir -p "$T/game/textures/$(dirname "$name")"
    cp "$T/tex64.png" "$T/game/textures/$name.png"
done <"$T/textures.txt"
"$Q" "$MAP" --game "$T/game" --list-textures >"$T/textures2.txt" 2>/dev/null
grep -q " flat$" "$T/textures2.txt" && fail "textures not found through --game: $(cat "$T/textures2.txt")"
"$Q" "$MAP" --render "$T/flat.png" --size 160x120 >/dev/null
"$Q" "$MAP" --game "$T/game" --render "$T/textured.png" --size 160x120 >/dev/null 2>&1
cmp -s "$T/flat.png" "$T/textured.png" && fail "the textured render equals the flat one"
line=$("$Q" --image-stats "$T/textured.png")
cov=$(echo "$line" | sed -E 's/.*, ([0-9.]+) not key.*/\1/')
awk -v c="$cov" 'BEGIN { exit !(c > 0.99) }' || fail "textured render: $line"
if [ "$GLOK" = 1 ]; then
    "$Q" --compare "$MAP" --game "$T/game" --views 4 --size 160x120 --max-mae 4 >"$T/compare2.txt" 2>/dev/null ||
        fail "textured soft/GL compare: $(cat "$T/compare2.txt")"
fi

# --- bad input
set +e
"$Q" "$T/does_not_exist.bsp" --render "$T/x.png" 2>"$T/err.txt"; rc=$?
set -e
[ $rc -ne 0 ] || fail "missing bsp accepted"
grep -q "does_not_exist.bsp" "$T/err.txt" || fail "error does not name the file: $(cat "$T/err.txt")"
head -c 1000 "$MAP" >"$T/truncated.bsp"
set +e
"$Q" "$T/truncated.bsp" --render "$T/x.png" 2>"$T/err.txt"; rc=$?
"$Q" "$MAP" --size 0x0 --render "$T/x.png" 2>/dev/null; rc2=$?
set -e
[ $rc -ne 0 ] || fail "truncated bsp accepted"
grep -q "truncated.bsp" "$T/err.txt" || fail "truncation error does not name the file"
[ $rc2 -eq 2 ] || fail "bad --size: exit $rc2, want 2"
[ ! -e "$T/x.png" ] || fail "a failed run left an image"
echo "viewer_headless: ok"
