#!/usr/bin/env python3
"""Compare two ranks' event sequences, as `tracecluster dump --json` or
`tracecluster expand --json` print them, per event: op, peer, tag, count
and communicator (and the receive side of a sendrecv).

usage: cmp-events.py ORIGINAL.jsonl REPLAYED.jsonl

A wildcard receive or probe of the original also matches a replayed one
that names the source it matched in the original (tracecluster-replay
--any-source recorded). Prints the first difference and exits 1, or
prints "N events equal" and exits 0.
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


def main():
    a, b = load(sys.argv[1]), load(sys.argv[2])
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
