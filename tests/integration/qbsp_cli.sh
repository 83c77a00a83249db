#!/bin/bash
# qbsp's command line: usage errors exit 2, bad input exits 1 with a message
# naming the file (and line), nothing partial is written; -help, -version,
# -deps, -onlyents and the output path argument work.
set -u
. "$(dirname "$0")/lib/common.sh"
q2m_begin
qbsp="$BIN/qbsp"

"$qbsp" >/dev/null 2>&1; [ $? -eq 2 ] || bad "no arguments should exit 2"
out=$("$qbsp" -bogus x.map 2>&1); rc=$?
[ $rc -eq 2 ] || bad "unknown option: exit $rc"
echo "$out" | grep -q "usage: qbsp" || bad "unknown option: no usage"
echo "$out" | grep -q -- "-bogus" || bad "unknown option not named"
"$qbsp" -threads >/dev/null 2>&1; [ $? -eq 2 ] || bad "-threads without value should exit 2"
"$qbsp" -help | grep -q -- "-leaktest" || bad "-help does not list options"
"$qbsp" -version | grep -q "^qbsp" || bad "-version"

out=$("$qbsp" "$TMP/nothere.map" 2>&1); rc=$?
[ $rc -eq 1 ] || bad "missing map: exit $rc"
echo "$out" | grep -q "nothere.map" || bad "missing map not named: $out"

# A brush beyond the world: error naming file and line, no bsp.
cat > "$TMP/far.map" <<'MAP'
{
"classname" "worldspawn"
{
( 5000 0 0 ) ( 5000 1 0 ) ( 5000 0 1 ) e1u1/a 0 0 0 1 1
( 5064 0 0 ) ( 5064 0 1 ) ( 5064 1 0 ) e1u1/a 0 0 0 1 1
( 0 0 0 ) ( 0 0 1 ) ( 1 0 0 ) e1u1/a 0 0 0 1 1
( 0 64 0 ) ( 1 64 0 ) ( 0 64 1 ) e1u1/a 0 0 0 1 1
( 0 0 0 ) ( 1 0 0 ) ( 0 1 0 ) e1u1/a 0 0 0 1 1
( 0 0 64 ) ( 0 1 64 ) ( 1 0 64 ) e1u1/a 0 0 0 1 1
}
}
MAP
out=$("$qbsp" "$TMP/far.map" 2>&1); rc=$?
[ $rc -eq 1 ] || bad "brush beyond the world: exit $rc"
echo "$out" | grep -q "far.map:3" || bad "brush beyond the world: no file:line: $out"
[ -e "$TMP/far.bsp" ] && bad "brush beyond the world: .bsp written"

# A syntax error: file and line, exit 1.
printf '{\n"classname" "worldspawn"\n{\n( 0 0 0 ) ( 1 0 0 )\n}\n}\n' > "$TMP/broken.map"
out=$("$qbsp" "$TMP/broken.map" 2>&1); rc=$?
[ $rc -eq 1 ] || bad "syntax error: exit $rc"
echo "$out" | grep -q "broken.map:[45]:" || bad "syntax error: no file:line: $out"

# A world without brushes is unusable: exit 1, no bsp.
printf '{\n"classname" "worldspawn"\n}\n{\n"classname" "light"\n"origin" "0 0 8"\n}\n' > "$TMP/empty.map"
out=$("$qbsp" "$TMP/empty.map" 2>&1); rc=$?
[ $rc -eq 1 ] || bad "empty world: exit $rc"
echo "$out" | grep -q "no brushes" || bad "empty world: message: $out"
[ -e "$TMP/empty.bsp" ] && bad "empty world: .bsp written"

# Output path, -deps, extension-less map name.
cp "$DATA/map/q2_door.map" "$TMP/door.map"
"$qbsp" -quiet -deps "$TMP/door.d" "$TMP/door" "$TMP/out/../door2.bsp" >/dev/null 2>&1
mkdir -p "$TMP/out"
"$qbsp" -quiet -deps "$TMP/door.d" "$TMP/door" "$TMP/out/door2.bsp" >/dev/null 2>&1 || bad "explicit output failed"
[ -s "$TMP/out/door2.bsp" ] || bad "explicit output path not written"
[ -s "$TMP/out/door2.prt" ] || bad "the .prt does not follow the output path"
grep -q "^$TMP/out/door2.bsp: $TMP/door.map" "$TMP/door.d" || bad "-deps rule: $(cat "$TMP/door.d")"

# A MAP.texinfo.json an earlier ericw-tools compile left beside the bsp is
# removed (its texinfo numbers do not fit this bsp, and qrad would read it),
# and the log says so.
printf '{ "0" : { "minlight" : 2.0 } }\n' > "$TMP/door.texinfo.json"
out=$("$qbsp" "$TMP/door.map" 2>&1) || bad "door compile beside a stale texinfo.json"
[ -e "$TMP/door.texinfo.json" ] && bad "the stale door.texinfo.json is still there"
echo "$out" | grep -q "removed .*door.texinfo.json" || bad "no word of the removed texinfo.json: $out"

# -onlyents: entities replaced, geometry kept.
"$qbsp" -quiet "$TMP/door.map" >/dev/null 2>&1 || bad "door compile"
cp "$TMP/door.bsp" "$TMP/door_before.bsp"
sed -i 's/"classname" "func_door"/"classname" "func_door"\n"speed" "1234"/' "$TMP/door.map"
"$qbsp" -quiet -onlyents "$TMP/door.map" >/dev/null 2>&1 || bad "-onlyents failed"
grep -q "1234" "$TMP/door.bsp" || bad "-onlyents did not write the new key"
grep -q '"model" "\*1"' "$TMP/door.bsp" || bad "-onlyents lost the door's model key"
[ "$(stat -c %s "$TMP/door.bsp")" -gt 1000 ] || bad "-onlyents lost the geometry"
exit $fail
