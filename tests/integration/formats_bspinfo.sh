#!/bin/bash
# bspinfo on the reference bsps (valid, --json parses) and the malformed
# corpus in tests/data/bad/: each input must fail with its specific message
# (EXPECTED.tsv) and a plain error exit, never a crash. .map files go through
# qbsp and .prt files through qvis when those programs are built; otherwise
# that category is skipped with a message (the parsers themselves are covered
# by tests/unit/test_formats_bsp.c either way).
set -u
. "$(dirname "$0")/lib/common.sh"
q2m_need Q2MAP_BIN Q2MAP_DATA Q2MAP_TMP
BIN=$(cd "$Q2MAP_BIN" && pwd) DATA=$Q2MAP_DATA TMP=$Q2MAP_TMP
mkdir -p "$TMP"
fail=0

bspinfo="$BIN/bspinfo"
[ -x "$bspinfo" ] || { echo "FAIL: $bspinfo not built"; exit 1; }

# Usage errors exit 2; help and version exit 0.
"$bspinfo" >/dev/null 2>&1; [ $? -eq 2 ] || bad "no arguments should exit 2"
"$bspinfo" --bogus x.bsp >/dev/null 2>&1; [ $? -eq 2 ] || bad "unknown option should exit 2"
"$bspinfo" --help | grep -q "usage: bspinfo" || bad "--help"
"$bspinfo" --version | grep -q "^bspinfo " || bad "--version"

nref=0
jsons=()
for f in "$DATA"/bsp/*.bsp; do
    nref=$((nref + 1))
    out=$("$bspinfo" --check "$f" 2>&1); rc=$?
    [ $rc -eq 0 ] || bad "$f: --check exit $rc: $out"
    "$bspinfo" --json --check "$f" >"$TMP/ref$nref.json" || bad "$f: --json --check failed"
    jsons+=("$TMP/ref$nref.json" "$f")
    "$bspinfo" "$f" | grep -q "visible clusters per cluster" || bad "$f: text output lacks the PVS line"
done
[ $nref -ge 10 ] || bad "only $nref reference bsps"
# One interpreter for all the JSON checks (python's start-up dominates).
python3 - "${jsons[@]}" <<'PY' || bad "JSON output"
import json, sys
args = sys.argv[1:]
for out, path in zip(args[0::2], args[1::2]):
    d = json.load(open(out))
    f = d["files"][0]
    assert f["file"] == path and f["read"] and f["valid"] and f["problem_count"] == 0, path
    assert f["models"] >= 1 and f["lumps"]["planes"]["count"] > 0, path
    assert f["lumps"]["planes"]["bytes"] == 20 * f["lumps"]["planes"]["count"], path
    v = f["visibility"]
    assert v["clusters"] >= 1 and 1 <= v["avg_visible"] <= v["max_visible"] <= v["clusters"], path
    l = f["lighting"]
    assert sum(h["faces"] for h in l["histogram"]) + l["larger_than_17"] == l["faces_with_lightmaps"], path
PY

# Several files at once: one JSON document with one entry per file.
"$bspinfo" --json "$DATA"/bsp/ericw_q2_door.bsp "$DATA"/bsp/id_q2_light_sun.bsp |
    python3 -c 'import json,sys; assert len(json.load(sys.stdin)["files"]) == 2' || bad "two files in one --json"

# A valid and an invalid file together: exit 1.
"$bspinfo" --check "$DATA"/bsp/ericw_q2_door.bsp "$DATA"/bad/bsp_node_plane.bsp >/dev/null 2>&1
[ $? -eq 1 ] || bad "mixed valid/invalid should exit 1"

have_qbsp=0; [ -x "$BIN/qbsp" ] && have_qbsp=1
have_qvis=0; [ -x "$BIN/qvis" ] && have_qvis=1
[ $have_qbsp -eq 1 ] || echo "SKIP: qbsp not built; malformed .map files not run through it"
[ $have_qvis -eq 1 ] || echo "SKIP: qvis not built; malformed .prt files not run through it"

n=0
while IFS=$'\t' read -r name kind phrase; do
    case "$name" in ''|'#'*) continue ;; esac
    f="$DATA/bad/$name"
    case "$kind" in
    bsp) out=$("$bspinfo" --check "$f" 2>&1); rc=$? ;;
    map)
        [ $have_qbsp -eq 1 ] || continue
        cp "$f" "$TMP/$name"
        out=$(cd "$TMP" && timeout 60 "$BIN/qbsp" "$TMP/$name" 2>&1); rc=$? ;;
    prt)
        [ $have_qvis -eq 1 ] || continue
        base="$TMP/${name%.prt}"
        cp "$DATA/bsp/q2tools-220_q2_areaportal.bsp" "$base.bsp"
        cp "$f" "$base.prt"
        out=$(timeout 60 "$BIN/qvis" "$base.bsp" 2>&1); rc=$? ;;
    *) bad "unknown kind $kind"; continue ;;
    esac
    n=$((n + 1))
    if [ $rc -eq 0 ] || [ $rc -ge 124 ]; then
        bad "$name: exit $rc (expected an error exit): $(echo "$out" | head -3)"
    elif ! grep -qF -- "$phrase" <<<"$out"; then
        bad "$name: message lacks '$phrase': $(echo "$out" | head -3)"
    fi
    if grep -qE "AddressSanitizer|runtime error|LeakSanitizer" <<<"$out"; then
        bad "$name: sanitizer report: $(echo "$out" | grep -m1 -E 'Sanitizer|runtime error')"
    fi
done <"$DATA/bad/EXPECTED.tsv"
# Engine rules: ericw-tools' 0-style light grids are sound, so --check passes
# them with a warning naming Q2PRO; --strict makes that a problem (exit 1).
for g in q2_liquids q2_light_sun; do
    f="$DATA/bspx/ericw/$g.bsp"
    "$bspinfo" --check "$f" >"$TMP/eng.out" 2>"$TMP/eng.err" || bad "$g: --check should pass (a warning only)"
    grep -q "warning: engine: Q2PRO refuses the light grid" "$TMP/eng.err" || bad "$g: no warning naming Q2PRO: $(cat "$TMP/eng.err")"
    "$bspinfo" --check --strict "$f" >"$TMP/eng.out" 2>&1; [ $? -eq 1 ] || bad "$g: --check --strict should exit 1"
    grep -q "Bad LIGHTGRID_OCTREE header.*(--strict)" "$TMP/eng.out" || bad "$g: --strict does not print the rule as a problem"
    "$bspinfo" --json --check "$f" | tr -d '\n' | grep -q '"engine_warnings": *\[ *"Q2PRO refuses' || bad "$g: --json has no engine_warnings entry"
done
"$bspinfo" --check --strict "$DATA/bspx/ericw/q2_detail.bsp" >"$TMP/eng.out" 2>&1 || bad "q2_detail (a grid Q2PRO takes): --strict fails: $(cat "$TMP/eng.out")"
echo "checked $nref reference bsps and $n malformed inputs"
[ $n -ge 30 ] || bad "only $n malformed inputs were run"
exit $fail
