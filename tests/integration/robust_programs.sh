#!/bin/bash
# End-to-end robustness: every program (qbsp, qvis, qrad, qview headless,
# bspinfo, q2map) is fed hand-made broken inputs (tests/data/robust/, written
# by make_inputs.py) and broken command lines. Each case must exit with its
# expected status class (1 = bad input, 2 = usage error), print an error that
# matches its regex (the file name, and the line where there is one), trip no
# sanitizer, and leave no partial output: the bsp given to qvis/qrad stays
# byte-identical, and a failing qbsp leaves no .bsp behind.
set -u
BIN=$(cd "${Q2MAP_BIN:?}" && pwd)
DATA=${Q2MAP_DATA:?}
TMP=${Q2MAP_TMP:?}
R="$DATA/robust"
rm -rf "$TMP"; mkdir -p "$TMP"
fail=0; n=0
bad() { echo "FAIL: $*"; fail=1; }
for p in qbsp qvis qrad qview bspinfo q2map; do
    [ -x "$BIN/$p" ] || { echo "FAIL: $BIN/$p not built"; exit 1; }
done

# check NAME RC REGEX OUT: the common assertions on one finished case.
check() {
    local name=$1 want=$2 re=$3 rc=$4 out=$5
    n=$((n + 1))
    if grep -qE "ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:" <<<"$out"; then
        bad "$name: sanitizer report: $(grep -m1 -E 'Sanitizer|runtime error' <<<"$out")"
    elif [ "$rc" -ne "$want" ]; then
        bad "$name: exit $rc, expected $want: $(head -c 400 <<<"$out")"
    elif ! grep -qE -- "$re" <<<"$out"; then
        bad "$name: message does not match /$re/: $(head -c 400 <<<"$out")"
    fi
}

# run NAME RC REGEX CMD...: runs CMD (in a fresh directory $D, where the
# case's files are) with a time limit and checks it.
run() {
    local name=$1 want=$2 re=$3; shift 3
    local out rc
    out=$(cd "$D" && timeout 60 "$@" 2>&1 </dev/null); rc=$?
    check "$name" "$want" "$re" "$rc" "$out"
}
newdir() { D="$TMP/$1"; mkdir -p "$D"; }

# qbsp MAPFILE RC REGEX [ARGS...]: compiles a copy of tests/data/robust/MAPFILE
# and checks that no .bsp (or .prt) was left behind.
qbsp_case() {
    local f=$1 want=$2 re=$3; shift 3
    newdir "qbsp_${f%.*}"
    cp "$R/$f" "$D/$f"
    run "qbsp $f $*" "$want" "$re" "$BIN/qbsp" -threads 2 "$@" "$f"
    [ "$want" -ne 0 ] || return 0
    local left
    left=$(cd "$D" && ls -A | grep -vE "^$f\$|\\.(log|pts|lin)\$")
    [ -z "$left" ] || bad "qbsp $f: left files behind on failure: $left"
}

# bsp_case PROG BSPFILE PRTFILE RC REGEX [ARGS...]: runs qvis or qrad on a
# copy of BSPFILE (with PRTFILE as its .prt, '-' for none) and checks that the
# bsp is byte-identical afterwards and no other file appeared.
bsp_case() {
    local prog=$1 bsp=$2 prt=$3 want=$4 re=$5; shift 5
    newdir "${prog}_${bsp%.*}_${prt%.*}_$n"
    cp "$R/$bsp" "$D/$bsp"; chmod u+w "$D/$bsp"
    [ "$prt" = - ] || cp "$R/$prt" "$D/${bsp%.bsp}.prt"
    local before after
    before=$(ls -A "$D" | sort); local sum; sum=$(md5sum <"$D/$bsp")
    run "$prog $bsp ${prt} $*" "$want" "$re" "$BIN/$prog" -threads 2 "$@" "$bsp"
    [ "$(md5sum <"$D/$bsp")" = "$sum" ] || bad "$prog $bsp $prt: the bsp changed on failure"
    after=$(ls -A "$D" | sort)
    [ "$before" = "$after" ] || bad "$prog $bsp $prt: files appeared: $(comm -13 <(echo "$before") <(echo "$after") | tr '\n' ' ')"
}

