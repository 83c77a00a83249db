#!/bin/bash
# The world is built twice when it is sealed: the second tree weighs only
# the sides the first found bounding reachable leafs, which gives fewer
# clusters. Compiled with and without -onepass (one tree), the two-pass
# compile must have fewer clusters on maps where the
# hidden and void-facing sides would otherwise split open space
# (q2_double_areaportal: 3 vs 7 clusters, q2_liquids: 20 vs 22 when this
# was written). If the second pass were dropped the counts would be equal.
set -u
. "$(dirname "$0")/lib/common.sh"
q2m_begin
qbsp="$BIN/qbsp"

# count FILE.json KEY: an integer from the "counts" object.
count() {
    sed -n "s/.*\"$2\": *\([0-9]*\).*/\1/p" "$1" | head -n 1
}

for map in q2_double_areaportal q2_liquids; do
    [ -f "$DATA/qbsp/$map.map" ] || { bad "missing $map"; continue; }
    for mode in two one; do
        mkdir -p "$TMP/$mode"
        cp "$DATA/qbsp/$map.map" "$TMP/$mode/m.map"
        opt=""
        [ $mode = one ] && opt="-onepass"
        "$qbsp" -quiet -threads 2 $opt -json "$TMP/$mode/m.json" "$TMP/$mode/m.map" >/dev/null 2>&1 ||
            bad "$map ($mode pass) failed"
    done
    c2=$(count "$TMP/two/m.json" clusters) c1=$(count "$TMP/one/m.json" clusters)
    [ -n "$c2" ] && [ -n "$c1" ] || { bad "$map: no counts in the json"; continue; }
    [ "$c2" -gt 0 ] || bad "$map: no clusters"
    [ "$c2" -lt "$c1" ] || bad "$map: two passes give $c2 clusters, one pass $c1 (expected fewer)"
    rm -rf "$TMP/two" "$TMP/one"
done
exit $fail
