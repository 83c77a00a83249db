#!/bin/bash
# Where qbsp finds the game's textures: `-basedir ROOT` searches ROOT/baseq2
# (its pak0.pak and loose textures/), `-basedir ROOT/baseq2` the same folder, and with neither a
# map inside baseq2/maps/ finds baseq2 by itself, also when given by a bare
# name from inside maps/. Each of these writes the same bsp, and it differs
# from a compile with no game data (the .wal's flags and value reach the
# texinfo). Before this test, qbsp looked for baseq2 and for the folder above
# maps/ as regular files, so it found neither.
set -u
. "$(dirname "$0")/lib/common.sh"
q2m_begin
qbsp="$BIN/qbsp"
python3 "$(dirname "$0")/lib/mkgame.py" "$TMP/q2" || fail "mkgame.py"
mkdir -p "$TMP/q2/baseq2/maps" "$TMP/none"
# The walls' sides give no flags of their own, so the .wal's apply.
sed 's#\(e1u1/\(wall1_1\|floor1_3\) 0 0 0 1 1\) 0 0 0#\1#' "$Q2MAP_SRC/maps/q2map_sample.map" >"$TMP/none/room.map"
cp "$TMP/none/room.map" "$TMP/q2/baseq2/maps/room.map"

"$qbsp" -threads 2 -verbose "$TMP/none/room.map" >"$TMP/none.log" 2>&1 || fail "no game data: $(tail -2 "$TMP/none.log")"
grep -q "no game data" "$TMP/none.log" || bad "the compile without game data does not say so"

run() { # NAME DIR ARGS...: compiles room.map in DIR (relative to DIR) and keeps the bsp as NAME.bsp
    local name=$1 dir=$2
    shift 2
    (cd "$dir" && "$qbsp" -threads 2 -verbose "$@") >"$TMP/$name.log" 2>&1 || { bad "$name: $(tail -2 "$TMP/$name.log")"; return; }
    grep -q "wall1_1' not found\|wall1_1': no game data" "$TMP/$name.log" && bad "$name: the pak's texture was not found"
    grep -q "floor1_3' not found\|floor1_3': no game data" "$TMP/$name.log" && bad "$name: the loose texture was not found"
    mv "$TMP/q2/baseq2/maps/room.bsp" "$TMP/$name.bsp"
}
run basedir_root "$TMP/q2/baseq2/maps" -basedir "$TMP/q2" room.map
run basedir_game "$TMP/q2/baseq2/maps" -basedir "$TMP/q2/baseq2" room.map
run maps_abs "$TMP" "$TMP/q2/baseq2/maps/room.map"
run maps_bare "$TMP/q2/baseq2/maps" room.map
grep -q "textures from .*baseq2" "$TMP/maps_bare.log" || bad "maps_bare: no 'textures from' line"
for n in basedir_game maps_abs maps_bare; do
    [ -f "$TMP/$n.bsp" ] && { cmp -s "$TMP/basedir_root.bsp" "$TMP/$n.bsp" || bad "$n.bsp differs from basedir_root.bsp"; }
done
[ -f "$TMP/basedir_root.bsp" ] && cmp -s "$TMP/basedir_root.bsp" "$TMP/none/room.bsp" &&
    bad "the game data changed nothing in the bsp (the test cannot tell found from not found)"
exit $fail
