#!/usr/bin/env python3
"""Simulates qvis or qrad on R ranks of T threads from a trace of one run
(Q2MAP_DIST_TRACE, written by common/dist.c at -threads 1): the measured
cost of every loop item, the time between loops, the bytes of results.

The model follows common/dist.c:
  - between loops every rank does the same work: its OpenMP loops that the
    trace lists item by item ("local", dist_local_begin) run on the rank's T
    threads, each free thread taking the next item; the rest ("gaps") is
    charged in full, as if none of it ran in parallel (--parallel-gaps
    divides it by the threads instead, the optimistic bound);
  - in a loop, rank 0's threads take items one at a time; another rank asks
    rank 0 for a block when its threads run out (a round trip of 2 latencies,
    during which its threads wait) and gets max(T, left / (4 R)) items (a
    quarter of its even share, as serve_blocks hands out); a thread takes the
    next item of its rank's block as soon as it is free;
  - qvis's walks (loops the trace marks "split", modelled with --split):
    a walk longer than one piece (--split-after) runs alone for that piece,
    then the rest of it, costing --split more, is a pool of work its rank's
    threads take in pieces before they take new walks (portalflow.c's
    branch queue); once the walks have all been handed out (or from a walk
    longer than --long-walk), a rank whose pool holds more than a piece per
    thread spills a part of --spill-part seconds to rank 0, at most one per
    --spill-gap, and a thread of any rank with nothing else to do takes it
    a round trip later (rank 0's own at once) into its rank's pool;
  - at the end of the loop the ranks exchange their results: the lengths
    (an allgather of one integer, log2 R latencies), then the results (a
    ring of R - 1 steps of one latency, each rank receiving the (R - 1) / R
    of the payload it did not compute over its link), the payload being the
    bytes after zero-word elision; each rank elides its share's zero words
    and restores the others' at the CPU cost the trace measured;
  - a loop on an earlier loop's items ("same K", dist_loop_begin_same)
    gives each rank the items it computed in loop K of this simulation, with
    no requests, its threads taking them in ascending order;
  - a loop whose results go to rank 0 only ("root": dist_loop_begin_same's
    to_root or dist_loop_begin_to_root) ends with a gather: two latencies
    (the lengths, then the results) and the (R - 1) / R of the payload the
    other ranks computed, over rank 0's link, with the zero words' costs as
    above;
  - a collective outside the loops ("coll N": the input's broadcast, a
    flag, a sum, the summary's gather) waits for rank 0 and costs log2 R
    latencies plus, for its N bytes, a broadcast's scatter and allgather:
    2 (R - 1) / R of them over a link;
  - item costs are those measured on one thread of the trace's machine.
Not modelled: unpacking the results into place (a copy of what arrives),
memory bandwidth shared by a host's threads, contention beyond one link
per host.
Prints, per rank count, the simulated time, the speedup over one rank of T
threads and its fraction of linear."""
import argparse
import heapq
import math
import sys


def read_trace(path):
    segs = []
    with open(path) as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        w = lines[i].split()
        if not w:
            i += 1
            continue
        if w[0] == "gap":
            # the CPU time when the trace has it (robust to a loaded machine)
            segs.append(("gap", float(w[2] if len(w) > 2 else w[1])))
            i += 1
        elif w[0] == "coll":
            # a collective outside the loops: its bytes from or to rank 0
            segs.append(("coll", int(w[1])))
            i += 1
        elif w[0] == "local":
            n = int(w[1])
            costs = [float(x) for x in lines[i + 1].split()] if n else []
            if len(costs) != n:
                sys.exit(f"{path}: local loop of {n} items lists {len(costs)} costs")
            segs.append(("local", costs))
            i += 2
        elif w[0] == "loop":
            n, nbytes = int(w[1]), int(w[3]) if len(w) > 3 else 0
            costs = [float(x) for x in lines[i + 1].split()] if n else []
            if len(costs) != n:
                sys.exit(f"{path}: loop of {n} items lists {len(costs)} costs")
            flags = {x.split("=")[0]: (x.split("=")[1] if "=" in x else True) for x in w[4:]}
            # enc, dec: CPU seconds of eliding and restoring the zero words
            # of all the loop's results (common/zwords.h)
            zw = (float(flags.get("enc", 0)), float(flags.get("dec", 0)))
            # "same K": on the items of loop K (counted from 0); "root":
            # results to rank 0 only
            same = int(w[w.index("same") + 1]) if "same" in w[4:] else None
            segs.append(("loop", costs, nbytes, "split" in flags, zw, same, "root" in flags))
            i += 2
        else:
            sys.exit(f"{path}: line {i + 1}: unexpected '{w[0]}'")
    return segs


