#!/bin/bash
# qvis and qrad under mpirun (docs/distributed.md): at -np 1, 2 and 3 ranks
# (oversubscribed on this machine) the bsp is byte-identical to a run at
# -threads 2 without MPI, for qvis on three bsps and qrad on two with
# bounces (one also with decoupled lightmaps), also when walks hand every branch they can to other ranks; the
# -json report has one entry per rank whose items add up; a
# rank killed mid-job gives a non-zero exit, an error naming the rank and
# the host, and a bsp left exactly as it was.
set -u
. "$(dirname "$0")/lib/common.sh"
q2m_begin
if [ -z "${Q2MAP_MPIEXEC:-}" ]; then
    echo "SKIP: built without MPI (configure with -DQ2MAP_MPI=ON; Debian: openmpi-bin libopenmpi-dev)"
    exit 77
fi
MPIRUN=("$Q2MAP_MPIEXEC" --oversubscribe --bind-to none)
# A session directory of this script's own: two scripts starting mpirun at
# once (ctest -j2) race to create the shared /tmp/ompi.HOST.UID ("File
# exists"). Short, under /tmp: Open MPI puts Unix sockets in it.
Q2M_OMPI_TMP=$(mktemp -d /tmp/q2m-ompi.XXXXXX)
export OMPI_MCA_orte_tmpdir_base="$Q2M_OMPI_TMP"
trap 'rm -rf "$Q2M_OMPI_TMP"' EXIT
# Open MPI refuses root unless told; CI runs as root.
[ "$(id -u)" -eq 0 ] && MPIRUN+=(--allow-run-as-root)
# All ranks are on this host: shared memory only, which starts quicker than
# probing for network transports.
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader
host=$(hostname)

# check TOOL NAME SRC.bsp [SRC.prt] -- ARGS: the reference at -threads 2, then
# -np 1, 2, 3 at -threads 1.
check() {
    local tool=$1 name=$2 bsp=$3 prt=$4
    shift 4
    cp "$bsp" "$TMP/$name-ref.bsp"
    [ -n "$prt" ] && cp "$prt" "$TMP/$name-ref.prt"
    "$BIN/$tool" -quiet -threads 2 "$@" "$TMP/$name-ref.bsp" || { bad "$tool $name without MPI"; return; }
    for np in 1 2 3; do
        local out="$TMP/$name-np$np"
        cp "$bsp" "$out.bsp"
        [ -n "$prt" ] && cp "$prt" "$out.prt"
        if ! "${MPIRUN[@]}" -np $np "$BIN/$tool" -quiet -threads 1 -json "$out.json" "$@" "$out.bsp" \
            >"$out.log" 2>&1; then
            bad "$tool $name: mpirun -np $np failed:"
            cat "$out.log"
            continue
        fi
        cmp "$TMP/$name-ref.bsp" "$out.bsp" || bad "$tool $name: -np $np differs from -threads 2 without MPI"
        # one report entry per rank, and every item was computed somewhere
        python3 - "$out.json" $np <<'EOF' || bad "$tool $name: -np $np report"
import json, sys
r = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
m = r["mpi"]
assert m["ranks"] == n, m
assert len(m["per_rank"]) == n, m
assert all(p["bytes_sent"] >= 0 and p["work_seconds"] >= 0 for p in m["per_rank"]), m
if n > 1:
    assert m["bytes_sent"] > 0, m
EOF
    done
}

