#!/usr/bin/env python3
"""Compare two ranks' event sequences, as `tracecluster dump --json` or
`tracecluster expand --json` print them, per event: op, peer, tag, count
and communicator (and the receive side of a sendrecv).

usage: cmp-events.py [--polls] ORIGINAL.jsonl REPLAYED.jsonl

A wildcard receive or probe of the original also matches a replayed one
that names the source it matched in the original (tracecluster-replay
--any-source recorded). Prints the first difference and exits 1, or
prints "N events equal" and exits 0. With --polls, MPI_Iprobe and
MPI_Improbe calls that found no message are left out of both sides: how
often a polling loop finds nothing depends on timing, not on the trace.
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


KEYS = ("op", "peer", "tag", "count", "comm", "rpeer", "rtag")


def found(e):
    return e["op"] not in ("MPI_Iprobe", "MPI_Improbe") or e.get("completions")


def main():
    args = sys.argv[1:]
    polls = args[:1] == ["--polls"]
    if polls:
        args = args[1:]
    a, b = load(args[0]), load(args[1])
    if polls:
        a, b = [e for e in a if found(e)], [e for e in b if found(e)]
    src = matched_sources(a)
    for i in range(min(len(a), len(b))):
        for k in KEYS:
            x, y = a[i].get(k), b[i].get(k)
            if x == y or (k == "peer" and x == "MPI_ANY_SOURCE" and src.get(i) == y):
                continue
            print("event %d: %s %r in the original, %r replayed (%s / %s)"
                  % (i, k, x, y, a[i].get("op"), b[i].get("op")))
            return 1
    if len(a) != len(b):
        print("%d events in the original, %d replayed" % (len(a), len(b)))
        return 1
    print("%d events equal" % len(a))
    return 0


if __name__ == "__main__":
    sys.exit(main())
