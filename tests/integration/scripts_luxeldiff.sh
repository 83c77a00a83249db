#!/bin/bash
# scripts/luxeldiff, the measure of how far a change moved luxels (issue
# 24's bounds), on a sample lit here: a bsp against itself moved nothing; a
# copy with one luxel channel raised by 1 and another by 5 shows 2 moved, 1
# over 1, largest 5, and fails the default bounds (3 at most); with --max 5
# and --over1 1 it passes; the relight form with the same qrad twice moves
# nothing; bsps of different faces are refused.
set -u
. "$(dirname "$0")/lib/common.sh"
q2m_begin
q2m_need Q2MAP_SRC
LD=$Q2MAP_SRC/scripts/luxeldiff

cp "$Q2MAP_SRC/maps/q2map_sample.map" "$TMP/room.map"
"$BIN/qbsp" -threads 2 "$TMP/room.map" >/dev/null 2>&1 || fail "qbsp failed on the sample"
"$BIN/qrad" -threads 2 "$TMP/room.bsp" >/dev/null 2>&1 || fail "qrad failed on the sample"

python3 "$LD" "$TMP/room.bsp" "$TMP/room.bsp" >"$TMP/same.txt" 2>&1 || bad "a bsp against itself failed: $(cat "$TMP/same.txt")"
grep -q "^all: [0-9]* channels, 0 moved" "$TMP/same.txt" || bad "a bsp against itself moved luxels: $(cat "$TMP/same.txt")"

# two channels of the lighting lump (lump 7) changed: +1 and +5, kept in range
python3 - "$TMP/room.bsp" "$TMP/moved.bsp" <<'PY' || fail "could not write the changed copy"
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
ofs, n = struct.unpack_from("<ii", d, 8 + 8 * 7)
assert n > 200
for at, by in ((ofs + 30, 1), (ofs + n // 2, 5)):
    d[at] = d[at] - by if d[at] >= by else d[at] + by
open(sys.argv[2], "wb").write(bytes(d))
PY
python3 "$LD" "$TMP/room.bsp" "$TMP/moved.bsp" >"$TMP/moved.txt" 2>&1 && bad "a move of 5 passed the default bounds"
cat "$TMP/moved.txt"
grep -q ", 2 moved (.*), 1 by more than 1 (.*), largest 5$" "$TMP/moved.txt" ||
    bad "want 2 moved, 1 over 1, largest 5: $(grep '^all' "$TMP/moved.txt")"
grep -q "EXCEEDED" "$TMP/moved.txt" || bad "the bounds are not reported exceeded"
python3 "$LD" --max 5 --over1 1 "$TMP/room.bsp" "$TMP/moved.bsp" >/dev/null 2>&1 || bad "--max 5 --over1 1 did not pass"

# the relight form: the same qrad as old and new moves nothing
python3 "$LD" --old "$BIN" --new "$BIN" --qrad "-preset ericw" --work "$TMP/work" "$TMP/room.map" >"$TMP/relit.txt" 2>&1 ||
    bad "relighting with one qrad twice failed: $(cat "$TMP/relit.txt")"
grep -q "^all: [0-9]* channels, 0 moved" "$TMP/relit.txt" || bad "one qrad twice moved luxels: $(cat "$TMP/relit.txt")"

# different faces are refused
cp "$Q2MAP_SRC/tests/data/light/q2_light_sun.map" "$TMP/other.map"
"$BIN/qbsp" -threads 2 "$TMP/other.map" >/dev/null 2>&1 || fail "qbsp failed on q2_light_sun"
python3 "$LD" "$TMP/room.bsp" "$TMP/other.bsp" >"$TMP/faces.txt" 2>&1 && bad "bsps of different faces were compared"
grep -q "different faces" "$TMP/faces.txt" || bad "no reason given for refusing: $(cat "$TMP/faces.txt")"
exit $fail