def sim_loop(costs, nbytes, R, T, lat, bw, split=None, piece=0.0006, zw=(0.0, 0.0), spill=None, owner=None,
             root=False):
    """One loop on R ranks of T threads; returns (seconds, of which exchange).
    split: qvis's walks (see --split); spill: (part, gap, long) for their
    hand-over to other ranks (see --spill-part); owner: a list that gets the
    rank that took each item; root: the results go to rank 0 only
    (dist_loop_begin_to_root: a gather, as in sim_same)."""
    n = len(costs)
    if n == 0:
        return 0.0, 0.0
    nxt = 0  # rank 0's shared counter
    # per rank: current block [lo, hi)
    block = [[0, 0] for _ in range(R)]
    # events: (time a thread is free, order, rank, thread, work it adds to
    # its rank's pool of branches at that moment)
    seq = 0
    ev = []
    for r in range(R):
        for th in range(T):
            ev.append((0.0, seq, r, th, 0.0))
            seq += 1
    heapq.heapify(ev)
    busy_until = [0.0] * R  # a rank waiting for a reply holds its lock
    pool = [0.0] * R  # qvis: work of handed-over branches not yet taken
    pending = [0] * R  # qvis: walks still in their first piece, parts on their way (they will add to the pool)
    waiting = [[] for _ in range(R)]  # qvis: threads with nothing to take, waiting for branches
    # qvis with other ranks: parts spilled to rank 0 (time available, work),
    # threads of any rank waiting for one, each rank's last spill, and
    # whether a rank's pool holds a long walk
    gpool = []
    gwaiting = []
    last_spill = [-1.0] * R
    long_active = [False] * R
    end = 0.0

    def grant():
        # serve_blocks: a quarter of the asker's even share of what is left
        nonlocal nxt
        left = n - nxt
        b = min(max(T, left * T // (4 * R * T)), left)
        blk = [nxt, nxt + b]
        nxt += b
        return blk

    def push(t, r, th, add=0.0):
        nonlocal seq
        heapq.heappush(ev, (t, seq, r, th, add))
        seq += 1

    while ev:
        t, _, r, th, add = heapq.heappop(ev)
        end = max(end, t)
        if add > 0:
            # a long walk, after its first piece, hands the rest to its
            # rank's threads (split_branch), or a spilled part arrived; the
            # waiting threads wake up
            pending[r] -= 1
            pool[r] += add
            for w in waiting[r]:
                push(t, r, w)
            waiting[r] = []
        if spill is not None and R > 1 and pool[r] > T * piece and (nxt >= n or long_active[r]) \
                and t - last_spill[r] >= spill[1]:
            # its threads all have branches waiting: a part goes to rank 0
            # for another rank, there a latency later, one per spill gap
            # since the last (spill_due: the walks try at every step)
            k = 1 if last_spill[r] < 0 else int((t - last_spill[r]) / spill[1])
            while k > 0 and pool[r] > T * piece:
                amt = min(spill[0], pool[r] - T * piece)
                pool[r] -= amt
                gpool.append((t + lat, amt))
                k -= 1
            last_spill[r] = t
            for (wr, wth) in gwaiting:
                push(t + lat, wr, wth)
            gwaiting = []
        if pool[r] > 1e-12:
            # branches first, before new walks (portalflow.c's thread loop)
            p = min(piece, pool[r])
            pool[r] -= p
            if pool[r] <= 1e-12 and pending[r] == 0:
                long_active[r] = False
            push(t + p, r, th)
            continue
        i = None
        if r == 0:
            if nxt < n:
                i = nxt
                nxt += 1
        else:
            t = max(t, busy_until[r])
            end = max(end, t)
            lo, hi = block[r]
            if lo >= hi and nxt < n:
                t += 2 * lat
                busy_until[r] = t
                block[r] = grant()
                lo, hi = block[r]
            if lo < hi:
                i = lo
                block[r][0] = lo + 1
        if i is None:
            if spill is not None and R > 1 and gpool:
                avail, amt = gpool[0]
                if avail <= t:
                    # a spilled part, a request's round trip away (rank 0
                    # itself takes it at once)
                    gpool.pop(0)
                    pending[r] += 1
                    push(t + (0 if r == 0 else 2 * lat), r, th, amt * (1 + split))
                else:
                    push(avail, r, th)
                continue
            if pending[r] > 0:
                waiting[r].append(th)
            elif spill is not None and R > 1:
                gwaiting.append((r, th))
            continue
        c = costs[i]
        if owner is not None:
            owner[i] = r
        if split is not None and c > piece:
            # the walk alone for its first piece; the rest, costing `split`
            # more for the paths the branches re-walk, goes to the pool
            pending[r] += 1
            if spill is not None and c > spill[2]:
                long_active[r] = True
            push(t + piece, r, th, (c - piece) * (1 + split))
        else:
            push(t + c, r, th)
    comm = 0.0
    if R > 1:
        # the lengths first (an allgather of one int: log2 R steps), then
        # the results (a ring allgather: R - 1 steps, each rank receiving
        # everything but its own share); before it a rank elides the zero
        # words of its share, after it restores the others' (one thread)
        steps = 2 if root else math.ceil(math.log2(R)) + R - 1
        comm = steps * lat + nbytes * (R - 1) / R / bw + zw[0] / R + zw[1] * (R - 1) / R
    return end + comm, comm


def sim_same(costs, nbytes, owner, R, T, lat, bw, root, zw=(0.0, 0.0)):
    """A loop on an earlier loop's items (dist_loop_begin_same): rank r runs
    the items owner gives it, ascending, each free thread taking the next;
    no requests. The results go to every rank (the allgather of sim_loop)
    or, with root, to rank 0: the lengths, then the results gathered over
    rank 0's link, each rank eliding its share's zero words before and rank
    0 restoring the others' after."""
    if not costs:
        return 0.0, 0.0
    if len(owner) != len(costs):
        sys.exit("a 'same' loop names a loop of another size")
    end = 0.0
    for r in range(R):
        end = max(end, sim_local([c for c, o in zip(costs, owner) if o == r], T))
    comm = 0.0
    if R > 1:
        steps = 2 if root else math.ceil(math.log2(R)) + R - 1
        comm = steps * lat + nbytes * (R - 1) / R / bw + zw[0] / R + zw[1] * (R - 1) / R
    return end + comm, comm


def sim_local(costs, T):
    """A loop every rank runs whole on its own T threads (dist_local_begin):
    each free thread takes the next item, as OpenMP's dynamic schedule."""
    free = [0.0] * T
    for c in costs:
        t = heapq.heappop(free)
        heapq.heappush(free, t + c)
    return max(free)


def sim_coll(nbytes, R, lat, bw):
    """A collective outside the loops (the input's broadcast, a flag, a
    sum, the summary's gather): log2 R latencies, and for its bytes a
    broadcast's scatter then allgather (van de Geijn): 2 (R - 1) / R of
    them over a link."""
    if R == 1:
        return 0.0
    return math.ceil(math.log2(R)) * lat + 2 * nbytes * (R - 1) / R / bw


def simulate(segs, R, T, lat, bw, split=None, piece=0.0006, spill=None):
    total = comm = 0.0
    owners = []  # per loop, the rank that took each item
    for s in segs:
        if s[0] == "gap":
            total += s[1]
        elif s[0] == "coll":
            c = sim_coll(s[1], R, lat, bw)
            total += c
            comm += c
        elif s[0] == "local":
            total += sim_local(s[1], T)
        elif len(s) > 5 and s[5] is not None:
            if s[5] >= len(owners):
                sys.exit(f"a loop runs on the items of loop {s[5]}, which comes later")
            t, c = sim_same(s[1], s[2], owners[s[5]], R, T, lat, bw, s[6], s[4])
            owners.append(owners[s[5]])
            total += t
            comm += c
        else:
            owner = [0] * len(s[1])
            t, c = sim_loop(s[1], s[2], R, T, lat, bw, split if s[3] else None, piece, s[4], spill if s[3] else None,
                            owner, s[6])
            owners.append(owner)
            total += t
            comm += c
    return total, comm


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trace")
    ap.add_argument("--ranks", default="1,4,16,64")
    ap.add_argument("--threads", type=int, default=16)
    ap.add_argument("--latency-us", type=float, default=50.0, help="one message, one way (default 50)")
    ap.add_argument("--gbit", type=float, default=10.0, help="link speed in Gbit/s (default 10)")
    ap.add_argument("--scale-items", type=float, default=1.0,
                    help="what-if: multiply every item's cost and bytes (a bigger job of the same shape); "
                         "the time between loops stays as measured")
    ap.add_argument("--parallel-gaps", action="store_true",
                    help="optimistic bound: the time between loops divided by the threads, as if all of it "
                         "ran in parallel (by default it is charged in full)")
    ap.add_argument("--split", type=float, default=None, metavar="OVERHEAD",
                    help="model qvis's hand-over of walk branches to a rank's other threads (see sim_loop); "
                         "OVERHEAD is the extra cost of the work that moves (e.g. 0.02)")
    ap.add_argument("--spill-part", type=float, default=0.0006, metavar="S",
                    help="with --split: walks also hand parts of S seconds of work to other ranks (portalflow.c's "
                         "spills; default 0.0006: the mean part measured on retrojam1, 460-600 steps; 0: no spills)")
    ap.add_argument("--spill-gap", type=float, default=0.0001, metavar="S",
                    help="a rank spills at most one part per S seconds (FLOW_SPILL_GAP_S)")
    ap.add_argument("--long-walk", type=float, default=0.012, metavar="S",
                    help="walks over S seconds spill before the loop's tail (FLOW_LONG_WALK steps of retrojam1)")
    ap.add_argument("--split-after", type=float, default=0.0006, metavar="S",
                    help="with --split: a walk hands branches over after S seconds of its own steps, and "
                         "branches are taken in pieces of S (default 0.0006: FLOW_SPLIT_CHAINS steps of retrojam1)")
    a = ap.parse_args()
    segs = read_trace(a.trace)
    if a.parallel_gaps:
        segs = [("gap", s[1] / a.threads) if s[0] == "gap" else s for s in segs]
    if a.scale_items != 1.0:
        segs = [s if s[0] != "loop" else ("loop", [c * a.scale_items for c in s[1]], int(s[2] * a.scale_items), s[3],
                                           (s[4][0] * a.scale_items, s[4][1] * a.scale_items)) + tuple(s[5:])
                for s in segs]
    lat, bw = a.latency_us * 1e-6, a.gbit * 1e9 / 8
    gaps = sum(s[1] for s in segs if s[0] == "gap")
    local = sum(sum(s[1]) for s in segs if s[0] == "local")
    work = sum(sum(s[1]) for s in segs if s[0] == "loop")
    nbytes = sum(s[2] for s in segs if s[0] == "loop")
    colls = [s[1] for s in segs if s[0] == "coll"]
    print(f"trace: {sum(1 for s in segs if s[0] == 'loop')} loops, {work:.3f} s of items, "
          f"{gaps + local:.3f} s between loops ({local:.3f} s of it in loops of the rank's own threads, "
          f"the rest {'divided by the threads' if a.parallel_gaps else 'charged unparallelised'}), "
          f"{nbytes} bytes of results, {len(colls)} other collectives of {sum(colls)} bytes")
    crit = gaps + sum(max(s[1]) for s in segs if s[0] in ("loop", "local") and s[1])
    if crit > 0:
        print(f"critical path (between loops + the costliest item of each loop): {crit:.3f} s, "
              f"so at most {(gaps + local + work) / crit:.1f} threads in all are busy on average")
    print(f"model: {a.threads} threads per rank, {a.latency_us:g} us latency, {a.gbit:g} Gbit/s"
          + (f", items x{a.scale_items:g} (what-if)" if a.scale_items != 1.0 else "")
          + (f", walks split among a rank's threads after {a.split_after:g} s at {a.split:g} overhead"
             if a.split is not None else ""))
    print(f"{'ranks':>5} {'seconds':>9} {'exchange_s':>10} {'speedup':>8} {'of_linear':>9}")
    base = None
    for R in [int(x) for x in a.ranks.split(",")]:
        spill = None if a.split is None or a.spill_part <= 0 else (a.spill_part, a.spill_gap, a.long_walk)
        t, c = simulate(segs, R, a.threads, lat, bw, a.split, a.split_after, spill)
        if base is None:
            base = (R, t)
        sp = base[1] / t * base[0] if t > 0 else float("nan")
        print(f"{R:>5} {t:>9.3f} {c:>10.3f} {sp:>8.2f} {sp / R:>9.2f}")


if __name__ == "__main__":
    main()
