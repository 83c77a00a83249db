#!/bin/bash
# Maps just past Quake 2's limits (written by scripts/genlimits), compiled
# both ways:
# - past an IBSP 38 limit, qbsp writes the extended QBSP format with a note
#   naming the limit (bspinfo --check finds it valid), and with
#   -noallowupgrade it exits 1 naming the limit and leaves no .bsp;
# - past an engine limit (MAX_MODELS, MAX_EDICTS) qbsp writes IBSP with a
#   warning naming it, and with -strict exits 1 and leaves no .bsp;
#   bspinfo --check warns, --check --strict fails;
# - for the lighting limit qrad fails and leaves the (valid) bsp
#   byte-identical.
# The slower cases (faces, leafs: 2-30 s and ~300 MB in a release build) are
# skipped in sanitizer builds, and leafs (~30 s) is compiled only the
# default way. The visibility case (qvis -fast needs ~25 s of CPU) is only
# in the generator.
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

cases="brushes planes entstring entities texinfo models engine_models edicts lighting"
[ $sanitized -eq 1 ] && echo "SKIP: faces, leafs (sanitizer build)" || cases="$cases faces leafs"
python3 "$SRC/scripts/genlimits" -o "$TMP" $cases >/dev/null || { echo "FAIL: genlimits"; exit 1; }

sancheck() {
    if grep -qE "ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:" <<<"$2"; then
        bad "$1: sanitizer report: $(grep -m1 -E 'Sanitizer|runtime error' <<<"$2")"
    fi
}

# qbsp_limit CASE REGEX: by default qbsp writes QBSP with a note naming the
# limit; with -noallowupgrade it must exit 1 naming the limit and leave no
# bsp (skipped for `leafs`, the slow case).
qbsp_limit() {
    local c=$1 re=$2 out rc t0 t1
    t0=$(date +%s%N)
    out=$(cd "$TMP" && timeout 300 "$BIN/qbsp" -threads 2 "limit_$c.map" 2>&1); rc=$?
    t1=$(date +%s%N)
    printf '%-13s qbsp exit %d in %d ms: %s\n' "$c" "$rc" $(((t1 - t0) / 1000000)) "$(grep -m1 -E '^note' <<<"$out")"
    sancheck "$c" "$out"
    [ $rc -eq 0 ] || bad "$c: qbsp exit $rc, expected 0 (upgrade to QBSP): $(tail -2 <<<"$out")"
    grep -qE "^note: limit_$c\.map: ($re) exceeded: [0-9]+ > [0-9]+ \(by [0-9]+\)" <<<"$out" ||
        bad "$c: no note naming $re and by how much"
    grep -q "writing the extended QBSP format" <<<"$out" || bad "$c: no note about the QBSP format"
    [ "$(head -c 4 "$TMP/limit_$c.bsp" 2>/dev/null)" = QBSP ] || bad "$c: limit_$c.bsp is not QBSP"
    out=$("$BIN/bspinfo" --check "$TMP/limit_$c.bsp" 2>&1) || bad "$c: bspinfo --check rejects the QBSP file: $out"
    [ "$c" = leafs ] && return
    rm -f "$TMP/limit_$c.bsp" "$TMP/limit_$c.prt"
    out=$(cd "$TMP" && timeout 300 "$BIN/qbsp" -threads 2 -noallowupgrade "limit_$c.map" 2>&1); rc=$?
    echo "              -noallowupgrade exit $rc: $(grep -m1 -E '^error' <<<"$out" | cut -c1-150)"
    sancheck "$c -noallowupgrade" "$out"
    [ $rc -eq 1 ] || bad "$c: qbsp -noallowupgrade exit $rc, expected 1"
    grep -qE "^error: limit_$c\.map: ($re) exceeded" <<<"$out" || bad "$c: no error naming $re: $(tail -2 <<<"$out")"
    [ ! -e "$TMP/limit_$c.bsp" ] || bad "$c: qbsp -noallowupgrade left limit_$c.bsp"
    [ ! -e "$TMP/limit_$c.prt" ] || bad "$c: qbsp -noallowupgrade left limit_$c.prt"
    ls "$TMP" | grep -q "limit_$c\.bsp\.tmp" && bad "$c: a temporary file was left"
}

# engine_limit CASE LIMIT: IBSP with a warning; -strict fails and writes
# nothing; bspinfo --check warns, --check --strict fails.
engine_limit() {
    local c=$1 lim=$2 out rc
    out=$(cd "$TMP" && timeout 300 "$BIN/qbsp" -threads 2 "limit_$c.map" 2>&1); rc=$?
    echo "$c qbsp exit $rc: $(grep -m1 'engine limit' <<<"$out" | cut -c1-150)"
    sancheck "$c" "$out"
    [ $rc -eq 0 ] || bad "$c: qbsp exit $rc, expected 0"
    grep -qE "^warning: limit_$c\.map: engine limit: $lim exceeded: [0-9]+ > [0-9]+ \(.*(Quake|Q2PRO)" <<<"$out" ||
        bad "$c: no warning naming $lim, the figures and the engines"
    [ "$(head -c 4 "$TMP/limit_$c.bsp" 2>/dev/null)" = IBSP ] || bad "$c: limit_$c.bsp is not IBSP"
    out=$("$BIN/bspinfo" --check "$TMP/limit_$c.bsp" 2>&1); rc=$?
    [ $rc -eq 0 ] || bad "$c: bspinfo --check exit $rc (engine limits alone are warnings)"
    grep -q "warning: engine limit: $lim exceeded" <<<"$out" || bad "$c: bspinfo --check does not warn about $lim"
    out=$("$BIN/bspinfo" --check --strict "$TMP/limit_$c.bsp" 2>/dev/null); rc=$?
    [ $rc -eq 1 ] || bad "$c: bspinfo --check --strict exit $rc, expected 1"
    grep -q "$lim exceeded" <<<"$out" || bad "$c: bspinfo --check --strict does not name $lim"
    rm -f "$TMP/limit_$c.bsp" "$TMP/limit_$c.prt"
    out=$(cd "$TMP" && timeout 300 "$BIN/qbsp" -threads 2 -strict "limit_$c.map" 2>&1); rc=$?
    [ $rc -eq 1 ] || bad "$c: qbsp -strict exit $rc, expected 1"
    grep -qE "^error: limit_$c\.map: engine limit: $lim exceeded" <<<"$out" || bad "$c: -strict error does not name $lim"
    [ ! -e "$TMP/limit_$c.bsp" ] || bad "$c: qbsp -strict left limit_$c.bsp"
    [ ! -e "$TMP/limit_$c.prt" ] || bad "$c: qbsp -strict left limit_$c.prt"
}

for c in $cases; do
    case $c in
    brushes) qbsp_limit brushes MAX_MAP_BRUSHES ;;
    planes) qbsp_limit planes MAX_MAP_PLANES ;;
    entstring) qbsp_limit entstring MAX_MAP_ENTSTRING ;;
    entities) qbsp_limit entities MAX_MAP_ENTITIES ;;
    texinfo) qbsp_limit texinfo MAX_MAP_TEXINFO ;;
    models) qbsp_limit models MAX_MAP_MODELS ;;
    engine_models) engine_limit engine_models MAX_MODELS ;;
    edicts) engine_limit edicts MAX_EDICTS ;;
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
