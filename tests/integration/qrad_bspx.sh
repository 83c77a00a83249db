#!/bin/bash
# BSPX round trip (issue 16, must show 1): qrad -lightgrid -wrnormals
# -world_units_per_luxel writes the three lumps; bspinfo lists them decoded
# and --check passes; qvis keeps them byte for byte; a relight with the
# options writes the same bytes again and one without them drops them; qview
# draws the decoupled lightmaps and the light-grid overlay. Broken copies of
# each lump (bad offset, bad count, bad index, cycle) are refused by
# bspinfo --check with a message naming the lump, and by qvis, without a
# crash and without touching the file.
set -u
. "$(dirname "$0")/lib/common.sh"
q2m_begin
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 0; }

src="$DATA/bspx/bspx_room.bsp"
cp "$src" "$TMP/lit.bsp"
"$BIN/qrad" -quiet -threads 2 -lightgrid -wrnormals -world_units_per_luxel 8 "$TMP/lit.bsp" || fail "qrad with the BSPX options"
"$BIN/bspinfo" "$TMP/lit.bsp" >"$TMP/info.txt" || fail "bspinfo"
grep -q "BSPX: 3 lumps" "$TMP/info.txt" || bad "bspinfo does not list 3 BSPX lumps"
grep -Eq "LIGHTGRID_OCTREE .*grid [0-9]+ x [0-9]+ x [0-9]+ points.* [1-9][0-9]* samples" "$TMP/info.txt" || bad "no light grid summary"
grep -Eq "FACENORMALS .* [1-9][0-9]* unique vectors, [1-9][0-9]* face vertices" "$TMP/info.txt" || bad "no face normals summary"
grep -Eq "DECOUPLED_LM .* [1-9][0-9]* faces, [1-9][0-9]* luxels" "$TMP/info.txt" || bad "no decoupled lightmap summary"
"$BIN/bspinfo" --check "$TMP/lit.bsp" >"$TMP/check.txt" 2>&1 || { cat "$TMP/check.txt"; bad "bspinfo --check on qrad's output"; }
# qrad writes nothing an engine drops: no engine rule fires, even --strict.
"$BIN/bspinfo" --check --strict "$TMP/lit.bsp" >"$TMP/strict.txt" 2>&1 || { cat "$TMP/strict.txt"; bad "bspinfo --check --strict on qrad's output"; }
if grep -q "warning: engine" "$TMP/strict.txt"; then cat "$TMP/strict.txt"; bad "an engine rule fires on qrad's output"; fi

# Lump bytes by name, from the file (independent of formats/bspx.c).
lumps() {
    python3 - "$1" <<'PY'
import hashlib, struct, sys
d = open(sys.argv[1], "rb").read()
end = max(o + l for o, l in struct.iter_unpack("<ii", d[8:160]))
p = (end + 3) & ~3
assert d[p:p + 4] == b"BSPX", "no BSPX block"
n = struct.unpack_from("<I", d, p + 4)[0]
for i in range(n):
    name, ofs, ln = struct.unpack_from("<24sII", d, p + 8 + 32 * i)
    print(name.rstrip(b"\0").decode(), ln, hashlib.md5(d[ofs:ofs + ln]).hexdigest(), ofs % 4)
PY
}
lumps "$TMP/lit.bsp" >"$TMP/lumps.txt" || bad "BSPX directory unreadable"
[ "$(cut -d' ' -f1 "$TMP/lumps.txt" | tr '\n' ' ')" = "DECOUPLED_LM FACENORMALS LIGHTGRID_OCTREE " ] ||
    bad "lumps not the three, in name order: $(cat "$TMP/lumps.txt")"
awk '$4 != 0 { exit 1 }' "$TMP/lumps.txt" || bad "a lump is not 4-byte aligned"

