#!/bin/bash
# Only qvis and qrad share work out over MPI ranks (common/dist.c, the
# library q2dist), so only they may link an MPI library: qbsp, bspinfo,
# qview and q2map must start on a machine without Open MPI. Read from each
# program's dynamic section (readelf -d); skipped (77) without readelf or
# where the programs are not ELF files (a Windows build).
set -u
. "$(dirname "$0")/lib/common.sh"
q2m_begin
command -v readelf >/dev/null 2>&1 || { echo "SKIP: no readelf"; exit 77; }
readelf -h "$BIN/qbsp" >/dev/null 2>&1 || { echo "SKIP: the programs are not ELF files"; exit 77; }

needed() { readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }

for p in qbsp bspinfo qview q2map; do
    [ -x "$BIN/$p" ] || { bad "$p is not built"; continue; }
    libs=$(needed "$BIN/$p")
    [ -n "$libs" ] || [ "$(readelf -l "$BIN/$p" | grep -c INTERP)" -eq 0 ] || bad "$p: no NEEDED entries read"
    if grep -qiE 'libmpi|open-rte|open-pal' <<<"$libs"; then
        bad "$p links an MPI library: $(tr '\n' ' ' <<<"$libs")"
    fi
done
# In an MPI build (ctest passes mpirun in Q2MAP_MPIEXEC) qvis and qrad do
# link it: the check above would see a library named otherwise.
if [ -n "${Q2MAP_MPIEXEC:-}" ]; then
    for p in qvis qrad; do
        needed "$BIN/$p" | grep -q libmpi || bad "$p: built with MPI but links no libmpi"
    done
fi
exit $fail
