#!/bin/bash
# q2_leaked.map: qbsp says LEAK and names the entity, writes MAP.pts and
# MAP.lin from the entity to the void, still writes the .bsp but no .prt;
# with -leaktest it exits 1 and writes no .bsp.
set -u
. "$(dirname "$0")/lib/common.sh"
q2m_begin
qbsp="$BIN/qbsp"

cp "$DATA/map/q2_leaked.map" "$TMP/leak.map"
out=$("$qbsp" -threads 2 "$TMP/leak.map" 2>&1); rc=$?
[ $rc -eq 0 ] || bad "without -leaktest: exit $rc"
echo "$out" | grep -q "LEAK" || bad "no LEAK message: $out"
echo "$out" | grep -q "info_player_start" || bad "leak message does not name the entity: $out"
echo "$out" | grep -q "112 436 120" || bad "leak message does not give the origin: $out"
echo "$out" | grep -q "line 19" || bad "leak message does not give the line: $out"
[ -s "$TMP/leak.bsp" ] || bad "no .bsp written for viewing"
[ -e "$TMP/leak.prt" ] && bad ".prt written for a leaking map"
[ -s "$TMP/leak.pts" ] || bad "no .pts"
[ -s "$TMP/leak.lin" ] || bad "no .lin"
# The path starts at the entity (its origin) and ends outside the brush
# (bounds x 40..488, y 68..676, z 80..96).
first=$(head -1 "$TMP/leak.lin")
awk '{ if ($1 != 112 || $2 != 436 || $3 != 120) exit 1 }' <<<"$first" || bad ".lin does not start at the entity: $first"
last=$(tail -1 "$TMP/leak.lin")
awk '{ if ($1 > 40 && $1 < 488 && $2 > 68 && $2 < 676 && $3 > 80 && $3 < 96) exit 1 }' <<<"$last" ||
    bad ".lin does not end outside the map: $last"
# .pts is sampled every 2 units: more points than the .lin, each step <= 2.
np=$(wc -l < "$TMP/leak.pts"); nl=$(wc -l < "$TMP/leak.lin")
[ "$np" -gt "$nl" ] || bad ".pts ($np points) not denser than .lin ($nl)"
awk 'NR > 1 { d = sqrt(($1-x)^2 + ($2-y)^2 + ($3-z)^2); if (d > 2.001) { print "step " d; exit 1 } } { x=$1; y=$2; z=$3 }' \
    "$TMP/leak.pts" || bad ".pts steps longer than 2 units"

# -leaktest: exit 1, no bsp (even when an old one is absent before).
rm -f "$TMP/leak.bsp"
out=$("$qbsp" -threads 2 -leaktest "$TMP/leak.map" 2>&1); rc=$?
[ $rc -eq 1 ] || bad "-leaktest: exit $rc (want 1)"
[ -e "$TMP/leak.bsp" ] && bad "-leaktest wrote a .bsp"
echo "$out" | grep -q "LEAK" || bad "-leaktest: no LEAK message"
ls "$TMP" | grep -q "\.tmp" && bad "temporary files left behind: $(ls "$TMP")"

# A sealed map after a leaking compile: the stale pointfile does not
# matter, the .prt is written.
cp "$DATA/map/q2_detail.map" "$TMP/leak.map"
"$qbsp" -threads 2 -quiet "$TMP/leak.map" >/dev/null 2>&1 || bad "sealed recompile failed"
[ -s "$TMP/leak.prt" ] || bad "sealed recompile wrote no .prt"
exit $fail