# qvis keeps them (it rewrites the visibility lump, so they move).
cp "$TMP/lit.bsp" "$TMP/revis.bsp"
cp "$DATA/bspx/bspx_room.prt" "$TMP/revis.prt"
"$BIN/qvis" -quiet "$TMP/revis.bsp" || bad "qvis on the lit bsp"
lumps "$TMP/revis.bsp" >"$TMP/lumps_vis.txt"
cmp -s "$TMP/lumps.txt" "$TMP/lumps_vis.txt" || bad "qvis changed the BSPX lumps"
"$BIN/bspinfo" --check "$TMP/revis.bsp" >/dev/null 2>&1 || bad "bspinfo --check after qvis"

# A relight with the options replaces them with the same bytes; without
# them it drops them (they would describe the old lighting).
cp "$TMP/lit.bsp" "$TMP/relit.bsp"
"$BIN/qrad" -quiet -threads 1 -lightgrid -wrnormals -world_units_per_luxel 8 "$TMP/relit.bsp" || bad "relight"
cmp -s "$TMP/lit.bsp" "$TMP/relit.bsp" || bad "relighting with the same options changed the file (or -threads 1 and 2 differ)"
cp "$TMP/lit.bsp" "$TMP/plain.bsp"
"$BIN/qrad" -quiet "$TMP/plain.bsp" || bad "relight without options"
cp "$src" "$TMP/plain_fresh.bsp"
"$BIN/qrad" -quiet "$TMP/plain_fresh.bsp" || bad "plain qrad"
cmp -s "$TMP/plain.bsp" "$TMP/plain_fresh.bsp" || bad "a relight without the options does not equal a plain qrad run"
"$BIN/bspinfo" "$TMP/plain.bsp" | grep -q BSPX && bad "stale BSPX lumps kept after a plain relight"
# -novanilla: every face's vanilla lightofs is -1; the bsp still checks.
cp "$src" "$TMP/nov.bsp"
"$BIN/qrad" -quiet -world_units_per_luxel 8 -novanilla "$TMP/nov.bsp" || bad "-novanilla"
"$BIN/bspinfo" --check "$TMP/nov.bsp" >/dev/null 2>&1 || bad "bspinfo --check on -novanilla output"
"$BIN/bspinfo" "$TMP/nov.bsp" | grep -q " 0 of [0-9]* faces with lightmaps" || bad "-novanilla left vanilla lightmaps"
# without the option and without a worldspawn _world_units_per_luxel: an
# error (the bsp would have no lightmaps), the file left as it was
cp "$TMP/nov.bsp" "$TMP/nov2.bsp"
"$BIN/qrad" -quiet -novanilla "$TMP/nov2.bsp" 2>/dev/null; [ $? -eq 1 ] || bad "-novanilla alone accepted"
cmp -s "$TMP/nov.bsp" "$TMP/nov2.bsp" || bad "-novanilla alone changed the bsp"

# qview: the decoupled lightmaps change the picture; the overlay draws.
if [ -x "$BIN/qview" ]; then
    cam="60 0 250 0 65"
    "$BIN/qview" "$TMP/lit.bsp" --render "$TMP/dec.png" --camera $cam --mode lightmap >/dev/null 2>&1 || bad "qview render (decoupled)"
    "$BIN/qview" "$TMP/plain.bsp" --render "$TMP/van.png" --camera $cam --mode lightmap >/dev/null 2>&1 || bad "qview render (vanilla)"
    "$BIN/qview" "$TMP/lit.bsp" --render "$TMP/grid.png" --camera $cam --mode lightmap --overlay lightgrid >/dev/null 2>&1 ||
        bad "qview --overlay lightgrid"
    "$BIN/qview" "$TMP/lit.bsp" --render "$TMP/nrm.png" --camera $cam --overlay normals >/dev/null 2>&1 || bad "qview --overlay normals"
    cmp -s "$TMP/dec.png" "$TMP/van.png" && bad "decoupled lightmaps drew the same picture as the vanilla ones"
    cmp -s "$TMP/dec.png" "$TMP/grid.png" && bad "the light-grid overlay drew nothing"
    "$BIN/qview" "$TMP/plain.bsp" --render "$TMP/x.png" --overlay lightgrid >/dev/null 2>"$TMP/ov.err"
    [ $? -eq 1 ] && grep -q "no LIGHTGRID_OCTREE" "$TMP/ov.err" || bad "--overlay lightgrid on a bsp without one: no clear error"    # Another compiler's lumps: ericw-tools' light wrote q2_detail's; with its
    # DECOUPLED_LM entry renamed (so no reader finds it) the picture changes.
    cp "$DATA/bspx/ericw/q2_detail.bsp" "$TMP/ew.bsp"
    python3 - "$TMP/ew.bsp" "$TMP/ew_nodec.bsp" <<'PY' || bad "renaming ericw-tools' DECOUPLED_LM"
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
end = max(o + l for o, l in struct.iter_unpack("<ii", bytes(d[8:160])))
p = (end + 3) & ~3
assert d[p:p + 4] == b"BSPX"
for i in range(struct.unpack_from("<I", d, p + 4)[0]):
    e = p + 8 + 32 * i
    if d[e:e + 12] == b"DECOUPLED_LM":
        d[e] = ord("X")
