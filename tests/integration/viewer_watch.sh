#!/usr/bin/env bash
# qview --watch headless (--render-on-change): on a small room it renders
# the first compile; a moved pillar gives a new picture that differs where
# the pillar was and went and equals a render of the moved map compiled by
# hand; a syntax error gives no picture, the error with file:line and the
# last good picture kept; a leak is reported and shown; two quick saves end
# with the last one's picture; a save during a long compile cancels it and
# the next picture is the new save's; --max-compiles ends the watch and nothing is
# left running or on disk; a signal mid-compile ends it cleanly too. Runs
# once with inotify and once with the polling fallback. A changed texture
# that the map uses gives a new compile as well.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/viewer_room.sh"
q2m_begin
Q="$BIN/qview"
if [ ! -x "$Q" ]; then echo "SKIP: qview not built"; exit 0; fi
SIZE=160x120
W=160

QPID=
cleanup() { [ -n "$QPID" ] && kill "$QPID" 2>/dev/null || true; }
trap cleanup EXIT

# wait_line LOG PATTERN COUNT: until COUNT lines of LOG match PATTERN.
wait_line() {
    for _ in $(seq 600); do
        [ "$(grep -c -- "$2" "$1" || true)" -ge "$3" ] && return 0
        kill -0 "$QPID" 2>/dev/null || { cat "$1" >&2; fail "qview ended before '$2' x$3"; }
        sleep 0.05
    done
    cat "$1" >&2
    fail "timed out waiting for '$2' x$3"
}

# reference MAP OUT.png: compile by hand and render from the player start.
reference() {
    local d="$TMP/ref.$$"
    rm -rf "$d" && mkdir -p "$d"
    cp "$1" "$d/room.map"
    "$BIN/q2map" compile "$d/room.map" -fast -threads 2 -quiet >"$d/log" 2>&1 || { cat "$d/log" >&2; fail "reference compile"; }
    "$Q" "$d/room.bsp" --render "$2" --size $SIZE --threads 2 >/dev/null
}

# left_running DIR: processes whose command line names DIR.
left_running() { pgrep -f -- "$1" | grep -v "^$$\$" || true; }

