#!/usr/bin/env bash
# qview's window under Xvfb: keys injected with xdotool move the camera,
# switch the renderer and take screenshots; the screenshots show the map.
# Then watch mode: the window shows the first compile of a room; after the
# camera moved, a save with the pillar moved is compiled and swapped in
# under the same camera: the next screenshot is the moved map from exactly
# that camera (equal to a headless render of it); F5 compiles again, F6
# switches the preset; a save with a syntax error is reported with
# file:line and leaves the picture as it was. An unlit bsp gets a window
# title that says it is drawn fullbright.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/viewer_room.sh"
q2m_need Q2MAP_BIN Q2MAP_DATA Q2MAP_TMP
q2m_scratch
T="$Q2MAP_TMP"
Q="$Q2MAP_BIN/qview"
fail() { echo "FAIL: $*" >&2; cat "$T/qview.log" >&2 2>/dev/null || true; exit 1; }
if [ ! -x "$Q" ]; then echo "SKIP: qview not built"; exit 0; fi
for tool in Xvfb xdotool; do
    command -v $tool >/dev/null || { echo "SKIP: $tool not installed"; exit 0; }
done
# X11 and SDL keep allocations until exit; they are not this program's leaks.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"

# A free display number.
D=
for n in $(seq 90 140); do
    if [ ! -e "/tmp/.X$n-lock" ] && [ ! -e "/tmp/.X11-unix/X$n" ]; then D=$n; break; fi
done
[ -n "$D" ] || fail "no free X display number"
Xvfb ":$D" -screen 0 640x480x24 -nolisten tcp >"$T/xvfb.log" 2>&1 &
XPID=$!
QPID=
cleanup() {
    [ -n "$QPID" ] && kill "$QPID" 2>/dev/null || true
    kill "$XPID" 2>/dev/null || true
    wait 2>/dev/null || true
}
trap cleanup EXIT
export DISPLAY=":$D"
for i in $(seq 50); do xdotool getmouselocation >/dev/null 2>&1 && break; sleep 0.1; done

"$Q" "$Q2MAP_DATA/viewer/q2tools_q2_areaportal.bsp" --size 160x120 --threads 2 --shot-dir "$T/shots" \
    >"$T/qview.log" 2>&1 &
QPID=$!
WID=$(timeout 30 xdotool search --sync --name '^qview$' | head -1) || fail "no qview window"
xdotool windowfocus --sync "$WID" || true

LOG="$T/qview.log"
wait_for() { # pattern count
    for i in $(seq 300); do
        [ "$(grep -c -- "$1" "$LOG" || true)" -ge "$2" ] && return 0
        sleep 0.1
    done
    cat "$LOG" >&2
    fail "timed out waiting for '$1'"
}
xdotool key F12
wait_for "screenshot" 1
xdotool keydown w; sleep 0.2; xdotool keyup w
xdotool key Left Left
xdotool key r
wait_for "renderer" 1
xdotool key c
wait_for "screenshot" 2
xdotool key m
wait_for "mode lightmap" 1
xdotool key Escape
for i in $(seq 150); do kill -0 "$QPID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$QPID" 2>/dev/null && fail "Escape did not close the window"
wait "$QPID" || fail "qview exited with an error"
QPID=

n=$(ls "$T/shots"/qview_*.png 2>/dev/null | wc -l)
[ "$n" -eq 2 ] || fail "want 2 screenshots, found $n"
for p in "$T/shots"/qview_*.png; do
    line=$("$Q" --image-stats "$p")
    echo "$line"
    echo "$line" | grep -q " 160x120," || fail "screenshot size: $line"
    cov=$(echo "$line" | sed -E 's/.*, ([0-9.]+) not black.*/\1/')
    colors=$(echo "$line" | sed -E 's/.* ([0-9]+) colours$/\1/')
    awk -v c="$cov" -v k="$colors" 'BEGIN { exit !(c > 0.9 && k >= 2) }' || fail "screenshot does not show the map: $line"
done
# moving and turning changed the picture
cmp -s "$T/shots/qview_0000.png" "$T/shots/qview_0001.png" && fail "the camera did not move"

# --- an unlit bsp (qbsp alone): drawn fullbright, the title says so
U="$T/unlit"
mkdir -p "$U"
viewer_room 0 | viewer_save "$U/room.map"
"$Q2MAP_BIN/qbsp" -threads 2 "$U/room.map" >"$U/qbsp.log" 2>&1 || fail "qbsp of the unlit room"
LOG="$U/qview.log"
"$Q" "$U/room.bsp" --size 160x120 --threads 2 >"$LOG" 2>&1 &
QPID=$!
timeout 30 xdotool search --sync --name '^qview \(unlit: drawn fullbright\)$' >/dev/null ||
    fail "no window titled as unlit"
