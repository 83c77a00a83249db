#!/bin/bash
# scripts/validate on a leaking map names the entity that reaches the void:
# as an expected leak (file name with "leak") the qbsp check passes and its
# note gives qbsp's entity, origin and line; the same map under a name that
# must seal fails the qbsp check, with the same note, and validate exits 1.
set -u
. "$(dirname "$0")/lib/common.sh"
q2m_need Q2MAP_BIN Q2MAP_DATA Q2MAP_TMP Q2MAP_SRC
BIN=$(cd "$Q2MAP_BIN" && pwd) DATA=$Q2MAP_DATA TMP=$Q2MAP_TMP
q2m_scratch
fail=0
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 0; }
cp "$DATA/qbsp/q2_leaked.map" "$TMP/v_leak.map"
cp "$DATA/qbsp/q2_leaked.map" "$TMP/v_open.map"
entity='entity 1 (info_player_start) at (112 436 120), line 19'

out=$(Q2MAP_BUILD_DIR=$(dirname "$BIN") python3 "$Q2MAP_SRC/scripts/validate" --no-build --no-determinism --views 1 \
      --out "$TMP/out1" "$TMP/v_leak.map" 2>&1); rc=$?
# (The exit status also counts the viewer checks, which need GL: only the
# qbsp check is asserted here.)
echo "$out" | grep -qF "v_leak qbsp: PASS leak expected (LEAK: $entity); -leaktest exits 1" ||
    bad "expected leak: note does not name the entity: $out"

out=$(Q2MAP_BUILD_DIR=$(dirname "$BIN") python3 "$Q2MAP_SRC/scripts/validate" --no-build --no-determinism --views 1 \
      --out "$TMP/out2" "$TMP/v_open.map" 2>&1); rc=$?
[ $rc -eq 1 ] || bad "unexpected leak: validate exit $rc (want 1): $out"
echo "$out" | grep -qF "v_open qbsp: FAIL in a map expected to be sealed: LEAK: $entity" ||
    bad "unexpected leak: note does not name the entity: $out"
exit $fail