open(sys.argv[2], "wb").write(d)
PY
    ecam="200 300 200 -30 35"
    "$BIN/qview" "$TMP/ew.bsp" --render "$TMP/ew.png" --camera $ecam --mode lightmap >/dev/null 2>&1 || bad "qview render (ericw-tools' decoupled)"
    "$BIN/qview" "$TMP/ew_nodec.bsp" --render "$TMP/ew_nodec.png" --camera $ecam --mode lightmap >/dev/null 2>&1 || bad "qview render (ericw-tools' vanilla)"
    cmp -s "$TMP/ew.png" "$TMP/ew_nodec.png" && bad "qview drew ericw-tools' decoupled lightmaps as the vanilla ones"
    "$BIN/qview" "$TMP/ew.bsp" --render "$TMP/ew_grid.png" --camera $ecam --mode lightmap --overlay lightgrid >/dev/null 2>&1 ||
        bad "qview --overlay lightgrid on ericw-tools' grid"
    cmp -s "$TMP/ew.png" "$TMP/ew_grid.png" && bad "the overlay of ericw-tools' light grid drew nothing"
fi

# Broken copies: each rewrites one lump (or the directory) of lit.bsp.
python3 - "$TMP/lit.bsp" "$TMP" <<'PY' || bad "making the broken copies"
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
out = sys.argv[2]
end = max(o + l for o, l in struct.iter_unpack("<ii", d[8:160]))
p = (end + 3) & ~3
n = struct.unpack_from("<I", d, p + 4)[0]
ent = {}
for i in range(n):
    name, ofs, ln = struct.unpack_from("<24sII", d, p + 8 + 32 * i)
    ent[name.rstrip(b"\0").decode()] = (p + 8 + 32 * i, ofs, ln)
def save(tag, b):
    open("%s/broken_%s.bsp" % (out, tag), "wb").write(b)
def copy():
    return bytearray(d)
