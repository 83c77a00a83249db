#!/usr/bin/env bash
# scripts/genmap: the committed sample map is what the generator writes, the
# output is deterministic, synthetic maps parse, and (once qbsp is built) both
# seal: qbsp writes a .prt (no leak) and bspinfo --check accepts the bsp.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
q2m_need Q2MAP_BIN Q2MAP_SRC Q2MAP_TMP
q2m_scratch
T="$Q2MAP_TMP"
G="$Q2MAP_SRC/scripts/genmap"

command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 0; }

"$G" --sample -o "$T/sample.map"
cmp -s "$T/sample.map" "$Q2MAP_SRC/maps/q2map_sample.map" ||
    fail "maps/q2map_sample.map differs from scripts/genmap --sample output; regenerate it"

"$G" --rooms 12 -o "$T/rooms12a.map"
"$G" --rooms 12 -o "$T/rooms12b.map"
cmp -s "$T/rooms12a.map" "$T/rooms12b.map" || fail "genmap --rooms is not deterministic"
if "$G" --rooms 0 -o "$T/bad.map" 2>/dev/null; then fail "--rooms 0 accepted"; fi

# Every room has a light: the parser must see 12 lights and one player start.
"$Q2MAP_BIN/q2map" info "$T/rooms12a.map" >"$T/info.txt"
grep -Eq "^ +12 light$" "$T/info.txt" || fail "expected 12 lights: $(cat "$T/info.txt")"
grep -Eq "^ +1 info_player_start$" "$T/info.txt" || fail "expected one info_player_start"

if [ ! -x "$Q2MAP_BIN/qbsp" ]; then
    echo "SKIP sealing checks: qbsp not built yet"
    exit 0
fi
for m in sample rooms12a; do
    "$Q2MAP_BIN/qbsp" -quiet -threads 2 "$T/$m.map" >"$T/$m.out" 2>&1 || { cat "$T/$m.out"; fail "qbsp failed on $m"; }
    [ -s "$T/$m.prt" ] || { cat "$T/$m.out"; fail "$m leaks: qbsp wrote no .prt"; }
    if [ -x "$Q2MAP_BIN/bspinfo" ]; then
        "$Q2MAP_BIN/bspinfo" --check "$T/$m.bsp" >/dev/null || fail "bspinfo --check rejects $m.bsp"
    fi
done
echo "genmap: sample in sync, deterministic, sealed"
