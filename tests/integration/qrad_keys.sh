#!/bin/bash
# qrad with ericw-tools'/arghrad's keys in effect (tests/data/qrad/keys_all.map:
# minlight, dirt with _dirtmode 1, jittered _deviance lights, delay 4/5,
# _falloff, channels, bmodel shadows with an origin-brush rotator, per-model
# phong, several suns with a penumbra, _sunlight2/3, _sun_diffuse, _ambient,
# bounce keys, a surface light): no warning, byte-identical bsps at
# -threads 1 and 2 and across runs (also with -extra), and the result passes
# bspinfo --check. Without keys, the keys change nothing: qrad -dirt on a
# map has effects only through the option (checked in test_qrad_keys).
set -u
. "$(dirname "$0")/lib/common.sh"
q2m_begin
cp "$DATA/qrad/keys_all.map" "$TMP/"
"$BIN/qbsp" -quiet -threads 2 "$TMP/keys_all.map" || fail "qbsp keys_all.map"
for args in "" "-extra"; do
    for run in t1 t2 t2b; do cp "$TMP/keys_all.bsp" "$TMP/k-$run.bsp"; done
    "$BIN/qrad" -threads 1 -bounce 2 $args "$TMP/k-t1.bsp" >"$TMP/t1.log" 2>&1 || bad "qrad -threads 1 $args"
    "$BIN/qrad" -threads 2 -bounce 2 $args "$TMP/k-t2.bsp" >"$TMP/t2.log" 2>&1 || bad "qrad -threads 2 $args"
    "$BIN/qrad" -threads 2 -bounce 2 $args "$TMP/k-t2b.bsp" >/dev/null 2>&1 || bad "qrad rerun $args"
    ! grep -i "warning" "$TMP/t1.log" || bad "keys_all.map: warnings on valid keys $args"
    cmp -s "$TMP/k-t1.bsp" "$TMP/k-t2.bsp" || bad "keys_all differs between -threads 1 and 2 $args"
    cmp -s "$TMP/k-t2.bsp" "$TMP/k-t2b.bsp" || bad "keys_all differs between runs $args"
    "$BIN/bspinfo" --check "$TMP/k-t1.bsp" >"$TMP/check.log" 2>&1 || { cat "$TMP/check.log"; bad "bspinfo --check $args"; }
done
# Under MPI the key features' per-face buffers (dirt, local minlight, the
# light kept out of the bounces) travel with the face's light: -np 2 is
# the same bsp.
if [ -n "${Q2MAP_MPIEXEC:-}" ]; then
    MPIRUN=("$Q2MAP_MPIEXEC" --oversubscribe --bind-to none)
    # A session directory of this script's own: two scripts starting mpirun at
    # once (ctest -j2) race to create the shared /tmp/ompi.HOST.UID ("File
    # exists"). Short, under /tmp: Open MPI puts Unix sockets in it.
    Q2M_OMPI_TMP=$(mktemp -d /tmp/q2m-ompi.XXXXXX)
    export OMPI_MCA_orte_tmpdir_base="$Q2M_OMPI_TMP"
    trap 'rm -rf "$Q2M_OMPI_TMP"' EXIT
    [ "$(id -u)" -eq 0 ] && MPIRUN+=(--allow-run-as-root)
    cp "$TMP/keys_all.bsp" "$TMP/k-np2.bsp"; cp "$TMP/keys_all.bsp" "$TMP/k-ref.bsp"
    "$BIN/qrad" -quiet -threads 2 -bounce 2 "$TMP/k-ref.bsp" || bad "qrad reference for MPI"
    OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader "${MPIRUN[@]}" -np 2 "$BIN/qrad" -quiet -threads 1 -bounce 2 \
        "$TMP/k-np2.bsp" >"$TMP/np2.log" 2>&1 || { cat "$TMP/np2.log"; bad "mpirun -np 2 qrad"; }
    cmp -s "$TMP/k-ref.bsp" "$TMP/k-np2.bsp" || bad "keys_all: mpirun -np 2 differs from one process"
