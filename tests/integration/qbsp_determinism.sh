#!/bin/bash
# Output is byte-identical across runs and for -threads 1 and -threads 2
# (.bsp and .prt), on a feature map with many brush models and on a
# Quake 1 map.
set -u
. "$(dirname "$0")/lib/common.sh"
q2m_begin
qbsp="$BIN/qbsp"

for map in q2_tjunc_matrix q2_liquids dm6; do
    [ -f "$DATA/map/$map.map" ] || { bad "missing $map"; continue; }
    i=0
    for t in 1 2 2; do
        i=$((i + 1))
        mkdir -p "$TMP/$i"
        cp "$DATA/map/$map.map" "$TMP/$i/m.map"
        "$qbsp" -quiet -threads $t "$TMP/$i/m.map" >/dev/null 2>&1 || bad "$map -threads $t failed"
    done
    for i in 2 3; do
        cmp -s "$TMP/1/m.bsp" "$TMP/$i/m.bsp" || bad "$map: .bsp of run $i differs from run 1"
        if [ -e "$TMP/1/m.prt" ] || [ -e "$TMP/$i/m.prt" ]; then
            cmp -s "$TMP/1/m.prt" "$TMP/$i/m.prt" || bad "$map: .prt of run $i differs from run 1"
        fi
    done
    rm -rf "$TMP"/[1-3]
done
exit $fail
