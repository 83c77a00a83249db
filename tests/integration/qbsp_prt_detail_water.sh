#!/bin/bash
# water_illusionary.map: a detail (mist) post standing in opaque water must
# not cut its water cluster off from the water beside it. qbsp3's cluster
# contents rule counted that cluster as contentless and dropped the water to
# water portals, so qvis hid water that the player in the water can see
# (lq_e3m4 had a channel with no portal at all). qvis -checkpvs traces lines
# of sight between the clusters and must find no hidden pair.
set -u
. "$(dirname "$0")/lib/common.sh"
q2m_begin

cp "$DATA/qbsp/water_illusionary.map" "$TMP/w.map"
"$BIN/qbsp" -threads 2 -quiet "$TMP/w.map" >/dev/null 2>&1 || bad "qbsp failed"
[ -s "$TMP/w.prt" ] || bad "no .prt (leak?)"
"$BIN/qvis" -threads 2 "$TMP/w.bsp" >/dev/null 2>&1 || bad "qvis failed"
out=$("$BIN/qvis" -checkpvs "$TMP/w.bsp" 2>&1) || bad "qvis -checkpvs: $out"
echo "$out" | grep -q " 0 hidden pairs" || bad "hidden pairs: $out"
# The .prt has both water-to-water portals (the pool is split in three):
# windings that reach below the water line (z 64) and not above it.
awk 'NR > 3 { hi = 0; lo = 0; for (i = 4; i <= NF; i++) if ($i ~ /\)$/) { z = $i; sub(/\)/, "", z); if (z + 0 > 64) hi = 1; if (z + 0 < 64) lo = 1 }
             if (lo && !hi) n++ }
     END { exit !(n >= 2) }' "$TMP/w.prt" || bad "fewer than 2 water-to-water portals in the .prt: $(cat "$TMP/w.prt")"
exit $fail