fi
# Surface-light keys (tests/data/qrad/keys_surf.map: _surflight_* on
# worldspawn and a func_wall, a _surface template, _tex_saturation_boost),
# plain and with -preset ericw: no warning, -threads 1 = 2, and under MPI
# -np 2 is the one-process bsp.
cp "$DATA/qrad/keys_surf.map" "$TMP/"
"$BIN/qbsp" -quiet -threads 2 "$TMP/keys_surf.map" || fail "qbsp keys_surf.map"
for args in "" "-preset ericw"; do
    for run in s1 s2 s3; do cp "$TMP/keys_surf.bsp" "$TMP/$run.bsp"; done
    "$BIN/qrad" -threads 1 -bounce 2 $args "$TMP/s1.bsp" >"$TMP/s1.log" 2>&1 || bad "keys_surf -threads 1 $args"
    "$BIN/qrad" -threads 2 -bounce 2 $args "$TMP/s2.bsp" >/dev/null 2>&1 || bad "keys_surf -threads 2 $args"
    ! grep -i "warning" "$TMP/s1.log" || bad "keys_surf.map: warnings on valid keys $args"
    cmp -s "$TMP/s1.bsp" "$TMP/s2.bsp" || bad "keys_surf differs between -threads 1 and 2 $args"
    if [ -n "${Q2MAP_MPIEXEC:-}" ]; then
        OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader "${MPIRUN[@]}" -np 2 "$BIN/qrad" -quiet -threads 1 -bounce 2 $args \
            "$TMP/s3.bsp" >"$TMP/s3.log" 2>&1 || { cat "$TMP/s3.log"; bad "mpirun -np 2 qrad keys_surf $args"; }
        cmp -s "$TMP/s1.bsp" "$TMP/s3.bsp" || bad "keys_surf: mpirun -np 2 differs from one process $args"
    fi
done

# Options: -preset is the options it stands for; bad values are usage errors.
cp "$TMP/keys_all.bsp" "$TMP/p1.bsp"; cp "$TMP/keys_all.bsp" "$TMP/p2.bsp"
"$BIN/qrad" -quiet -threads 2 -preset ericw "$TMP/p1.bsp" || bad "qrad -preset ericw"
"$BIN/qrad" -quiet -threads 2 -bounce 1 -bouncescale 0.425 -anglescale 0.5 -direct 0.65 -preset ericw "$TMP/p2.bsp" || bad "qrad -bounce 1 -bouncescale 0.425 -anglescale 0.5 -direct 0.65 -preset ericw"
cmp -s "$TMP/p1.bsp" "$TMP/p2.bsp" || bad "-preset ericw is not -bounce 1 -bouncescale 0.425 -anglescale 0.5 -direct 0.65"
# An option wins over the preset wherever it is on the line.
cp "$TMP/keys_all.bsp" "$TMP/p5.bsp"; cp "$TMP/keys_all.bsp" "$TMP/p6.bsp"
"$BIN/qrad" -quiet -threads 2 -preset ericw -bounce 0 "$TMP/p5.bsp" || bad "qrad -preset ericw -bounce 0"
"$BIN/qrad" -quiet -threads 2 -bounce 0 -preset ericw "$TMP/p6.bsp" || bad "qrad -bounce 0 -preset ericw"
cmp -s "$TMP/p5.bsp" "$TMP/p6.bsp" || bad "-bounce 0 does not win over -preset ericw on both sides"
! cmp -s "$TMP/p1.bsp" "$TMP/p5.bsp" || bad "-preset ericw -bounce 0 is -preset ericw"
cp "$TMP/keys_all.bsp" "$TMP/p3.bsp"
"$BIN/qrad" -quiet -threads 2 -preset qrad3 -bouncescale 0.6 "$TMP/p3.bsp" || bad "qrad -preset qrad3 -bouncescale 0.6"
cp "$TMP/keys_all.bsp" "$TMP/p4.bsp"
"$BIN/qrad" -quiet -threads 2 -bouncescale 0.6 -preset qrad3 "$TMP/p4.bsp" || bad "qrad -bouncescale 0.6 -preset qrad3"
cmp -s "$TMP/p3.bsp" "$TMP/p4.bsp" || bad "an option does not win over -preset qrad3 on both sides"
cp "$TMP/keys_all.bsp" "$TMP/p7.bsp"
"$BIN/qrad" -quiet -threads 2 -preset qrad3 "$TMP/p7.bsp" || bad "qrad -preset qrad3"
! cmp -s "$TMP/p3.bsp" "$TMP/p7.bsp" || bad "-preset qrad3 -bouncescale 0.6 is -preset qrad3"
for args in "-preset bogus" "-preset" "-minlight 3" "-minlight x" "-anglescale 2"; do
    "$BIN/qrad" -quiet $args "$TMP/p1.bsp" 2>/dev/null; rc=$?
    [ $rc -eq 2 ] || bad "qrad $args: exit $rc, expected 2"
done
[ $fail -eq 0 ] && echo "qrad_keys: ok"
exit $fail
