#!/usr/bin/env python3
"""Compare two ranks' event sequences, as `tracecluster dump --json` or
`tracecluster expand --json` print them, per event: op, peer, tag, count
and communicator (and the receive side of a sendrecv).

usage: cmp-events.py [--polls|--probes] [--mpi3] [--inferred] ORIGINAL.jsonl REPLAYED.jsonl

A wildcard receive or probe of the original also matches a replayed one
that names the source it matched in the original (tracecluster-replay
--any-source recorded). Prints the first difference and exits 1, or
prints "N events equal" and exits 0. With --polls, MPI_Iprobe and
MPI_Improbe calls that found no message and MPI_Win_test calls that found
the epoch still open (count 0) are left out of both sides: how often a
polling loop finds nothing depends on timing, not on the trace. With
--probes, every probe is left out as well: a poll of the replay that found
a message its trace's poll did not takes it off the queue, and
tracecluster-replay holds it for the later probe or receive of the trace
that takes it (that probe is then not issued), so only the receives show
which message went where.
With --inferred, a wildcard receive whose match the original does not
record (a ScalaTrace trace keeps the wildcard alone) also matches a
replayed one that names any rank: tracecluster-replay gives it the source
it infers from the senders' messages, which the original cannot confirm.
With --mpi3, the original's MPI-4 calls are first turned into the MPI-3
calls tracecluster-replay issues for them on an MPI without MPI-4 (see
mpi3()), and communicator ids are compared through the communicators the
two sides created in turn (the replay may create helper ones).
"""
import json
import sys


def load(path):
    with open(path) as f:
        evs = [json.loads(l) for l in f if l.strip()]
    return [e for e in evs if e.get("record", "event") == "event"]


def matched_sources(evs):
    """index of a wildcard receive or probe -> the source it matched"""
    out, pending = {}, {}
    for i, e in enumerate(evs):
        if e.get("peer") == "MPI_ANY_SOURCE":
            if e.get("completions"):
                out[i] = e["completions"][0].get("source")
            elif "request" in e:
                pending[e["request"]] = i
        for c in e.get("completions") or []:
            r = c.get("request")
            if r in pending and e["op"] not in ("MPI_Cancel", "MPI_Request_free"):
                out[pending.pop(r)] = c.get("source")
    return out


KEYS = ("op", "peer", "tag", "count", "comm", "recv_peer", "recv_tag")

# persistent point-to-point inits (MPI-3): every other *_init is MPI-4's
P2P_INITS = ("MPI_Send_init", "MPI_Bsend_init", "MPI_Ssend_init", "MPI_Rsend_init",
             "MPI_Recv_init")


def nonblocking(init):
    """MPI_Allreduce_init -> MPI_Iallreduce"""
    base = init[:-len("_init")]
    return "MPI_I" + base[4].lower() + base[5:]


def mpi3(evs):
    """The MPI-3 calls tracecluster-replay makes for the MPI-4 ones: a
    persistent collective's init nothing, each of its starts the
    nonblocking collective; a partitioned receive's start an Irecv, a
    partitioned send's last Pready an Isend, the rest of partitioned
    communication (inits, other Preadys, Parrived) nothing; the request
    frees of both nothing; Isendrecv(_replace) an Irecv and an Isend;
    Comm_idup_with_info Comm_idup; Comm_create_from_group
    Comm_create_group; Intercomm_create_from_groups Intercomm_create (its
    leaders, tag and communicator not compared)."""
    out, init, ready = [], {}, {}
    for e in evs:
        op, req = e["op"], e.get("request")
        if op.endswith("_init") and op not in P2P_INITS:
            init[req] = e
            continue
        i = init.get(req)
        if op == "MPI_Start" and i is not None:
            if i["op"] == "MPI_Precv_init":
                out.append(dict(e, op="MPI_Irecv"))
            elif i["op"] == "MPI_Psend_init":
                ready[req] = 0
            else:
                out.append(dict(e, op=nonblocking(i["op"])))
            continue
        if op.startswith("MPI_Pready") and i is not None:
            parts = i.get("offset", 1)
            if ready.get(req, 0) < parts <= ready.get(req, 0) + e["count"]:
                out.append(dict(i, op="MPI_Isend"))
            ready[req] = ready.get(req, 0) + e["count"]
            continue
        if op == "MPI_Parrived" or (op == "MPI_Request_free" and i is not None):
            continue
        if op in ("MPI_Isendrecv", "MPI_Isendrecv_replace"):
            out.append(dict(e, op="MPI_Irecv", peer=e.get("recv_peer"), tag=e.get("recv_tag"),
                            recv_peer=None, recv_tag=None))
            out.append(dict(e, op="MPI_Isend", recv_peer=None, recv_tag=None))
            continue
        if op == "MPI_Comm_idup_with_info":
            e = dict(e, op="MPI_Comm_idup")
        elif op == "MPI_Comm_create_from_group":
            e = dict(e, op="MPI_Comm_create_group", skip=("tag",))
        elif op == "MPI_Intercomm_create_from_groups":
            e = dict(e, op="MPI_Intercomm_create", skip=("peer", "tag", "comm"))
        out.append(e)
    return out


class Comms:
    """original communicator id -> replayed one, from the ids the two
    sides' calls created in turn"""

    def __init__(self):
        self.map = {}

    def learn(self, x, y):
        if x.get("newcomm") is not None and y.get("newcomm") is not None:
            self.map[x["newcomm"]] = y["newcomm"]

    def same(self, x, y):
        return self.map.get(x, x) == y


PROBES = ("MPI_Probe", "MPI_Iprobe", "MPI_Mprobe", "MPI_Improbe")


def found(e):
    if e["op"] == "MPI_Win_test":
        return e.get("count") != 0
    return e["op"] not in ("MPI_Iprobe", "MPI_Improbe") or e.get("completions")


def main():
    args = sys.argv[1:]
    probes = "--probes" in args
    polls = "--polls" in args or probes
    m3 = "--mpi3" in args
    inferred = "--inferred" in args
    args = [x for x in args if x not in ("--polls", "--probes", "--mpi3", "--inferred")]
    a, b = load(args[0]), load(args[1])
    if polls:
        a, b = [e for e in a if found(e)], [e for e in b if found(e)]
    if probes:
        a, b = [e for e in a if e["op"] not in PROBES], [e for e in b if e["op"] not in PROBES]
    src = matched_sources(a)
    if m3:
        a = mpi3(a)
        src = matched_sources(a)
    comms = Comms()
    for i in range(min(len(a), len(b))):
        for k in KEYS:
            x, y = a[i].get(k), b[i].get(k)
            if x == y or (k == "peer" and x == "MPI_ANY_SOURCE" and src.get(i) == y):
                continue
            if (inferred and k == "peer" and x == "MPI_ANY_SOURCE" and src.get(i) is None
                    and isinstance(y, int) and y >= 0
                    and a[i].get("op") in ("MPI_Recv", "MPI_Irecv")):
                continue
            if m3 and (k in a[i].get("skip", ()) or (k == "comm" and comms.same(x, y))):
                continue
            print("event %d: %s %r in the original, %r replayed (%s / %s)"
                  % (i, k, x, y, a[i].get("op"), b[i].get("op")))
            return 1
        comms.learn(a[i], b[i])
    if len(a) != len(b):
        print("%d events in the original, %d replayed" % (len(a), len(b)))
        return 1
    print("%d events equal" % len(a))
    return 0


if __name__ == "__main__":
    sys.exit(main())