# ---------------------------------------------------------------- qbsp
qbsp_case map_open_brushes.map 1 'map_open_brushes\.map:[0-9]+.*open brush|map_open_brushes\.map.*no brushes'
qbsp_case map_no_volume.map 1 'map_no_volume\.map'
qbsp_case map_inf_coordinate.map 1 'map_inf_coordinate\.map:[0-9]+'
# Brushes qbsp drops with a warning (file:line) and compiles the rest: exit 0.
qbsp_case map_huge_coordinate.map 0 'warning: map_huge_coordinate\.map:51:.*brush 6'
qbsp_case map_collinear.map 0 'warning: map_collinear\.map:52:.*collinear'
qbsp_case map_many_same_planes.map 0 'warning: map_many_same_planes\.map:53:.*duplicate plane'
qbsp_case map_entity_outside.map 1 'map_entity_outside\.map.*leak|leak.*map_entity_outside' -leaktest
qbsp_case map_brush_beyond_world.map 1 'map_brush_beyond_world\.map:51:.*beyond the world'
qbsp_case map_entity_beyond_world.map 1 'map_entity_beyond_world\.map:56:.*outside the world'
qbsp_case good_room.map 1 'good_room\.bsp' -onlyents
qbsp_case good_room.map 1 '/nonexistent' -basedir /nonexistent
qbsp_case good_room.map 1 'nodir/x\.log' -log nodir/x.log
qbsp_case map_truncated.map 1 'map_truncated\.map:[0-9]+'
qbsp_case map_empty.map 1 'map_empty\.map'
qbsp_case map_only_comments.map 1 'map_only_comments\.map'
qbsp_case map_no_worldspawn.map 1 'map_no_worldspawn\.map:[0-9]+'
qbsp_case map_long_key.map 1 'map_long_key\.map:[0-9]+'
qbsp_case map_long_value.map 1 'map_long_value\.map:[0-9]+'
qbsp_case map_long_texture_entity.map 1 'map_long_texture_entity\.map:[0-9]+'
qbsp_case map_unclosed_entity.map 1 'map_unclosed_entity\.map:[0-9]+'
qbsp_case map_key_no_value.map 1 'map_key_no_value\.map:[0-9]+'
qbsp_case map_utf16.map 1 'map_utf16\.map'
# Compiler keys (issue 13): a missing prefab names both files and the line;
# bad values are warned about with entity, key and line, then defaulted.
qbsp_case map_external_missing.map 1 'map_external_missing\.map:64:.*no_such_prefab\.map.*not found'
qbsp_case map_external_dir.map 1 'map_external_dir\.map:64:.*external map "\."'
qbsp_case map_external_self.map 0 'wrote map_external_self\.bsp'
qbsp_case map_key_bad_values.map 0 'map_key_bad_values\.map:60: entity 2 \(func_wall\): key "_mirrorinside" "yes".*using the default'
qbsp_case map_key_bad_values.map 0 'map_key_bad_values\.map:76: entity 3 \(misc_external_map\): key "_external_map_scale" "0 0 0"'
qbsp_case map_key_bad_values.map 0 'map_key_bad_values\.map:3: entity 0 \(worldspawn\): key "_tb_layer_omit_from_export" "nan"'
qbsp_case map_group_key_bad_values.map 0 'map_group_key_bad_values\.map:58: entity 2 \(func_detail\): key "_chop_order" "first".*using 0'
qbsp_case map_group_key_bad_values.map 0 'map_group_key_bad_values\.map:59: entity 2 \(func_detail\): key "_chop" "2".*using 1'
qbsp_case map_group_key_bad_values.map 0 'map_group_key_bad_values\.map:60: entity 2 \(func_detail\): key "_mirrorinside" "maybe".*the default'
qbsp_case map_group_key_bad_values.map 0 'map_group_key_bad_values\.map:61: entity 2 \(func_detail\): key "_minlight" "bright" is not a number'
qbsp_case map_group_key_bad_values.map 0 'map_group_key_bad_values\.map:62: entity 2 \(func_detail\): key "_phong_angle" "400"'
qbsp_case map_group_key_bad_values.map 0 'map_group_key_bad_values\.map:64: entity 2 \(func_detail\): key "_world_units_per_luxel" "-8"'
qbsp_case good_room.map 1 'no_such_addition\.map.*not found' -add no_such_addition.map
qbsp_case good_room.map 2 'convert' -convert quake1
qbsp_case good_room.map 2 'subdivide' -subdivide 8
qbsp_case good_room.map 2 'bogus' -bogus
qbsp_case good_room.map 2 'threads' -threads
qbsp_case good_room.map 2 'threads' -threads abc
qbsp_case good_room.map 2 'chop' -chop -5
newdir qbsp_missing
run "qbsp missing" 1 'nosuch\.map' "$BIN/qbsp" nosuch.map
# Report files in a missing directory fail before any work: no .bsp, no .prt.
qbsp_case good_room.map 1 'nodir/x\.json: cannot create' -json nodir/x.json
qbsp_case good_room.map 1 'nodir/x\.d: cannot create' -deps nodir/x.d
run "qbsp directory" 1 'adir' bash -c "mkdir -p adir && $BIN/qbsp adir"
run "qbsp notdir" 1 'afile/x\.map' bash -c "touch afile && $BIN/qbsp afile/x.map"
run "qbsp device file" 1 '/dev/zero' "$BIN/qbsp" /dev/zero
newdir qbsp_outdir; cp "$R/good_room.map" "$D/"
run "qbsp out in missing dir" 1 'nodir/out\.(bsp|prt):' "$BIN/qbsp" good_room.map nodir/out.bsp
run "qbsp out is a dir" 1 'outdir' bash -c "mkdir -p outdir && $BIN/qbsp good_room.map outdir"
[ ! -e "$D/good_room.bsp" ] || bad "qbsp: a .bsp appeared beside the map when the output path was bad"

