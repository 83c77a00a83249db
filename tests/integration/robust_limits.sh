#!/bin/bash
# Maps just past Quake 2's limits (written by scripts/genlimits) must be
# refused with an error naming the limit: qbsp leaves no .bsp; for the
# lighting limit qrad fails and leaves the (valid) bsp byte-identical.
# The slower cases (faces, leafs: 5-20 s and ~300 MB in a release build) are
# skipped in sanitizer builds. The visibility case (qvis -fast needs ~25 s of
# CPU) and MAX_MAP_ENTITIES (not checked by qbsp) are only in the generator.
set -u
BIN=$(cd "${Q2MAP_BIN:?}" && pwd)
SRC=${Q2MAP_SRC:?}
TMP=${Q2MAP_TMP:?}
rm -rf "$TMP"; mkdir -p "$TMP"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
for p in qbsp qrad bspinfo; do
    [ -x "$BIN/$p" ] || { echo "FAIL: $BIN/$p not built"; exit 1; }
done
sanitized=0
if ldd "$BIN/qbsp" 2>/dev/null | grep -qE 'libasan|libubsan'; then sanitized=1; fi
case "$BIN" in *asan*|*san*) sanitized=1 ;; esac

cases="brushes planes entstring entities texinfo lighting"
[ $sanitized -eq 1 ] && echo "SKIP: faces, leafs (sanitizer build)" || cases="$cases faces leafs"
python3 "$SRC/scripts/genlimits" -o "$TMP" $cases >/dev/null || { echo "FAIL: genlimits"; exit 1; }

sancheck() {
    if grep -qE "ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:" <<<"$2"; then
        bad "$1: sanitizer report: $(grep -m1 -E 'Sanitizer|runtime error' <<<"$2")"
    fi
}

# qbsp_limit CASE REGEX: qbsp must exit 1 naming the limit and leave no bsp.
qbsp_limit() {
    local c=$1 re=$2 out rc t0 t1
    t0=$(date +%s%N)
    out=$(cd "$TMP" && timeout 300 "$BIN/qbsp" -threads 2 "limit_$c.map" 2>&1); rc=$?
    t1=$(date +%s%N)
    printf '%-10s qbsp exit %d in %d ms: %s\n' "$c" "$rc" $(((t1 - t0) / 1000000)) "$(grep -m1 -E '^error' <<<"$out")"
    sancheck "$c" "$out"
    [ $rc -eq 1 ] || bad "$c: qbsp exit $rc, expected 1"
    grep -qE "^error: limit_$c\\.map: ($re) exceeded" <<<"$out" || bad "$c: no error naming $re: $(tail -2 <<<"$out")"
    [ ! -e "$TMP/limit_$c.bsp" ] || bad "$c: qbsp left limit_$c.bsp"
    [ ! -e "$TMP/limit_$c.prt" ] || bad "$c: qbsp left limit_$c.prt"
    ls "$TMP" | grep -q "limit_$c\\.bsp\\.tmp" && bad "$c: a temporary file was left"
}

for c in $cases; do
    case $c in
    brushes) qbsp_limit brushes MAX_MAP_BRUSHES ;;
    planes) qbsp_limit planes MAX_MAP_PLANES ;;
    entstring) qbsp_limit entstring MAX_MAP_ENTSTRING ;;
    entities) qbsp_limit entities MAX_MAP_ENTITIES ;;
    texinfo) qbsp_limit texinfo MAX_MAP_TEXINFO ;;
    faces) qbsp_limit faces MAX_MAP_FACES ;;
    # A binary tree has one node fewer than leaves per model, so the node
    # limit (checked first) and the leaf limit are passed together.
    leafs) qbsp_limit leafs 'MAX_MAP_LEAFS|MAX_MAP_NODES' ;;
    lighting)
        out=$(cd "$TMP" && timeout 300 "$BIN/qbsp" -threads 2 limit_lighting.map 2>&1); rc=$?
        sancheck "lighting qbsp" "$out"
        [ $rc -eq 0 ] || { bad "lighting: qbsp exit $rc: $(tail -2 <<<"$out")"; continue; }
        sum=$(md5sum <"$TMP/limit_lighting.bsp")
        out=$(cd "$TMP" && timeout 300 "$BIN/qrad" -threads 2 -bounce 0 limit_lighting.bsp 2>&1); rc=$?
        echo "lighting   qrad exit $rc: $(grep -m1 -E 'error' <<<"$out")"
        sancheck "lighting qrad" "$out"
        [ $rc -eq 1 ] || bad "lighting: qrad exit $rc, expected 1"
        grep -qE "error.*limit_lighting\\.bsp.*MAX_MAP_LIGHTING exceeded" <<<"$out" || bad "lighting: no error naming MAX_MAP_LIGHTING"
        [ "$(md5sum <"$TMP/limit_lighting.bsp")" = "$sum" ] || bad "lighting: qrad changed the bsp"
        "$BIN/bspinfo" --check "$TMP/limit_lighting.bsp" >/dev/null 2>&1 || bad "lighting: the bsp left is not valid"
        ls "$TMP" | grep -q "limit_lighting\\.bsp\\.tmp" && bad "lighting: a temporary file was left"
        ;;
    esac
done
exit $fail
