#!/usr/bin/env python3
"""Pack an OTF2 archive directory into the container fuzz_otf2 reads.

usage: otf2-pack.py ARCHIVE_DIR OUT

Every regular file under ARCHIVE_DIR (at most two levels) becomes
  u8 name length, name, u32 little-endian data length, data
in sorted order of its relative path.
"""
import os
import struct
import sys


def main():
    top, out = sys.argv[1], sys.argv[2]
    parts = []
    for root, _, files in os.walk(top):
        for f in files:
            path = os.path.join(root, f)
            rel = os.path.relpath(path, top)
            parts.append((rel, open(path, "rb").read()))
    blob = b""
    for rel, data in sorted(parts):
        name = rel.encode()
        blob += bytes([len(name)]) + name + struct.pack("<I", len(data)) + data
    open(out, "wb").write(blob)


if __name__ == "__main__":
    main()