# directory: an offset past the end of the file; a lump count too large
b = copy(); e = ent["FACENORMALS"][0]; struct.pack_into("<I", b, e + 24, len(d) + 100); save("dir_offset", b)
b = copy(); struct.pack_into("<I", b, p + 4, 1000000); save("dir_count", b)
# FACENORMALS: a count that does not match the size; an index past the table
fn = ent["FACENORMALS"]
b = copy(); struct.pack_into("<I", b, fn[1], struct.unpack_from("<I", d, fn[1])[0] + 1); save("normals_count", b)
nv = struct.unpack_from("<I", d, fn[1])[0]
b = copy(); struct.pack_into("<I", b, fn[1] + 4 + 12 * nv + 4, nv + 7); save("normals_index", b)
# DECOUPLED_LM: face 0's offset past the lighting lump; one entry too few
dl = ent["DECOUPLED_LM"]
lightlen = struct.unpack_from("<i", d, 8 + 8 * 7 + 4)[0]
for f in range(dl[2] // 40):
    if struct.unpack_from("<i", d, dl[1] + 40 * f + 4)[0] >= 0:
        break
b = copy(); struct.pack_into("<i", b, dl[1] + 40 * f + 4, lightlen); save("decoupled_offset", b)
b = copy(); struct.pack_into("<I", b, dl[0] + 28, dl[2] - 40); save("decoupled_count", b)
# LIGHTGRID_OCTREE: a root leaf index past the leafs; a root node index past
# the nodes; a leaf count too large; a one-node tree whose child is itself
lg = ent["LIGHTGRID_OCTREE"]
b = copy(); struct.pack_into("<I", b, lg[1] + 37, (1 << 31) | 999); save("grid_leaf_index", b)
b = copy(); struct.pack_into("<I", b, lg[1] + 37, 999); save("grid_node_index", b)
nn = struct.unpack_from("<I", d, lg[1] + 41)[0]
b = copy(); struct.pack_into("<I", b, lg[1] + 45 + 44 * nn, 1 << 20); save("grid_leaf_count", b)
# the cycle: insert a node 0 (0 0 0; children all 0) and make it the root
hdr = bytes(d[lg[1]:lg[1] + 37]) + struct.pack("<I", 0)
node = struct.pack("<3i8I", 0, 0, 0, *([0] * 8))
rest = bytes(d[lg[1] + 45 + 44 * nn:lg[1] + lg[2]])
newlump = hdr + struct.pack("<I", 1) + node + rest
# relocate the lump to the end of the file
b = copy()
pad = (-len(b)) % 4
b += b"\0" * pad
ofs = len(b)
b += newlump
struct.pack_into("<II", b, lg[0] + 24, ofs, len(newlump))
save("grid_cycle", b)
PY
for f in "$TMP"/broken_*.bsp; do
    tag=$(basename "$f" .bsp)
    case $tag in
        broken_dir_*) want="BSPX" ;;
        broken_normals_*) want="FACENORMALS" ;;
        broken_decoupled_*) want="DECOUPLED_LM" ;;
        broken_grid_*) want="LIGHTGRID_OCTREE" ;;
    esac
    "$BIN/bspinfo" --check "$f" >"$TMP/$tag.out" 2>&1
    rc=$?
    [ $rc -eq 1 ] || bad "$tag: bspinfo --check exit $rc (want 1)"
    grep -q "$want" "$TMP/$tag.out" || { bad "$tag: no problem naming $want"; cat "$TMP/$tag.out"; }
    case $tag in broken_grid_cycle) grep -q "(a cycle)" "$TMP/$tag.out" || bad "$tag: the cycle is not named" ;; esac
    "$BIN/bspinfo" "$f" >/dev/null 2>&1
    rc=$?
    [ $rc -lt 128 ] || bad "$tag: bspinfo crashed ($rc)"
    cp "$f" "$TMP/$tag.vis.bsp"
    cp "$DATA/bspx/bspx_room.prt" "$TMP/$tag.vis.prt"
    "$BIN/qvis" -quiet "$TMP/$tag.vis.bsp" >"$TMP/$tag.vis.out" 2>&1
    rc=$?
    [ $rc -eq 1 ] && grep -q "$want" "$TMP/$tag.vis.out" || bad "$tag: qvis exit $rc, not refused naming $want"
    cmp -s "$f" "$TMP/$tag.vis.bsp" || bad "$tag: qvis changed the file it refused"
    if [ -x "$BIN/qview" ]; then
        "$BIN/qview" "$f" --render "$TMP/$tag.png" >/dev/null 2>&1
        rc=$?
        [ $rc -lt 128 ] || bad "$tag: qview crashed ($rc)"
    fi
done
[ "$(ls "$TMP"/broken_*.bsp | grep -vc vis)" -eq 10 ] || bad "fewer broken copies than expected"
[ $fail -eq 0 ] && echo "qrad_bspx: ok"
exit $fail
