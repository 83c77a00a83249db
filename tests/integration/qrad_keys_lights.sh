#!/bin/bash
# qrad with the light, sun, dome, dirt and bmodel keys of test_qrad_keys_lights
# in effect (tests/data/qrad/keys_lights.map: _softangle, _suntexture, a
# light's _dirtscale/_dirtgain, _sunlight_dirt, _sunlight2_dirt, _dist,
# _range, _gamma, _spotlightautofalloff, _minlight_mottle, _maxlight,
# _lightignore, _phong_angle_concave, arghrad's _sun_vector, _sun_style,
# _fade, _distance, _angfade): no warning, byte-identical bsps at -threads 1
# and 2, with -soft and -extra too, and under MPI (-np 2), and the result
# passes bspinfo --check.
set -u
. "$(dirname "$0")/lib/common.sh"
q2m_begin
cp "$DATA/qrad/keys_lights.map" "$TMP/"
"$BIN/qbsp" -quiet -threads 2 "$TMP/keys_lights.map" || fail "qbsp keys_lights.map"
for args in "" "-soft" "-extra -soft 1"; do
    for run in t1 t2; do cp "$TMP/keys_lights.bsp" "$TMP/k-$run.bsp"; done
    "$BIN/qrad" -threads 1 -bounce 1 $args "$TMP/k-t1.bsp" >"$TMP/t1.log" 2>&1 || bad "qrad -threads 1 $args"
    "$BIN/qrad" -threads 2 -bounce 1 $args "$TMP/k-t2.bsp" >"$TMP/t2.log" 2>&1 || bad "qrad -threads 2 $args"
    ! grep -i "warning" "$TMP/t1.log" || bad "keys_lights.map: warnings on valid keys $args"
    cmp -s "$TMP/k-t1.bsp" "$TMP/k-t2.bsp" || bad "keys_lights differs between -threads 1 and 2 $args"
    "$BIN/bspinfo" --check "$TMP/k-t1.bsp" >"$TMP/check.log" 2>&1 || { cat "$TMP/check.log"; bad "bspinfo --check $args"; }
done
if [ -n "${Q2MAP_MPIEXEC:-}" ]; then
    MPIRUN=("$Q2MAP_MPIEXEC" --oversubscribe --bind-to none)
    # A session directory of this script's own: two scripts starting mpirun at
    # once (ctest -j2) race to create the shared /tmp/ompi.HOST.UID ("File
    # exists"). Short, under /tmp: Open MPI puts Unix sockets in it.
    Q2M_OMPI_TMP=$(mktemp -d /tmp/q2m-ompi.XXXXXX)
    export OMPI_MCA_orte_tmpdir_base="$Q2M_OMPI_TMP"
    trap 'rm -rf "$Q2M_OMPI_TMP"' EXIT
    [ "$(id -u)" -eq 0 ] && MPIRUN+=(--allow-run-as-root)
    cp "$TMP/keys_lights.bsp" "$TMP/k-np2.bsp"; cp "$TMP/keys_lights.bsp" "$TMP/k-ref.bsp"
    "$BIN/qrad" -quiet -threads 2 -bounce 1 "$TMP/k-ref.bsp" || bad "qrad reference for MPI"
    OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader "${MPIRUN[@]}" -np 2 "$BIN/qrad" -quiet -threads 1 -bounce 1 \
        "$TMP/k-np2.bsp" >"$TMP/np2.log" 2>&1 || { cat "$TMP/np2.log"; bad "mpirun -np 2 qrad"; }
    cmp -s "$TMP/k-ref.bsp" "$TMP/k-np2.bsp" || bad "keys_lights: mpirun -np 2 differs from one process"
fi
[ $fail -eq 0 ] && echo "qrad_keys_lights: ok"
exit $fail