run_case() { # inotify|poll
    local how=$1 d="$TMP/$1"
    mkdir -p "$d/tmp"
    local m="$d/room.map" out="$d/png" log="$d/watch.log"
    viewer_room 0 | viewer_save "$m"
    local extra=()
    [ "$how" = poll ] && extra=(--watch-poll)
    TMPDIR="$d/tmp" "$Q" --watch "$m" -threads 2 --render-on-change "$out" --max-compiles 6 \
        --size $SIZE --threads 2 "${extra[@]}" >"$log" 2>&1 &
    QPID=$!
    wait_line "$log" "^watch: compile 1 (" 1
    grep -q "watching .* (fast, $([ "$how" = poll ] && echo polling || echo inotify))" "$log" ||
        fail "$how: not watching the way asked: $(head -1 "$log")"
    [ -s "$out/compile_001.png" ] || fail "$how: no picture of the first compile"
    cmp -s "$out/compile_001.png" "$out/latest.png" || fail "$how: latest.png is not the first picture"

    # 1. the pillar moves from y=0 to y=128
    viewer_room 128 | viewer_save "$m"
    wait_line "$log" "^watch: compile 2 (" 1
    grep -q "^watch: compile 2 (fast): ok" "$log" || fail "$how: moved pillar: $(grep 'compile 2' "$log")"
    reference "$m" "$d/ref_moved.png"
    cmp -s "$out/compile_002.png" "$d/ref_moved.png" || fail "$how: compile 2 is not the moved map"
    # From the player start (eye at x=-200 z=86, facing +X, 90 degrees,
    # 160x120) the pillar's near face (x=0) covers columns 67..93 before
    # and 16..42 after, rows 43..94: the picture changes in both places.
    for region in "76 50 84 85" "28 50 36 85"; do
        # shellcheck disable=SC2086
        diff=$("$Q" --image-diff "$out/compile_001.png" "$out/compile_002.png" $region | tail -1)
        echo "$how: $diff"
        case "$diff" in
        *" 0 pixels differ in"*) fail "$how: the picture did not change where the pillar was or went: $diff" ;;
        *"pixels differ in"*) ;;
        *) fail "$how: --image-diff: $diff" ;;
        esac
    done

    # 2. a syntax error: no picture, the error with file:line, latest kept
    viewer_room_broken | viewer_save "$m"
    wait_line "$log" "^watch: compile 3 (" 1
    grep -q "^watch: compile 3 (fast): FAILED: $m:10:1: " "$log" ||
        fail "$how: no error with file:line: $(grep 'compile 3' "$log")"
    [ ! -e "$out/compile_003.png" ] || fail "$how: a failed compile wrote a picture"
    cmp -s "$out/latest.png" "$out/compile_002.png" || fail "$how: latest.png is not the last good picture"
    ls "$d"/*.bsp >/dev/null 2>&1 && fail "$how: a bsp was written beside the map"

    # 3. a leak: reported, picture from the leak's start with the line
    viewer_room 0 leak | viewer_save "$m"
    wait_line "$log" "^watch: compile 4 (" 1
    grep -q "^watch: compile 4 (fast): ok.*LEAK shown from its start" "$log" || fail "$how: leak not shown"
    grep -q "^watch:   warning: LEAK: entity 2 (light)" "$log" || fail "$how: leak not reported"
    [ -s "$out/compile_004.png" ] || fail "$how: no picture of the leak"

    # 4. two saves in quick succession: the last one wins
    viewer_room -96 | viewer_save "$m"
    viewer_room 64 | viewer_save "$m"
    reference "$m" "$d/ref_last.png"
    # Either one compile of the final content (both saves inside the
    # settle time) or two with the last one last; wait until a picture of
    # the final content comes.
    for _ in $(seq 400); do
        cmp -s "$out/latest.png" "$d/ref_last.png" && break
        kill -0 "$QPID" 2>/dev/null || break
        sleep 0.05
    done
    cmp -s "$out/latest.png" "$d/ref_last.png" || { cat "$log" >&2; fail "$how: the last save did not win"; }
    n=$(grep -c "^watch: compile [0-9]* (" "$log")
    echo "$how: $((n - 4)) compile(s) for the two quick saves"
    # Up to --max-compiles 6: one more save if the quick saves took one.
    [ "$n" -lt 6 ] && viewer_room 64 | viewer_save "$m"
    for _ in $(seq 400); do kill -0 "$QPID" 2>/dev/null || break; sleep 0.05; done
    kill -0 "$QPID" 2>/dev/null && fail "$how: --max-compiles 6 did not end the watch"
    wait "$QPID" || { cat "$log" >&2; fail "$how: qview exited with an error"; }
    QPID=
    [ "$(grep -c "^watch: compile [0-9]* (" "$log")" -eq 6 ] || fail "$how: want 6 ended compiles"
    cmp -s "$out/latest.png" "$d/ref_last.png" || fail "$how: the final picture is not the last save"
    r=$(left_running "$d")
    [ -z "$r" ] || fail "$how: left running: $r"
    [ -z "$(ls -A "$d/tmp")" ] || fail "$how: left in TMPDIR: $(ls -A "$d/tmp")"
}

run_case inotify
run_case poll

# A signal in the middle of a compile: the compile dies with qview.
# dm6 at -final takes seconds here.
d="$TMP/signal"
mkdir -p "$d/tmp"
cp "$DATA/map/dm6.map" "$d/dm6.map"
TMPDIR="$d/tmp" "$Q" --watch "$d/dm6.map" -final -threads 1 --render-on-change "$d/png" \
    --size $SIZE >"$d/watch.log" 2>&1 &
QPID=$!
# Until a stage runs on the job's files (its directory is in its argv).
for _ in $(seq 400); do [ -n "$(left_running "$d/tmp/")" ] && break; sleep 0.02; done
[ -n "$(left_running "$d/tmp/")" ] || { cat "$d/watch.log" >&2; fail "no compile seen running"; }
kill -TERM "$QPID"
for _ in $(seq 200); do kill -0 "$QPID" 2>/dev/null || break; sleep 0.05; done
kill -0 "$QPID" 2>/dev/null && fail "SIGTERM did not end the watch"
wait "$QPID" || true
QPID=
grep -q "stopped by a signal" "$d/watch.log" || { cat "$d/watch.log" >&2; fail "no word of the signal"; }
grep -q "^watch: compile" "$d/watch.log" && fail "the compile ended before the signal: the case tests nothing"
r=$(left_running "$d")
[ -z "$r" ] || fail "left running after SIGTERM: $(ps -o pid,args -p "$(echo $r | tr ' ' ,)" 2>/dev/null || echo "$r")"
[ -z "$(ls -A "$d/tmp")" ] || fail "left in TMPDIR after SIGTERM: $(ls -A "$d/tmp")"

# A save in the middle of a compile cancels it: the map becomes dm6 (whose
# compile takes seconds); while that compile runs the room is saved again;
# the dm6 compile is cancelled and the next picture is the room's.
d="$TMP/cancel"
mkdir -p "$d/tmp"
viewer_room 0 | viewer_save "$d/room.map"
TMPDIR="$d/tmp" "$Q" --watch "$d/room.map" -threads 2 --render-on-change "$d/png" --max-compiles 2 \
    --size $SIZE --threads 2 >"$d/watch.log" 2>&1 &
QPID=$!
wait_line "$d/watch.log" "^watch: compile 1 (" 1
viewer_save "$d/room.map" <"$DATA/map/dm6.map"
for _ in $(seq 400); do [ -n "$(left_running "$d/tmp/")" ] && break; sleep 0.02; done
[ -n "$(left_running "$d/tmp/")" ] || { cat "$d/watch.log" >&2; fail "cancel: no compile of dm6 seen running"; }
viewer_room 128 | viewer_save "$d/room.map"
wait_line "$d/watch.log" "^watch: compile 2 (" 1
grep -q "^watch: compile 2 cancelled: the map changed" "$d/watch.log" || { cat "$d/watch.log" >&2; fail "cancel: not cancelled"; }
for _ in $(seq 200); do kill -0 "$QPID" 2>/dev/null || break; sleep 0.05; done
wait "$QPID" || { cat "$d/watch.log" >&2; fail "cancel: qview exited with an error"; }
QPID=
reference "$d/room.map" "$d/ref.png"
cmp -s "$d/png/latest.png" "$d/ref.png" || fail "cancel: the picture after the cancel is not the last save"
r=$(left_running "$d")
[ -z "$r" ] || fail "cancel: left running: $r"

# The textures the map used are watched too: a new bricks.wal in the game
# directory gives a new compile.
d="$TMP/texture"
mkdir -p "$d/tmp" "$d/game/textures/bricks"
cp "$DATA/textures/baseq2/textures/bricks/bricks.wal" "$d/game/textures/bricks/"
viewer_room 0 | sed 's| wall | bricks/bricks |' | viewer_save "$d/room.map"
TMPDIR="$d/tmp" "$Q" --watch "$d/room.map" -threads 2 -gamedir "$d/game" --game "$d/game" \
    --render-on-change "$d/png" --max-compiles 2 --size $SIZE --threads 2 >"$d/watch.log" 2>&1 &
QPID=$!
wait_line "$d/watch.log" "^watch: compile 1 (" 1
viewer_save "$d/game/textures/bricks/bricks.wal" <"$DATA/textures/baseq2/textures/bricks/bricks.wal"
wait_line "$d/watch.log" "^watch: compile 2 (" 1
grep -q "^watch: compile 2 (fast): ok" "$d/watch.log" || fail "texture change: $(grep 'compile 2' "$d/watch.log")"
for _ in $(seq 200); do kill -0 "$QPID" 2>/dev/null || break; sleep 0.05; done
wait "$QPID" || { cat "$d/watch.log" >&2; fail "texture case: qview exited with an error"; }
QPID=

# -norad: the bsp is unlit; it is drawn fullbright, and the line says so.
d="$TMP/norad"
mkdir -p "$d/tmp"
viewer_room 0 | viewer_save "$d/room.map"
TMPDIR="$d/tmp" "$Q" --watch "$d/room.map" -threads 2 -norad --render-on-change "$d/png" --max-compiles 1 \
    --size $SIZE --threads 2 >"$d/watch.log" 2>&1 || { cat "$d/watch.log" >&2; fail "-norad: qview failed"; }
grep -q "^watch: compile 1 (fast): ok.*qrad skipped.*, unlit: drawn fullbright" "$d/watch.log" ||
    fail "-norad: $(grep 'compile 1' "$d/watch.log")"
line=$("$Q" --image-stats "$d/png/latest.png")
cov=$(echo "$line" | sed -E 's/.*, ([0-9.]+) not black.*/\1/')
awk -v c="$cov" 'BEGIN { exit !(c > 0.9) }' || fail "-norad: the unlit room is not drawn: $line"

# Bad use: the options that go with --watch alone, a missing map.
"$Q" --render-on-change "$TMP/x" "$TMP/none.map" >/dev/null 2>&1 && fail "--render-on-change without --watch accepted"
"$Q" --watch "$TMP/none.map" --render-on-change "$TMP/x" >"$TMP/none.log" 2>&1 && fail "a missing map accepted"
grep -q "none.map" "$TMP/none.log" || fail "the missing map is not named: $(cat "$TMP/none.log")"
echo "viewer_watch: ok"
