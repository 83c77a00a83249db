#!/bin/bash
# scripts/lib/mpisim.py, the cluster simulator behind docs/distributed.md's
# figures, on traces made up here whose answers are known: equal items
# spread evenly over ranks; a local loop runs on one rank's threads; a
# long walk is shared by its rank's threads (--split) and, with spills,
# by the other ranks too; an exchange (or a gather to rank 0) costs its
# latencies and bytes.
set -u
. "$(dirname "$0")/lib/common.sh"
q2m_need Q2MAP_SRC Q2MAP_TMP
q2m_scratch
TMP=$Q2MAP_TMP
SIM=$Q2MAP_SRC/scripts/lib/mpisim.py
fail=0

# run TRACE ARGS...: prints "ranks seconds" per line
run() {
    local trace=$1
    shift
    python3 "$SIM" "$@" "$trace" | awk '$1 ~ /^[0-9]+$/ {print $1, $2}'
}
# near A B TOL: |A - B| <= TOL
near() { python3 -c "import sys; a, b, t = map(float, sys.argv[1:]); sys.exit(0 if abs(a - b) <= t else 1)" "$@"; }
at() { awk -v r="$1" '$1 == r {print $2}'; }

# 1600 items of 4 ms, no bytes: 1 rank of 16 threads takes 0.4 s, 4 ranks
# a quarter of it, give or take one item
python3 -c "print('loop 1600 0 0'); print(' '.join(['0.004'] * 1600))" >"$TMP/even.trace"
out=$(run "$TMP/even.trace" --ranks 1,4 --latency-us 0)
near "$(echo "$out" | at 1)" 0.4 0.001 || bad "even items, 1 rank: $(echo "$out" | at 1) s, not 0.4"
near "$(echo "$out" | at 4)" 0.1 0.0045 || bad "even items, 4 ranks: $(echo "$out" | at 4) s, not 0.1"

# a local loop of 32 items of 10 ms: 20 ms on 16 threads at any rank count
python3 -c "print('local 32'); print(' '.join(['0.01'] * 32))" >"$TMP/local.trace"
out=$(run "$TMP/local.trace" --ranks 1,4)
near "$(echo "$out" | at 1)" 0.02 0.0001 || bad "local loop, 1 rank: $(echo "$out" | at 1) s"
near "$(echo "$out" | at 4)" 0.02 0.0001 || bad "local loop, 4 ranks: $(echo "$out" | at 4) s"

# one walk of 1.6 s and 63 of 1 ms in a split loop: alone it holds its
# thread 1.6 s; shared by 16 threads about 0.1 s; without spills it stays
# on its rank; with them the other ranks take parts of 0.8 ms, one per
# 0.1 ms (8 ms of work a ms besides the rank's own 16: about 0.067 s),
# and spilling as fast as they can take comes near 1.6 / 64 s
python3 -c "print('loop 64 0 0 split'); print(' '.join(['1.6'] + ['0.001'] * 63))" >"$TMP/walk.trace"
plain=$(run "$TMP/walk.trace" --ranks 1 | at 1)
near "$plain" 1.6 0.01 || bad "a long walk, not split: $plain s, not 1.6"
shared=$(run "$TMP/walk.trace" --ranks 1 --split 0 | at 1)
near "$shared" 0.104 0.003 || bad "a long walk on 16 threads: $shared s, not about 0.104"
nospill=$(run "$TMP/walk.trace" --ranks 4 --split 0 --spill-part 0 --latency-us 0 | at 4)
near "$nospill" 0.1 0.005 || bad "a long walk, 4 ranks without spills: $nospill s, not about 0.1"
spill=$(run "$TMP/walk.trace" --ranks 4 --split 0 --latency-us 0 --spill-part 0.0008 | at 4)
near "$spill" 0.067 0.005 || bad "a long walk, 4 ranks with spills: $spill s, not about 0.067"
fast=$(run "$TMP/walk.trace" --ranks 4 --split 0 --latency-us 0 --spill-part 0.0008 --spill-gap 0.00001 | at 4)
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < 0.03 else 1)" "$fast" ||
    bad "a long walk, 4 ranks spilling fast: $fast s, not under 0.03"

# an exchange: 10 MB over 1 Gbit/s among 4 ranks moves 3/4 of it over a
# link (60 ms) plus 2 + 3 latencies of 50 us
python3 -c "print('loop 4 0 10000000'); print('0 0 0 0')" >"$TMP/bytes.trace"
out=$(python3 "$SIM" --ranks 4 --gbit 1 "$TMP/bytes.trace" | awk '$1 == 4 {print $3}')
near "$out" 0.06025 0.0006 || bad "exchange of 10 MB on 4 ranks: $out s, not 0.060"
# the same to rank 0 only (a gather): the same bytes over rank 0's link,
# 2 latencies instead of 5 (of 5 ms here, to tell them apart)
python3 -c "print('loop 4 0 10000000 root'); print('0 0 0 0')" >"$TMP/root.trace"
out=$(python3 "$SIM" --ranks 4 --gbit 1 --latency-us 5000 "$TMP/root.trace" | awk '$1 == 4 {print $3}')
near "$out" 0.070 0.0006 || bad "gather of 10 MB on 4 ranks: $out s, not 0.070"
# the input's broadcast (a collective outside the loops): nothing on one
# rank; on 4, 2 latencies and 2 x 3/4 of 10 MB over 1 Gbit/s (0.12 s)
python3 -c "print('coll 10000000')" >"$TMP/bcast.trace"
out=$(run "$TMP/bcast.trace" --ranks 1,4 --gbit 1)
near "$(echo "$out" | at 1)" 0 0.0001 || bad "broadcast, 1 rank: $(echo "$out" | at 1) s, not 0"
near "$(echo "$out" | at 4)" 0.1201 0.0006 || bad "broadcast of 10 MB, 4 ranks: $(echo "$out" | at 4) s, not 0.120"
exit $fail