V=$DATA/qvis
check qvis liquids "$V/q2_liquids.bsp" "$V/q2_liquids.prt"
check qvis light_sun "$V/q2_light_sun.bsp" "$V/q2_light_sun.prt"
check qvis e1m1 "$V/E1M1-edited-ents.bsp" "$V/E1M1-edited-ents.prt"
# Walks hand branches to other ranks (spills) only in a wave's tail or
# when long, so at random on these maps: Q2MAP_DIST_SPILL=1 spills every
# branch a walk could hand over, and the bsp must still be the same.
MPIRUN+=(-x Q2MAP_DIST_SPILL)
export Q2MAP_DIST_SPILL=1
check qvis e1m1-spill "$V/E1M1-edited-ents.bsp" "$V/E1M1-edited-ents.prt"
unset Q2MAP_DIST_SPILL
python3 - "$TMP/e1m1-spill-np1.json" "$TMP/e1m1-spill-np2.json" "$TMP/e1m1-spill-np3.json" <<'EOF' || bad "qvis e1m1: spills"
import json, sys
one, two, three = (json.load(open(p))["flow_spills"] for p in sys.argv[1:])
assert one == 0, one  # one rank has nobody to spill to
assert two > 0 and three > 0, (two, three)
EOF
R=$DATA/qrad
check qrad light_sun "$R/ericw-q2_light_sun.bsp" "" -bounce 4
check qrad q2t_liquids "$R/q2tools-220-q2_liquids.bsp" "" -bounce 4
# Decoupled lightmaps are lit in the direct pass's items and finished on the
# rank that lit the face; only their bytes travel, to rank 0 (with the
# light grid, every face's light also goes to every rank).
check qrad light_sun-decoupled "$R/ericw-q2_light_sun.bsp" "" -bounce 4 -world_units_per_luxel 8
check qrad light_sun-decoupled-grid "$R/ericw-q2_light_sun.bsp" "" -bounce 2 -world_units_per_luxel 8 -lightgrid

# Every rank computed the same total of items, and on E1M1 (thousands of
# portals in some twenty loops) at least two ranks took a share.
python3 - "$TMP/e1m1-np1.json" "$TMP/e1m1-np3.json" <<'EOF' || bad "qvis e1m1: items per rank"
import json, sys
one, three = (json.load(open(p))["mpi"]["per_rank"] for p in sys.argv[1:])
total = sum(p["items"] for p in one)
assert sum(p["items"] for p in three) == total, (one, three)
assert sum(1 for p in three if p["items"] > 0) >= 2, three
EOF

# q2map compile -mpi "ARGS" runs qvis and qrad under mpirun ARGS: the same bsp.
if [ -x "$BIN/q2map" ] && [ -f "$Q2MAP_SRC/maps/q2map_sample.map" ]; then
    cp "$Q2MAP_SRC/maps/q2map_sample.map" "$TMP/sample.map"
    "$BIN/q2map" compile "$TMP/sample.map" -quiet -threads 1 -o "$TMP/sample-ref.bsp" >"$TMP/sample-ref.log" 2>&1 ||
        bad "q2map compile without -mpi failed"
    Q2MAP_MPIRUN=$Q2MAP_MPIEXEC "$BIN/q2map" compile "$TMP/sample.map" -threads 1 -o "$TMP/sample-mpi.bsp" \
        -mpi "${MPIRUN[*]:1} -np 2" >"$TMP/sample-mpi.log" 2>&1 || { bad "q2map compile -mpi failed:"; cat "$TMP/sample-mpi.log"; }
    grep -q "==> $Q2MAP_MPIEXEC .*-np 2 .*qvis" "$TMP/sample-mpi.log" || bad "q2map -mpi did not run qvis under mpirun"
    cmp "$TMP/sample-ref.bsp" "$TMP/sample-mpi.bsp" || bad "q2map compile -mpi gave another bsp"
fi

# A rank that dies (Q2MAP_DIST_FAULT: rank 1 kills itself at its first
# request for work) ends the job: non-zero exit, the rank and host named,
# the bsp untouched.
for tool in qvis qrad; do
    if [ $tool = qvis ]; then src=$V/E1M1-edited-ents; else src=$R/ericw-q2_light_sun; fi
    cp "$src.bsp" "$TMP/kill-$tool.bsp"
    [ $tool = qvis ] && cp "$src.prt" "$TMP/kill-$tool.prt"
    Q2MAP_DIST_FAULT=1 "${MPIRUN[@]}" -np 2 "$BIN/$tool" -quiet -threads 1 "$TMP/kill-$tool.bsp" \
        >"$TMP/kill-$tool.log" 2>&1
    rc=$?
    [ $rc -ne 0 ] || bad "$tool: a killed rank gave exit status 0"
    cmp -s "$src.bsp" "$TMP/kill-$tool.bsp" || bad "$tool: a killed rank left the bsp changed"
    grep -q "rank 1" "$TMP/kill-$tool.log" && grep -q "$host" "$TMP/kill-$tool.log" ||
        { bad "$tool: the error does not name rank 1 and host $host:"; cat "$TMP/kill-$tool.log"; }
done

[ $fail -eq 0 ] && echo "mpi_distributed: ok"
exit $fail
