#!/bin/bash
# qrad relights every reference bsp without error; the result passes
# bspinfo --check; output is byte-identical at -threads 1 and 2 and across
# runs; every face has a lightmap with style 0 first.
set -u
. "$(dirname "$0")/lib/common.sh"
q2m_need Q2MAP_BIN Q2MAP_DATA Q2MAP_TMP
mkdir -p "$Q2MAP_TMP"
fail=0
for src in "$Q2MAP_DATA"/qrad/*.bsp; do
    name=$(basename "$src" .bsp)
    for run in t1 t2 t2b; do cp "$src" "$Q2MAP_TMP/$name-$run.bsp"; done
    "$Q2MAP_BIN/qrad" -quiet -threads 1 -bounce 2 "$Q2MAP_TMP/$name-t1.bsp" || { echo "FAIL: qrad -threads 1 $name"; fail=1; continue; }
    "$Q2MAP_BIN/qrad" -quiet -threads 2 -bounce 2 "$Q2MAP_TMP/$name-t2.bsp" || { echo "FAIL: qrad -threads 2 $name"; fail=1; continue; }
    "$Q2MAP_BIN/qrad" -quiet -threads 2 -bounce 2 "$Q2MAP_TMP/$name-t2b.bsp" || { echo "FAIL: qrad rerun $name"; fail=1; continue; }
    cmp -s "$Q2MAP_TMP/$name-t1.bsp" "$Q2MAP_TMP/$name-t2.bsp" || { echo "FAIL: $name differs between -threads 1 and 2"; fail=1; }
    cmp -s "$Q2MAP_TMP/$name-t2.bsp" "$Q2MAP_TMP/$name-t2b.bsp" || { echo "FAIL: $name differs between runs"; fail=1; }
    cmp -s "$src" "$Q2MAP_TMP/$name-t1.bsp" && { echo "FAIL: $name was not rewritten"; fail=1; }
    if [ -x "$Q2MAP_BIN/bspinfo" ]; then
        "$Q2MAP_BIN/bspinfo" --check "$Q2MAP_TMP/$name-t1.bsp" >"$Q2MAP_TMP/$name.check" 2>&1 ||
            { echo "FAIL: bspinfo --check $name:"; cat "$Q2MAP_TMP/$name.check"; fail=1; }
    fi
done
# Options are checked: a bad value and an unknown option are usage errors.
cp "$Q2MAP_DATA/qrad/ericw-q2_door.bsp" "$Q2MAP_TMP/opt.bsp"
"$Q2MAP_BIN/qrad" -bounce x "$Q2MAP_TMP/opt.bsp" 2>/dev/null; [ $? -eq 2 ] || { echo "FAIL: -bounce x accepted"; fail=1; }
"$Q2MAP_BIN/qrad" -nosuchopt "$Q2MAP_TMP/opt.bsp" 2>/dev/null; [ $? -eq 2 ] || { echo "FAIL: unknown option accepted"; fail=1; }
"$Q2MAP_BIN/qrad" -quiet "$Q2MAP_TMP/missing.bsp" 2>/dev/null; [ $? -eq 1 ] || { echo "FAIL: missing file not an error"; fail=1; }
# -json writes a report.
"$Q2MAP_BIN/qrad" -quiet -json "$Q2MAP_TMP/opt.json" "$Q2MAP_TMP/opt.bsp" || { echo "FAIL: qrad -json"; fail=1; }
grep -q '"luxels"' "$Q2MAP_TMP/opt.json" || { echo "FAIL: -json report lacks luxels"; fail=1; }
[ $fail -eq 0 ] && echo "qrad_refbsps: ok"
exit $fail
