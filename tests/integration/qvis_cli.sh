#!/bin/bash
# qvis on the command line: rewrites the bsp in place, byte-identical for
# -threads 1 and 2 and across runs, -json report, and bad portal files
# (missing, truncated, malformed, from another compile) leave the bsp
# untouched with exit status 1.
set -u
: "${Q2MAP_BIN:?}" "${Q2MAP_DATA:?}" "${Q2MAP_TMP:?}"
mkdir -p "$Q2MAP_TMP"
T="$Q2MAP_TMP"
QVIS="$Q2MAP_BIN/qvis"
D="$Q2MAP_DATA/qvis"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

setup() { # name dest
    cp "$D/$1.bsp" "$T/$2.bsp" && cp "$D/$1.prt" "$T/$2.prt" && chmod u+w "$T/$2.bsp" "$T/$2.prt"
}

"$QVIS" -help | grep -q "usage: qvis" || fail "-help"
"$QVIS" -version | grep -q "^qvis " || fail "-version"
"$QVIS" >/dev/null 2>&1; [ $? -eq 2 ] || fail "no arguments should exit 2"
"$QVIS" -level 9 x.bsp >/dev/null 2>&1; [ $? -eq 2 ] || fail "-level 9 should exit 2"

for map in q2_liquids q2t_areaportal q2_light_sun; do
    setup $map a1; setup $map a2; setup $map a3
    "$QVIS" -quiet -threads 1 "$T/a1.bsp" || fail "$map: threads 1 exit $?"
    "$QVIS" -quiet -threads 2 "$T/a2.bsp" || fail "$map: threads 2 exit $?"
    "$QVIS" -quiet -threads 2 -json "$T/a3.json" "$T/a3.bsp" || fail "$map: json run exit $?"
    cmp -s "$T/a1.bsp" "$T/a2.bsp" || fail "$map: -threads 1 and 2 differ"
    cmp -s "$T/a2.bsp" "$T/a3.bsp" || fail "$map: two runs differ"
    cmp -s "$D/$map.bsp" "$T/a1.bsp" && ! "$QVIS" -quiet "$T/a1.bsp" && fail "$map: nothing rewritten"
    for key in '"seconds"' '"flow"' '"clusters"' '"portals"' '"avg_visible"' '"max_visible"' '"vis_bytes"'; do
        grep -q "$key" "$T/a3.json" || fail "$map: -json lacks $key"
    done
    if [ -x "$Q2MAP_BIN/bspinfo" ]; then
        "$Q2MAP_BIN/bspinfo" --check "$T/a2.bsp" >"$T/check.txt" 2>&1 || fail "$map: bspinfo --check: $(head -3 "$T/check.txt")"
    fi
    # -fast must run and write a (looser) lump too
    setup $map f; "$QVIS" -quiet -fast "$T/f.bsp" || fail "$map: -fast exit $?"
done

# Bad portal files: exit 1, a message naming the file, the bsp byte-identical.
bad() { # label
    "$QVIS" -quiet "$T/b.bsp" 2>"$T/err.txt"
    rc=$?
    [ $rc -eq 1 ] || fail "$1: exit $rc, expected 1"
    cmp -s "$T/b.bsp" "$T/b.orig" || fail "$1: bsp was modified"
    grep -q "b.prt\|b.bsp" "$T/err.txt" || fail "$1: error does not name the file: $(cat "$T/err.txt")"
}
setup q2_liquids b; cp "$T/b.bsp" "$T/b.orig"
rm -f "$T/b.prt"; bad "missing .prt"
head -c 1200 "$D/q2_liquids.prt" >"$T/b.prt"; bad "truncated .prt"
printf 'PRT1\n18\n1\n4 0 1 (0 0 0) (0 1 0) (zz 1 1)\n' >"$T/b.prt"; bad "malformed .prt"
cp "$D/q2_light_sun.prt" "$T/b.prt"; bad "cluster count mismatch"
printf 'PRT1\n18\n1\n4 0 40 (0 0 0) (0 64 0) (0 64 64) (0 0 64)\n' >"$T/b.prt"; bad "cluster out of range"
ls "$T"/*.tmp* >/dev/null 2>&1 && fail "temporary files left behind"

# -checkpvs: a PVS from our flow passes; a bsp without vis data is an error.
setup q2_liquids c
"$QVIS" -quiet -threads 2 "$T/c.bsp" || fail "qvis on c.bsp failed"
"$QVIS" -checkpvs "$T/c.bsp" >"$T/chk.txt" 2>&1 || fail "-checkpvs on our own output: $(cat "$T/chk.txt")"
grep -q "0 hidden pairs" "$T/chk.txt" || fail "-checkpvs did not report its count: $(cat "$T/chk.txt")"
python3 - "$T/c.bsp" "$T/novis.bsp" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("<ii", d, 8 + 8 * 3, 0, 0)  # empty the visibility lump
open(sys.argv[2], "wb").write(d)
PY
"$QVIS" -checkpvs "$T/novis.bsp" 2>"$T/chk.txt"; rc=$?
[ $rc -eq 1 ] || fail "-checkpvs without vis data: exit $rc, expected 1"
grep -q "no visibility data" "$T/chk.txt" || fail "-checkpvs without vis: $(cat "$T/chk.txt")"
"$QVIS" -threads -3 "$T/c.bsp" 2>/dev/null; rc=$?
[ $rc -eq 2 ] || fail "-threads -3: exit $rc, expected 2"

[ $fails -eq 0 ] && echo "qvis_cli: all passed"
exit $((fails > 0))