# ---------------------------------------------------------------- qvis
bsp_case qvis good.bsp - 1 'good\.prt'
bsp_case qvis good.bsp prt_more_clusters.prt 1 'good\.prt: 9 clusters, but good\.bsp'
bsp_case qvis good.bsp prt_1e9_clusters.prt 1 'good\.prt: 1000000000 clusters'
bsp_case qvis good.bsp prt_empty.prt 1 'good\.prt:1:'
bsp_case qvis good.bsp prt_quake1_header.prt 1 'good\.prt'
bsp_case qvis good.bsp prt_other_map.prt 1 'good\.prt: [0-9]+ clusters, but good\.bsp'
bsp_case qvis good.bsp prt_garbage.prt 1 'good\.prt:1:'
bsp_case qvis bsp_truncated.bsp good.prt 1 'bsp_truncated\.bsp'
bsp_case qvis bsp_lump_2gb.bsp good.prt 1 'bsp_lump_2gb\.bsp'
bsp_case qvis bsp_header_only.bsp good.prt 1 'bsp_header_only\.bsp'
bsp_case qvis good.bsp good.prt 2 'bogus' -bogus
bsp_case qvis good.bsp good.prt 2 'level' -level 9
bsp_case qvis good.bsp good.prt 2 'threads' -threads abc
newdir qvis_missing
run "qvis missing" 1 'nosuch\.bsp' "$BIN/qvis" nosuch.bsp
run "qvis device file" 1 '/dev/zero: not a regular file' "$BIN/qvis" /dev/zero
run "qvis directory" 1 'adir\.bsp' bash -c "mkdir -p adir.bsp && $BIN/qvis adir.bsp"

# ---------------------------------------------------------------- qrad
# A visibility lump that claims 10^9 clusters: the bsp is refused (bsp_validate) and left unchanged.
bsp_case qrad bsp_vis_1e9.bsp - 1 'bsp_vis_1e9\.bsp: not a valid \.bsp: visibility lump claims 1000000000 clusters'
bsp_case qrad bsp_truncated.bsp - 1 'bsp_truncated\.bsp'
bsp_case qrad bsp_header_only.bsp - 1 'bsp_header_only\.bsp'
bsp_case qrad bsp_lump_2gb.bsp - 1 'bsp_lump_2gb\.bsp: lump faces .*2147483632'
bsp_case qrad bsp_texinfo_1e9.bsp - 1 'bsp_texinfo_1e9\.bsp: lump texinfo'
bsp_case qrad bsp_entities_unterminated.bsp - 1 'bsp_entities_unterminated\.bsp: not a valid \.bsp: entities:3:'
# Structurally broken bsps that the container reader accepts: bsp_validate refuses them.
bsp_case qrad good.bsp - 1 'nodir/x\.json: cannot create' -json nodir/x.json
bsp_case qvis good.bsp good.prt 1 'nodir/x\.json: cannot create' -json nodir/x.json
for f in bsp_plane_nan bsp_vertex_inf bsp_model_headnode_1e9; do
    bsp_case qrad "$f.bsp" - 1 "$f\\.bsp: not a valid \\.bsp"
