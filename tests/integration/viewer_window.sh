#!/usr/bin/env bash
# qview's window under Xvfb: keys injected with xdotool move the camera,
# switch the renderer and take screenshots; the screenshots show the map.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
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

wait_for() { # pattern count
    for i in $(seq 300); do
        [ "$(grep -c "$1" "$T/qview.log" || true)" -ge "$2" ] && return 0
        sleep 0.1
    done
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
echo "viewer_window: ok ($(grep renderer "$T/qview.log" | tail -1))"
