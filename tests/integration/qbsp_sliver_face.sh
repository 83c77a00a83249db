#!/bin/bash
# sliver_funnel.map: where brushes leave a sliver of wall (a 0.15 x 0.9
# triangle at the bottom of a funnel), the wall still has a face there.
# qbsp3's rule dropped portals with fewer than 3 edges over 0.2 units, and
# faces are made from portals, so the sliver was a hole into the void that
# the crack check sees from the room (12 key pixels from 24 units away).
set -u
. "$(dirname "$0")/lib/common.sh"
q2m_begin

cp "$DATA/qbsp/sliver_funnel.map" "$TMP/s.map"
"$BIN/qbsp" -threads 2 -quiet "$TMP/s.map" >/dev/null 2>&1 || bad "qbsp failed"
[ -s "$TMP/s.prt" ] || bad "no .prt (leak?)"
# Three cameras in the room looking down the funnel at the sliver.
for cam in "24 0 0.3 180 0" "28 0.02 0.4 180 0" "40 0 0.3 180 0"; do
    out=$("$BIN/qview" --check-cracks "$TMP/s.bsp" --renderer soft --camera $cam 2>&1) ||
        bad "camera $cam: $(echo "$out" | tail -2)"
done
exit $fail