done
bsp_case qrad good.bsp - 2 'bogus' -bogus
bsp_case qrad good.bsp - 2 'bounce' -bounce -1
bsp_case qrad good.bsp - 2 'bounce' -bounce abc
bsp_case qrad good.bsp - 2 'scale' -scale nan
bsp_case qrad good.bsp - 2 'soft' -soft 9
bsp_case qrad good.bsp - 2 'soft' -soft 1.5
bsp_case qrad good.bsp - 1 '/nonexistent' -basedir /nonexistent
bsp_case qrad good.bsp - 1 'nosuchmod' -gamedir nosuchmod
newdir qrad_missing
run "qrad missing" 1 'nosuch\.bsp' "$BIN/qrad" nosuch.bsp
run "qrad device file" 1 '/dev/zero: not a regular file' "$BIN/qrad" /dev/zero
run "qrad directory" 1 'adir\.bsp' bash -c "mkdir -p adir.bsp && $BIN/qrad adir.bsp"
# Light keys with bad values (issue 13): qrad warns naming the entity, the
# key and its line, uses the default and lights the map (exit 0); the
# result passes bspinfo --check (under the sanitizers: no NaN reaches a
# luxel's conversion).
newdir qrad_bad_keys; cp "$R/map_bad_light_keys.map" "$D/"
run "qbsp bad light keys" 0 '' "$BIN/qbsp" -threads 2 map_bad_light_keys.map
for k in '0 \(worldspawn, line 5\): "_dirtscale" "-2"' '0 \(worldspawn, line 8\): "_sun_angle"' \
    '2 \(light, line 20\): "_light_channel_mask" "1\.5" is not an integer' '2 \(light, line 22\): "_samples" "many"' \
    '3 \(func_wall, line 29\): "_phong_angle" "400"' '3 \(func_wall, line 30\): "_minlight" "1e999"'; do
    run "qrad bad light key $k" 0 "warning: entity $k" "$BIN/qrad" -threads 2 map_bad_light_keys.bsp
done
run "bspinfo bad light keys" 0 'valid' "$BIN/bspinfo" --check map_bad_light_keys.bsp
# The light, sun and bmodel keys of test_qrad_keys_lights (lines of the
# bsp's entity lump).
cp "$R/map_bad_light_keys2.map" "$D/"
run "qbsp bad light keys 2" 0 '' "$BIN/qbsp" -threads 2 map_bad_light_keys2.map
for k in '0 \(worldspawn, line 3\): "_dist" "0"' '0 \(worldspawn, line 5\): "_gamma" "-1"' \
    '0 \(worldspawn, line 9\): "_sun_vector" "0 0 0" is not a direction' '0 \(worldspawn, line 10\): "_sun_style" "-3"' \
    '2 \(light, line 24\): "_softangle" "wide"' '2 \(light, line 27\): "_dirtgain" "nan"' \
    '2 \(light, line 31\): "_angwait" "5"' '3 \(light, line 38\): "style" "300" is not an integer' \
    '4 \(func_wall, line 43\): "_lightignore" "2"' '4 \(func_wall, line 45\): "_phong_angle_concave" "400"'; do
    run "qrad bad light key $k" 0 "warning: entity $k" "$BIN/qrad" -threads 2 map_bad_light_keys2.bsp
done
run "bspinfo bad light keys 2" 0 'valid' "$BIN/bspinfo" --check map_bad_light_keys2.bsp

# Surface-light keys with bad values: the same, with a SURF_LIGHT lamp and a
# "_surface" template (tests/data/robust/map_bad_surflight_keys.map).
newdir qrad_bad_surf_keys; cp "$R/map_bad_surflight_keys.map" "$D/"
run "qbsp bad surflight keys" 0 '' "$BIN/qbsp" -threads 2 map_bad_surflight_keys.map
for k in '0 \(worldspawn, line 3\): "_surflightscale" "bright"' '0 \(worldspawn, line 5\): "_surflight_atten" "-1"' \
    '0 \(worldspawn, line 7\): "_surflight_minlight_scale" "1e999"' '0 \(worldspawn, line 9\): "_tex_saturation_boost" "nan"' \
    '2 \(light, line 21\): "_surface_offset" "far"' '2 \(light, line 23\): "_surflight_group" "-3"' \
    '3 \(func_wall, line 27\): "_surflight_color" "red"' '3 \(func_wall, line 28\): "_surflight_style" "300"'; do
    run "qrad bad surflight key $k" 0 "warning: entity $k" "$BIN/qrad" -threads 2 map_bad_surflight_keys.bsp
done
run "bspinfo bad surflight keys" 0 'valid' "$BIN/bspinfo" --check map_bad_surflight_keys.bsp

