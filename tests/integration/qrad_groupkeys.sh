#!/usr/bin/env bash
# The func_group lighting keys travel beside the bsp (MAP.groupkeys), never
# in it: after `q2map compile` the bsp has no BSPX block, a second qrad on
# the finished bsp gives the same bytes, and without the side file the light
# differs (so the keys did reach qrad). A bsp of an earlier q2map with the
# Q2MAP_GROUPKEYS lump is lit with its keys, the lump moves into the side
# file, and re-lighting keeps them. A side file of another compile is
# refused and the bsp left as it was; a compile without keys removes a
# stale side file.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
q2m_begin

for p in q2map qbsp qrad bspinfo; do [ -x "$BIN/$p" ] || fail "$p not built"; done
extra_bytes() { "$BIN/bspinfo" --json "$1" | grep -o '"extra_bytes": *[0-9]*' | grep -o '[0-9]*$'; }

# --- q2map compile: the side file, no BSPX block
cp "$DATA/qbsp/groupkeys_room.map" "$TMP/room.map"
"$BIN/q2map" compile "$TMP/room.map" -threads 2 >"$TMP/compile.log" 2>&1 || fail "compile: $(tail -5 "$TMP/compile.log")"
[ -f "$TMP/room.groupkeys" ] || fail "no room.groupkeys beside the bsp"
[ "$(extra_bytes "$TMP/room.bsp")" = 0 ] || fail "the compiled bsp has a BSPX block: $("$BIN/bspinfo" "$TMP/room.bsp")"
"$BIN/bspinfo" --check --strict "$TMP/room.bsp" >/dev/null 2>&1 || fail "bspinfo --check --strict fails on the compiled bsp"
"$BIN/bspinfo" "$TMP/room.bsp" | grep -q "room.groupkeys" || fail "bspinfo does not say where the group keys are"

# --- re-lighting the finished bsp gives the same bytes
cp "$TMP/room.bsp" "$TMP/first.bsp"
"$BIN/qrad" -threads 2 "$TMP/room.bsp" >"$TMP/relight.log" 2>&1 || fail "second qrad: $(tail -3 "$TMP/relight.log")"
cmp -s "$TMP/first.bsp" "$TMP/room.bsp" || fail "a second qrad changed the bsp"

# --- without the side file the light differs: the keys reach qrad
mkdir -p "$TMP/nokeys"
cp "$TMP/first.bsp" "$TMP/nokeys/room.bsp"
"$BIN/qrad" -threads 2 "$TMP/nokeys/room.bsp" >/dev/null 2>&1 || fail "qrad without the side file"
if cmp -s "$TMP/first.bsp" "$TMP/nokeys/room.bsp"; then fail "the side file changes nothing: the keys did not reach qrad"; fi

# --- a bsp of an earlier q2map, the keys in its Q2MAP_GROUPKEYS lump
mkdir -p "$TMP/legacy"
cp "$DATA/qbsp/groupkeys_room.bsp" "$TMP/legacy/room.bsp"
"$BIN/bspinfo" "$TMP/legacy/room.bsp" | grep -q Q2MAP_GROUPKEYS || fail "the legacy bsp has no Q2MAP_GROUPKEYS lump"
"$BIN/qrad" -threads 2 "$TMP/legacy/room.bsp" >"$TMP/legacy.log" 2>&1 || fail "qrad on the legacy bsp: $(tail -3 "$TMP/legacy.log")"
grep -q "moved the Q2MAP_GROUPKEYS lump into" "$TMP/legacy.log" || fail "qrad does not say it moved the lump"
[ -f "$TMP/legacy/room.groupkeys" ] || fail "the legacy lump did not move into room.groupkeys"
if "$BIN/bspinfo" "$TMP/legacy/room.bsp" | grep -q Q2MAP_GROUPKEYS; then fail "the lump is still in the lit bsp"; fi
cp "$TMP/legacy/room.bsp" "$TMP/legacy/first.bsp"
"$BIN/qrad" -threads 2 "$TMP/legacy/room.bsp" >/dev/null 2>&1 || fail "re-lighting the legacy bsp"
cmp -s "$TMP/legacy/first.bsp" "$TMP/legacy/room.bsp" || fail "re-lighting the migrated bsp changed it"

# --- a side file of another compile: refused, the bsp unchanged
mkdir -p "$TMP/other"
cp "$DATA/qbsp/groupkeys_room.map" "$TMP/other/room.map"
sed -i 's/^( 256 0 0 ) ( 256 1 0 ) ( 256 0 1 )/( 250 0 0 ) ( 250 1 0 ) ( 250 0 1 )/' "$TMP/other/room.map"
"$BIN/qbsp" -threads 2 "$TMP/other/room.map" >/dev/null 2>&1 || fail "qbsp of the changed map"
cp "$TMP/room.groupkeys" "$TMP/other/room.groupkeys"
cp "$TMP/other/room.bsp" "$TMP/other/before.bsp"
if "$BIN/qrad" -threads 2 "$TMP/other/room.bsp" >"$TMP/other.log" 2>&1; then fail "qrad took the side file of another compile"; fi
grep -q "room.groupkeys.*another compile" "$TMP/other.log" || fail "no message naming the stale side file: $(cat "$TMP/other.log")"
cmp -s "$TMP/other/before.bsp" "$TMP/other/room.bsp" || fail "the refused run changed the bsp"

# --- a compile without group keys removes the stale side file
grep -v '^"_' "$DATA/qbsp/groupkeys_room.map" >"$TMP/other/room.map"
"$BIN/qbsp" -threads 2 "$TMP/other/room.map" >/dev/null 2>&1 || fail "qbsp of the map without keys"
[ ! -f "$TMP/other/room.groupkeys" ] || fail "a compile without group keys left the stale side file"
echo "qrad_groupkeys: ok"
