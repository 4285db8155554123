#!/usr/bin/env python3
"""compute-moved.py TC SET TRACE: how far the global trace TRACE moves each
rank's compute time from the raw trace set SET it was made of.

For every rank, the total compute time (the gaps between the end of one
call and the start of the next, none where a call starts before the
previous one's end) of `TC dump --json` of the raw file and of
`TC expand --json` of the global trace, and the change as a share of the
rank's span (end of MPI_Init to start of MPI_Finalize, raw). Prints the
largest share over the ranks in percent, and the rank.
"""
import json
import subprocess
import sys


def events(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return [e for e in map(json.loads, out.splitlines()) if e.get("record") == "event"]


def compute(ev):
    # as the replay reads them: a call that starts before the previous
    # one's end (an end the shim estimated, not read off the clock) has
    # no gap before it
    total, end = 0, ev[0]["t_end"] if ev else 0
    for e in ev[1:]:
        total += max(0, e["t_start"] - end)
        end = max(end, e["t_end"])
    return total


def main():
    tc, tset, trace = sys.argv[1:4]
    info = json.loads(subprocess.run([tc, "info", "--json", tset], check=True,
                                     capture_output=True, text=True).stdout)
    world = info["world_size"]
    worst, at = 0.0, 0
    for r in range(world):
        raw = events([tc, "dump", "--json", "--rank", str(r), tset])
        got = events([tc, "expand", "--json", "--rank", str(r), trace])
        span = raw[-1]["t_start"] - raw[0]["t_end"]
        share = abs(compute(got) - compute(raw)) / span if span > 0 else 0.0
        if share > worst:
            worst, at = share, r
    print("%.2f %d" % (100 * worst, at))


if __name__ == "__main__":
    main()