# ---------------------------------------------------------------- qview
newdir qview; cp "$R"/*.bsp "$R"/*.png "$R"/*.pts "$R"/good.prt "$R"/prt_garbage.prt "$D/"
QV="$BIN/qview --renderer soft --size 64x48 --threads 2"
run "qview missing" 1 'nosuch\.bsp' $QV --render o.png nosuch.bsp
run "qview truncated" 1 'bsp_truncated\.bsp' $QV --render o1.png bsp_truncated.bsp
run "qview 2gb lump" 1 'bsp_lump_2gb\.bsp' $QV --render o2.png bsp_lump_2gb.bsp
# An unusable visibility lump makes the bsp invalid: refused, naming the file.
run "qview vis 1e9" 1 'bsp_vis_1e9\.bsp: not a valid \.bsp: visibility' $QV --render v5.png bsp_vis_1e9.bsp
for f in bsp_plane_nan bsp_vertex_inf bsp_model_headnode_1e9; do
    run "qview $f" 1 "$f\\.bsp: not a valid \\.bsp" $QV --render "o_$f.png" "$f.bsp"
done
run "qview out dir missing" 1 'nodir/o\.png' $QV --render nodir/o.png good.bsp
run "qview size 0" 2 'size' $QV --size 0x0 --render o6.png good.bsp
run "qview size huge" 2 'size' $QV --size 1000000x1000000 --render o7.png good.bsp
run "qview views 1e9" 2 'views' $QV --views 1000000000 --out-dir vv good.bsp
run "qview device file" 1 '/dev/zero: not a regular file' $QV --render o13.png /dev/zero
run "qview pts missing" 1 'nosuch\.pts' $QV --pts nosuch.pts --render o9.png good.bsp
run "qview pts garbage" 1 'pts_garbage\.pts' $QV --pts pts_garbage.pts --render o10.png good.bsp
run "qview image-stats not png" 1 'not_a_png\.png' $BIN/qview --image-stats not_a_png.png
run "qview prt garbage" 1 'prt_garbage\.prt:1' $QV --prt prt_garbage.prt --render o11.png good.bsp
run "qview game missing" 1 '/nonexistent' $QV --game /nonexistent --render o12.png good.bsp
run "qview out-dir missing" 1 'nodir/sub' $QV --views 2 --out-dir nodir/sub good.bsp
run "qview unknown option" 2 'bogus' $QV --bogus good.bsp
for i in 1 2 6 7 9 10 11 12; do
    [ ! -e "$D/o$i.png" ] || bad "qview: o$i.png written by a failing run"
done
[ ! -e "$D/vv" ] || [ -z "$(ls -A "$D/vv")" ] || bad "qview: views written by a failing run"

# ---------------------------------------------------------------- bspinfo
newdir bspinfo; cp "$R/bsp_header_only.bsp" "$R/bsp_texinfo_1e9.bsp" "$D/"
run "bspinfo missing" 1 'nosuch\.bsp' "$BIN/bspinfo" nosuch.bsp
run "bspinfo device file" 1 '/dev/zero: not a regular file' "$BIN/bspinfo" /dev/zero
run "bspinfo directory" 1 'adir\.bsp' bash -c "mkdir -p adir.bsp && $BIN/bspinfo adir.bsp"
run "bspinfo header only" 1 'bsp_header_only\.bsp' "$BIN/bspinfo" bsp_header_only.bsp
run "bspinfo texinfo 1e9" 1 'bsp_texinfo_1e9\.bsp' "$BIN/bspinfo" --check bsp_texinfo_1e9.bsp
run "bspinfo json missing" 1 'nosuch\.bsp' "$BIN/bspinfo" --json nosuch.bsp

# ---------------------------------------------------------------- q2map
newdir q2map; cp "$R/map_truncated.map" "$R/good_room.map" "$R/bsp_truncated.bsp" "$D/"
run "q2map broken map" 1 'map_truncated\.map:[0-9]+' "$BIN/q2map" compile map_truncated.map -threads 2
[ ! -e "$D/map_truncated.bsp" ] || bad "q2map: a bsp was left for a broken map"
run "q2map missing map" 1 'nosuch\.map' "$BIN/q2map" compile nosuch.map
run "q2map unknown command" 2 'frobnicate' "$BIN/q2map" frobnicate x.map
run "q2map unknown option" 2 'bogus' "$BIN/q2map" compile good_room.map -bogus
run "q2map threads" 2 'threads' "$BIN/q2map" compile good_room.map -threads abc
run "q2map out dir missing" 1 'nodir' "$BIN/q2map" compile good_room.map -o nodir/x.bsp -novis -norad
run "q2map info broken" 1 'bsp_truncated\.bsp' "$BIN/q2map" info bsp_truncated.bsp
[ ! -e "$D/good_room.bsp" ] || bad "q2map: good_room.bsp written though every compile above failed"

echo "robust_programs: $n cases"
[ $n -ge 50 ] || bad "only $n cases ran"
exit $fail
