#!/usr/bin/env python3
"""Write the small SST DUMPI fixtures of the tests (committed; rerun to
regenerate): python3 testdata/dumpi/gen-fixtures.py testdata/dumpi

Layout as in formats/dumpi.md: magic, call stream (time biases, records,
END_OF_STREAM), header, footer, label sections, index of offsets.

  ring/     2 ranks, DUMPI 1.0.0: point-to-point, collectives, a split
            communicator, a derived datatype, statuses, call paths
            (Function_enter/exit) and function names
  old/      1 rank, DUMPI 0.6.1 layout (short index, statuses without
            tags, the extra argc word of MPI_Init)
  badmagic/ first 8 bytes are not the DUMPI magic
  truncated/ the file is cut inside the call stream (no index)
  absurd/   a request array claims 2^31-1 entries
  badmeta/  numprocs=abc in the .meta file
"""
import os
import struct
import sys

MAGIC = b'\xff\xaa\xddDUMPI'
END = 293
ENTER, EXIT = 291, 292
MASK = 0x4f            # statuses, CPU and wall times, thread id
WALL_BIAS = 1700000000


def u8(v): return struct.pack('>B', v & 0xff)
def u16(v): return struct.pack('>H', v & 0xffff)
def u32(v): return struct.pack('>I', v & 0xffffffff)
def u64(v): return struct.pack('>Q', v & 0xffffffffffffffff)
def chararr(s): return u32(len(s)) + s.encode()
def string(s): return u16(len(s)) + s.encode()
def arr(v): return u32(len(v)) + b''.join(u32(x) for x in v)