xdotool key Escape
for i in $(seq 150); do kill -0 "$QPID" 2>/dev/null || break; sleep 0.1; done
wait "$QPID" || fail "qview on an unlit bsp exited with an error"
QPID=
grep -q "no lighting data (an unlit bsp): drawn fullbright" "$LOG" || fail "no note of the unlit bsp: $(cat "$LOG")"

# --- watch mode
W="$T/watch"
mkdir -p "$W/tmp"
viewer_room 0 | viewer_save "$W/room.map"
LOG="$W/qview.log"
TMPDIR="$W/tmp" "$Q" --watch "$W/room.map" -threads 2 --size 160x120 --threads 2 --shot-dir "$W/shots" \
    >"$LOG" 2>&1 &
QPID=$!
WID=$(timeout 30 xdotool search --sync --name '^qview: room.map$' | head -1) || fail "no watch window"
xdotool windowfocus --sync "$WID" || true
wait_for "compile 1 swapped in" 1
cam1=$(sed -nE 's/.*compile 1 swapped in.*camera (.*)$/\1/p' "$LOG")
# move away from the player start (one tap: a step of 8 units, a little
# more if a frame falls inside it, so both places of the pillar stay in
# view), turn, then a screenshot
xdotool key w
xdotool key Left
xdotool key F12
wait_for "screenshot" 1
camA=$(grep "screenshot" "$LOG" | sed -nE '1s/.* camera (.*)$/\1/p')
[ "$camA" != "$cam1" ] || fail "the camera did not move before the save"
# the save
viewer_room 128 | viewer_save "$W/room.map"
wait_for "compile 2 swapped in" 1
cam2=$(sed -nE 's/.*compile 2 swapped in.*camera (.*)$/\1/p' "$LOG")
[ "$cam2" = "$camA" ] || fail "the camera moved with the swap: $camA before, $cam2 after"
xdotool key F12
wait_for "screenshot" 2
camB=$(grep "screenshot" "$LOG" | sed -nE '2s/.* camera (.*)$/\1/p')
[ "$camB" = "$camA" ] || fail "the camera is not where it was: $camA before, $camB after"
# F5: one more compile of the same map, swapped in again; the render
# modes work on the new world, and F6 switches the preset and compiles
xdotool key F5
wait_for "compile 3 swapped in" 1
xdotool key m
wait_for "mode lightmap" 1
xdotool key F6
wait_for "preset final" 1
wait_for "compile 4 swapped in" 1
# a syntax error: the failure is logged with file:line and the last good
# map stays on screen
xdotool key F12
wait_for "screenshot" 3
viewer_room_broken | viewer_save "$W/room.map"
wait_for "compile 5 failed: $W/room.map:10:1: " 1
xdotool key F12
wait_for "screenshot" 4
cmp -s "$W/shots/qview_0002.png" "$W/shots/qview_0003.png" || fail "a failed compile changed the picture"
viewer_room 128 | viewer_save "$W/room.map"
wait_for "compile 6 swapped in" 1
xdotool key Escape
for i in $(seq 150); do kill -0 "$QPID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$QPID" 2>/dev/null && fail "Escape did not close the watch window"
wait "$QPID" || { cat "$LOG" >&2; fail "qview --watch exited with an error"; }
QPID=
r=$(pgrep -f -- "$W/" || true)
[ -z "$r" ] || fail "left running after the watch window closed: $r"
[ -z "$(ls -A "$W/tmp")" ] || fail "left in TMPDIR: $(ls -A "$W/tmp")"
cmp -s "$W/shots/qview_0000.png" "$W/shots/qview_0001.png" && fail "the window was not redrawn with the new map"
# The moved room compiled by hand and rendered headless from that camera.
mkdir -p "$W/ref"
cp "$W/room.map" "$W/ref/room.map"
"$Q2MAP_BIN/q2map" compile "$W/ref/room.map" -fast -threads 2 -quiet >"$W/ref/log" 2>&1 || fail "reference compile"
# shellcheck disable=SC2086
"$Q" "$W/ref/room.bsp" --render "$W/ref/moved.png" --size 160x120 --threads 2 --camera $camB >/dev/null
cmp -s "$W/shots/qview_0001.png" "$W/ref/moved.png" || fail "after the save the window does not show the moved map"
echo "viewer_window: ok ($(grep renderer "$T/qview.log" | tail -1); watch: camera kept at $camB)"
