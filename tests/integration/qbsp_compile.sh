#!/bin/bash
# Every map in tests/data/map (the Quake 2 feature maps and the Quake 1 maps)
# compiles with qbsp; bspinfo --check accepts each result; a sealed map gets
# a .prt and no pointfile, a leaking one pointfiles and no .prt; -json
# reports the stages.
set -u
. "$(dirname "$0")/lib/common.sh"
q2m_begin

qbsp="$BIN/qbsp"
[ -x "$qbsp" ] || { echo "FAIL: $qbsp not built"; exit 1; }
bspinfo="$BIN/bspinfo"
[ -x "$bspinfo" ] || { echo "note: bspinfo not built, skipping --check"; bspinfo=""; }

n=0
for src in "$DATA"/map/*.map; do
    name=$(basename "$src" .map)
    cp "$src" "$TMP/$name.map"
    out=$("$qbsp" -threads 2 -json "$TMP/$name.json" "$TMP/$name.map" 2>&1); rc=$?
    if [ $rc -ne 0 ]; then bad "$name: exit $rc: $out"; continue; fi
    n=$((n + 1))
    [ -s "$TMP/$name.bsp" ] || bad "$name: no .bsp"
    if [ -n "$bspinfo" ]; then
        chk=$("$bspinfo" --check "$TMP/$name.bsp" 2>&1) || bad "$name: bspinfo --check: $chk"
    fi
    if grep -q '"leaked": true' "$TMP/$name.json"; then
        [ -e "$TMP/$name.prt" ] && bad "$name: leaked but wrote a .prt"
        [ -s "$TMP/$name.pts" ] || bad "$name: leaked but no .pts"
        [ -s "$TMP/$name.lin" ] || bad "$name: leaked but no .lin"
        echo "$out" | grep -q "LEAK" || bad "$name: leaked without saying LEAK"
    else
        [ -s "$TMP/$name.prt" ] || bad "$name: sealed but no .prt"
        head -1 "$TMP/$name.prt" | grep -qx "PRT1" || bad "$name: .prt does not start with PRT1"
        [ -e "$TMP/$name.pts" ] && bad "$name: sealed but wrote a .pts"
    fi
    for stage in load csg bsp portals faces write; do
        grep -q "\"name\": *\"$stage\"" "$TMP/$name.json" || bad "$name: -json lacks stage $stage"
    done
done
[ $n -ge 15 ] || bad "only $n maps compiled"

# Maps that must be sealed: each has entities inside closed rooms.
for name in q2_areaportal q2_detail q2_door q2_liquids q2_tjunc_matrix dm6; do
    [ -f "$TMP/$name.json" ] || continue
    grep -q '"leaked": false' "$TMP/$name.json" || bad "$name: should not leak"
done
exit $fail