class Trace:
    def __init__(self, version=(1, 0, 0)):
        self.version = version
        self.body = u32(0) + u32(WALL_BIAS)  # CPU and wall time biases
        self.t = 1000                        # microseconds after the bias
        self.counts = [0] * 291

    def stamp(self, us):
        return u16(us // 1000000) + u32((us % 1000000) * 1000)

    def rec(self, fn, args=b'', dur=2):
        t0, t1 = self.t, self.t + dur
        self.t = t1 + 3
        self.body += u16(fn) + u8(MASK) + u16(0)
        self.body += self.stamp(t0 // 10) + self.stamp(t1 // 10)   # CPU
        self.body += self.stamp(t0) + self.stamp(t1)               # wall
        self.body += args
        if fn < 291:
            self.counts[fn] += 1

    def status(self, sts):
        out = u32(len(sts))
        for (nbytes, src, tag) in sts:
            out += u32(nbytes) + u32(src) + u8(0) + u8(0)
            if self.version >= (0, 6, 3):
                out += u32(tag)
        return out

    def file(self, sizes, names, short_index=False):
        out = MAGIC
        body = len(out)
        out += self.body + u16(END)
        header = len(out)
        out += bytes(self.version) + u64(WALL_BIAS)
        out += string('fixture-host') + string('tester') + u32(0) + u32(0)
        footer = len(out)
        out += u64(0xf007fee7) + b''.join(u32(c) for c in self.counts)
        out += b''.join(u32(0) for _ in self.counts)
        perflbl = len(out)
        out += u32(0)
        sizelbl = len(out)
        out += arr(sizes)
        addrlbl = len(out)
        out += u32(len(names)) + b''.join(u64(a) + string(n) for a, n in names)
        if short_index:   # before 0.6.6: no datatype size section
            out += MAGIC + u64(addrlbl) + u64(perflbl)
        else:
            out += MAGIC + u64(sizelbl) + u64(addrlbl) + u64(perflbl)
        out += u64(header) + u64(body) + u64(footer) + u64(0)
        return out


SIZES = [0, 0, 1, 1, 1, 1, 4, 2, 2, 4, 4, 8, 8, 4, 8, 16, 8, 8, 8, 1, 0, 0,
         8, 12, 12, 6, 8, 20, 16]        # 28: the derived type of ring
NAMES = [(0x400500, 'main'), (0x400600, 'exchange')]


def ring(rank):
    peer = 1 - rank
    t = Trace()
    t.rec(ENTER, u64(0x400500))
    t.rec(124, u32(1) + chararr('./ring'))                # MPI_Init
    t.rec(82, u16(2) + u32(rank))                         # MPI_Comm_rank
    t.rec(81, u16(2) + u32(2))                            # MPI_Comm_size
    for _ in range(3):
        t.rec(ENTER, u64(0x400600))
        t.rec(12, u32(8) + u16(9) + u32(peer) + u32(5) + u16(2) + u32(7))   # Irecv
        t.rec(8, u32(8) + u16(9) + u32(peer) + u32(5) + u16(2) + u32(8))    # Isend
        t.rec(18, u32(2) + arr([7, 8]) +                                     # Waitall
              t.status([(32, peer, 5), (12345, 99, 99)]), dur=40)
        t.rec(EXIT, u64(0x400600))
    t.rec(65, u32(1) + u16(14) + u8(3) + u16(2), dur=20)  # Allreduce double sum
    t.rec(86, u16(2) + u32(rank) + u32(0) + u16(4))       # Comm_split -> 4
    t.rec(53, u32(4) + u16(9) + u32(0) + u16(4))          # Bcast on it
    gather = u32(rank) + u32(2) + u16(9) + u32(0) + u16(2)
    if rank == 0:
        gather += u32(2) + u16(9)                         # root only
    t.rec(54, gather)                                     # Gather
    t.rec(35, u32(4) + u16(9) + u16(28))                  # Type_contiguous
    t.rec(46, u16(28))                                    # Type_commit
    t.rec(0, u32(1) + u16(28) + u32(peer) + u32(9) + u16(2))           # Send
    t.rec(1, u32(1) + u16(28) + u32(0xffffffff) + u32(9) + u16(2) +    # Recv
          t.status([(16, peer, 9)]))
    t.rec(122)                                            # Wtime
    t.rec(EXIT, u64(0x400500))
    t.rec(125)                                            # Finalize
    return t.file(SIZES, NAMES)


def old():
    t = Trace(version=(0, 6, 1))
    t.rec(124, u32(1) + u32(1) + chararr('./old'))        # argc written twice
    t.rec(12, u32(3) + u16(13) + u32(0xffffffff) + u32(0xffffffff) + u16(2) + u32(5))
    t.rec(13, u32(5) + t.status([(12, 0, 0)]))            # Wait, status without tag
    t.rec(52, u16(2))                                     # Barrier
    t.rec(125)
    return t.file([], [], short_index=True)


def absurd():
    t = Trace()
    t.rec(124, u32(0))
    t.rec(18, u32(2) + u32(0x7fffffff) + u32(7) + u32(8))  # Waitall, absurd length
    t.rec(125)
    return t.file(SIZES, [])


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'wb') as f:
        f.write(data)


def meta(path, prefix, n, numprocs=None):
    write(path, ('hostname=fixture-host\nnumprocs=%s\nusername=tester\n'
                 'startime=%d\nfileprefix=%s\nversion=1\nsubversion=0\n'
                 'subsubversion=0\n' % (numprocs or n, WALL_BIAS, prefix)).encode())


def main(out):
    for r in range(2):
        write(os.path.join(out, 'ring', 'ring-%04d.bin' % r), ring(r))
    meta(os.path.join(out, 'ring', 'ring.meta'), 'ring', 2)
    write(os.path.join(out, 'old', 'old-0000.bin'), old())
    meta(os.path.join(out, 'old', 'old.meta'), 'old', 1)
    write(os.path.join(out, 'badmagic', 'bad-0000.bin'), b'NOTDUMPI' + ring(0)[8:])
    meta(os.path.join(out, 'badmagic', 'bad.meta'), 'bad', 1)
    data = ring(0)
    write(os.path.join(out, 'truncated', 'trunc-0000.bin'), data[:len(data) * 2 // 10])
    meta(os.path.join(out, 'truncated', 'trunc.meta'), 'trunc', 1)
    write(os.path.join(out, 'absurd', 'absurd-0000.bin'), absurd())
    meta(os.path.join(out, 'absurd', 'absurd.meta'), 'absurd', 1)
    write(os.path.join(out, 'badmeta', 'x-0000.bin'), old())
    meta(os.path.join(out, 'badmeta', 'x.meta'), 'x', 1, numprocs='abc')


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
