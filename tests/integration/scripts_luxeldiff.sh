#!/bin/bash
# scripts/luxeldiff, the measure of how far a change moved luxels (issue
# 24's bounds), on a sample lit here: a bsp against itself moved nothing; a
# copy with one luxel channel moved by 1 and another by 5 shows 2 moved, 1
# over 1, largest 5, and fails the default bounds (exit 1: 3 at most); with
# --max 5 and --over1 1 it passes; the relight form with the same qrad twice
# moves nothing; bsps of different faces, and a file that is no bsp, cannot
# be compared (exit 2).
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

# two channels of a drawn face's lightmap moved: by 1 and by 5 (in range)
python3 - "$TMP/room.bsp" "$TMP/moved.bsp" <<'PY' || fail "could not write the changed copy"
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
lump = lambda i: struct.unpack_from("<ii", d, 8 + 8 * i)
lofs, _ = lump(7)
fofs, flen = lump(6)
tofs, _ = lump(5)
for f in range(flen // 20):
    ti = struct.unpack_from("<h", d, fofs + f * 20 + 10)[0]
    style0 = d[fofs + f * 20 + 12]
    ofs = struct.unpack_from("<i", d, fofs + f * 20 + 16)[0]
    flags = struct.unpack_from("<i", d, tofs + ti * 76 + 32)[0]
    if ofs >= 0 and style0 != 255 and not flags & 0xC:
        break
else:
    sys.exit("no drawn face with a lightmap")
for at, by in ((lofs + ofs + 1, 1), (lofs + ofs + 5, 5)):
    d[at] = d[at] - by if d[at] >= by else d[at] + by
open(sys.argv[2], "wb").write(bytes(d))
PY
python3 "$LD" "$TMP/room.bsp" "$TMP/moved.bsp" >"$TMP/moved.txt" 2>&1
rc=$?
[ "$rc" -eq 1 ] || bad "a move of 5 against the default bounds: want exit 1, got $rc"
cat "$TMP/moved.txt"
grep -q ", 2 moved (.*), 1 by more than 1 (.*), largest 5$" "$TMP/moved.txt" ||
    bad "want 2 moved, 1 over 1, largest 5: $(grep '^all' "$TMP/moved.txt")"
grep -q "EXCEEDED" "$TMP/moved.txt" || bad "the bounds are not reported exceeded"
python3 "$LD" --max 5 --over1 1 "$TMP/room.bsp" "$TMP/moved.bsp" >/dev/null 2>&1 || bad "--max 5 --over1 1 did not pass"

# the relight form: the same qrad as old and new moves nothing
python3 "$LD" --old "$BIN" --new "$BIN" --qrad="-preset ericw" --work "$TMP/work" "$TMP/room.map" >"$TMP/relit.txt" 2>&1 ||
    bad "relighting with one qrad twice failed: $(cat "$TMP/relit.txt")"
grep -q "^all: [0-9]* channels, 0 moved" "$TMP/relit.txt" || bad "one qrad twice moved luxels: $(cat "$TMP/relit.txt")"

# different faces are refused
cp "$Q2MAP_SRC/tests/data/light/q2_light_sun.map" "$TMP/other.map"
"$BIN/qbsp" -threads 2 "$TMP/other.map" >/dev/null 2>&1 || fail "qbsp failed on q2_light_sun"
python3 "$LD" "$TMP/room.bsp" "$TMP/other.bsp" >"$TMP/faces.txt" 2>&1
rc=$?
[ "$rc" -eq 2 ] || bad "bsps of different faces: want exit 2, got $rc"
grep -q "different faces" "$TMP/faces.txt" || bad "no reason given for refusing: $(cat "$TMP/faces.txt")"
python3 "$LD" "$TMP/room.bsp" "$TMP/room.map" >"$TMP/nobsp.txt" 2>&1
rc=$?
[ "$rc" -eq 2 ] || bad "a .map as a bsp: want exit 2, got $rc"
grep -q "not an IBSP file" "$TMP/nobsp.txt" || bad "no reason given for a file that is no bsp: $(cat "$TMP/nobsp.txt")"
exit $fail
