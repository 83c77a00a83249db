#!/bin/bash
# The extended QBSP format through every program: a map compiled with
# -qbism and without gives the same map in both layouts. bspinfo reads
# and validates both; qvis and qrad keep each file's format and compute the
# same visibility and lighting bytes for both; qview renders both alike.
set -u
. "$(dirname "$0")/lib/common.sh"
q2m_begin
for p in qbsp qvis qrad bspinfo; do
    [ -x "$BIN/$p" ] || { echo "FAIL: $BIN/$p not built"; exit 1; }
done
cp "$DATA/map/q2_light_group.map" "$TMP/ibsp.map"
cp "$DATA/map/q2_light_group.map" "$TMP/qbsp.map"
ident() { head -c 4 "$1" 2>/dev/null; }
# lump N's bytes of a .bsp (both formats: the header is the same)
lump() {
    python3 - "$1" "$2" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
n = int(sys.argv[2])
ofs, ln = struct.unpack_from("<ii", d, 8 + 8 * n)
sys.stdout.buffer.write(d[ofs:ofs + ln])
PY
}

(cd "$TMP" && "$BIN/qbsp" -threads 2 ibsp.map >ibsp.qbsp.log 2>&1) || bad "qbsp ibsp.map failed"
(cd "$TMP" && "$BIN/qbsp" -threads 2 -qbism qbsp.map >qbsp.qbsp.log 2>&1) || bad "qbsp -qbism failed"
[ "$(ident "$TMP/ibsp.bsp")" = IBSP ] || bad "without -qbism the bsp is not IBSP"
[ "$(ident "$TMP/qbsp.bsp")" = QBSP ] || bad "-qbism did not write QBSP"
grep -q "(QBSP format)" "$TMP/qbsp.qbsp.log" || bad "qbsp -qbism does not say it wrote QBSP"
cmp -s "$TMP/ibsp.prt" "$TMP/qbsp.prt" || bad "the .prt depends on the format"

"$BIN/bspinfo" "$TMP/qbsp.bsp" >"$TMP/info.txt" 2>&1 || bad "bspinfo cannot read QBSP: $(cat "$TMP/info.txt")"
grep -q "format: *QBSP" "$TMP/info.txt" || bad "bspinfo does not report the QBSP format"
# same counts in both layouts (the bytes column differs)
diff <("$BIN/bspinfo" "$TMP/ibsp.bsp" | awk 'NR > 3 && NF == 3 {print $1, $2}') \
     <("$BIN/bspinfo" "$TMP/qbsp.bsp" | awk 'NR > 3 && NF == 3 {print $1, $2}') >/dev/null ||
    bad "bspinfo counts differ between the formats"
"$BIN/bspinfo" --check "$TMP/qbsp.bsp" >/dev/null 2>&1 || bad "bspinfo --check rejects the QBSP file"
"$BIN/bspinfo" --check --strict "$TMP/qbsp.bsp" >"$TMP/strict.txt" 2>/dev/null &&
    bad "bspinfo --check --strict accepts QBSP (id's Quake 2 does not load it)"
grep -q "QBSP format" "$TMP/strict.txt" || bad "--strict does not say why: $(cat "$TMP/strict.txt")"

for f in ibsp qbsp; do
    (cd "$TMP" && "$BIN/qvis" -threads 2 $f.bsp >$f.vis.log 2>&1) || bad "qvis $f.bsp failed: $(tail -1 "$TMP/$f.vis.log")"
    (cd "$TMP" && "$BIN/qrad" -threads 2 -bounce 1 $f.bsp >$f.rad.log 2>&1) || bad "qrad $f.bsp failed: $(tail -1 "$TMP/$f.rad.log")"
done
[ "$(ident "$TMP/qbsp.bsp")" = QBSP ] || bad "qvis/qrad did not keep the QBSP format"
[ "$(ident "$TMP/ibsp.bsp")" = IBSP ] || bad "qvis/qrad did not keep the IBSP format"
[ "$(lump "$TMP/qbsp.bsp" 3 | wc -c)" -gt 0 ] || bad "no visibility lump in the QBSP file"
[ "$(lump "$TMP/qbsp.bsp" 7 | wc -c)" -gt 0 ] || bad "no lighting lump in the QBSP file"
for n in 0 1 2 3 5 7 12 13 14 17 18; do
    cmp -s <(lump "$TMP/ibsp.bsp" $n) <(lump "$TMP/qbsp.bsp" $n) || bad "lump $n differs between IBSP and QBSP"
done
"$BIN/bspinfo" --check "$TMP/qbsp.bsp" >/dev/null 2>&1 || bad "the vised, lit QBSP file is not valid"

if [ -x "$BIN/qview" ]; then
    for f in ibsp qbsp; do
        "$BIN/qview" "$TMP/$f.bsp" --render "$TMP/$f.png" --size 160x120 >/dev/null 2>&1 || bad "qview $f.bsp failed"
    done
    a=$("$BIN/qview" --image-stats "$TMP/ibsp.png" 2>&1 | sed "s/^.*png: //") b=$("$BIN/qview" --image-stats "$TMP/qbsp.png" 2>&1 | sed "s/^.*png: //")
    [ -n "$a" ] && [ "$a" = "$b" ] || bad "qview renders the formats differently: '$a' vs '$b'"
    cmp -s "$TMP/ibsp.png" "$TMP/qbsp.png" || bad "qview's pictures of the two formats differ"
else
    echo "SKIP: qview not built"
fi
exit $fail
