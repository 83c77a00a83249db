#!/bin/bash
# scripts/lighttable and scripts/lightcmp, the comparison behind docs/qrad.md's
# preset tables, on references lit here by our own qrad, whose answers are
# known: a reference lit under -preset ericw and relit the same way gives
# ours/peer 1.000 and correlation 1.000 (qrad is deterministic); one lit by
# -preset qrad3 at half the light gives ours/peer well above 1 with the
# same pattern; an unlit bsp is no reference; a missing qrad fails the run.
set -u
. "$(dirname "$0")/lib/common.sh"
q2m_begin
q2m_need Q2MAP_SRC
LT=$Q2MAP_SRC/scripts/lighttable

mkdir -p "$TMP/src" "$TMP/refs/ericw" "$TMP/refs/id"
cp "$Q2MAP_SRC/maps/q2map_sample.map" "$TMP/src/room.map"
"$BIN/qbsp" -threads 2 "$TMP/src/room.map" >/dev/null 2>&1 || fail "qbsp failed on the sample"
"$BIN/qvis" -threads 2 "$TMP/src/room.bsp" >/dev/null 2>&1 || fail "qvis failed on the sample"
cp "$TMP/src/room.bsp" "$TMP/refs/ericw/unlit.bsp"
cp "$TMP/src/room.bsp" "$TMP/refs/ericw/room.bsp"
cp "$TMP/src/room.bsp" "$TMP/refs/id/room.bsp"
"$BIN/qrad" -threads 2 -preset ericw "$TMP/refs/ericw/room.bsp" >/dev/null 2>&1 || fail "qrad -preset ericw failed"
"$BIN/qrad" -threads 2 -preset qrad3 -scale 0.5 "$TMP/refs/id/room.bsp" >/dev/null 2>&1 || fail "qrad -preset qrad3 failed"

python3 "$LT" --qrad "$BIN/qrad" "$TMP/refs/ericw" "$TMP/refs/id" >"$TMP/table.md" 2>"$TMP/err.txt" ||
    fail "lighttable failed: $(cat "$TMP/err.txt")"
cat "$TMP/table.md"
rows=$(grep -c '^| `' "$TMP/table.md")
[ "$rows" -eq 2 ] || bad "want 2 rows (the unlit bsp is no reference), got $rows"
row() { grep "^| \`$1\`" "$TMP/table.md"; }
col() { awk -F'|' -v c="$1" '{gsub(/ /, "", $c); print $c}'; }
e=$(row ericw/room)
[ "$(echo "$e" | col 3)" = "ericw-toolslight" ] || bad "ericw/ is not taken as lit by ericw-tools: $e"
[ "$(echo "$e" | col 5)" = "1.000" ] && [ "$(echo "$e" | col 6)" = "1.000" ] ||
    bad "relighting our own -preset ericw output: want 1.000 / 1.000, got: $e"
i=$(row id/room)
[ "$(echo "$i" | col 4)" = "qrad3" ] || bad "id/ is not relit under -preset qrad3: $i"
python3 -c "import sys; r, c = map(float, sys.argv[1:]); sys.exit(0 if r > 1.4 and c > 0.9 else 1)" \
    "$(echo "$i" | col 5)" "$(echo "$i" | col 6)" || bad "a reference at half the light: want ours/peer > 1.4, correlation > 0.9: $i"

# lightcmp alone: the same numbers for the same pair; bsps of different faces refused.
python3 "$Q2MAP_SRC/scripts/lightcmp" "$TMP/refs/ericw/room.bsp" "$TMP/refs/ericw/room.bsp" | grep -q "B/A 1.000" ||
    bad "lightcmp of a bsp with itself is not 1.000"
cp "$Q2MAP_SRC/tests/data/light/q2_light_sun.map" "$TMP/src/other.map"
"$BIN/qbsp" -threads 2 "$TMP/src/other.map" >/dev/null 2>&1 || fail "qbsp failed on q2_light_sun"
if python3 "$Q2MAP_SRC/scripts/lightcmp" "$TMP/refs/ericw/room.bsp" "$TMP/src/other.bsp" >/dev/null 2>&1; then
    bad "lightcmp compared bsps of different faces"
fi
if python3 "$LT" --qrad "$TMP/no-such-qrad" "$TMP/refs/ericw" >/dev/null 2>&1; then
    bad "lighttable with a missing qrad exits 0"
fi
exit $fail
