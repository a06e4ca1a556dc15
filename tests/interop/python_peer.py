#!/usr/bin/python3
"""The msgpack-python side of tests/interop/python_interop_test.cpp.

Usage: /usr/bin/python3 python_peer.py IN OUT

1. IN holds MessagePack values back to back, written by mpk. Each one is unpacked with
   msgpack.Unpacker(raw=False, strict_map_key=False, use_list=False) and packed again with
   msgpack.packb(value, use_bin_type=True); OUT receives the re-encodings back to back, in
   the same order. (Arrays unpack as tuples so that arrays used as map keys are hashable;
   tuples pack as arrays again.)

2. The script then generates values of its own from a seeded random generator, packs each
   with msgpack.packb(value, use_bin_type=True) and writes OUT.own (the packed values back to
   back) and OUT.own.json: a JSON list holding, per value, [hex of its packed bytes,
   description]. A description is a JSON array of strings, so that the C++ side parses it
   with a few lines and nothing is lost to JSON's numbers:
       ["nil"]  ["bool", "0"|"1"]  ["uint", "<decimal>"]  ["int", "<negative decimal>"]
       ["f64", "<16 hex digits of the IEEE bits>"]  ["str", "<hex of the UTF-8 bytes>"]
       ["bin", "<hex>"]  ["ext", "<type>", "<hex of data>"]
       ["array", <description>...]  ["map", <key>, <value>, <key>, <value>...]

What mpk must therefore keep out of IN (python_interop_test.cpp does):
  - float32: Python reads it as a float (a double) and packs float64;
  - negative ext types: msgpack-python decodes -1 as a Timestamp, which must have 4, 8 or 12
    data bytes and is re-packed in its smallest form, and refuses every other negative type
    (its ExtType takes codes 0..127 only: "code must be 0~127");
  - map keys Python cannot hash (maps) or that Python's equality merges (True == 1 == 1.0).

Exits non-zero, with a message on stderr, when the msgpack module is missing or anything fails.
"""

import json
import math
import random
import struct
import sys

try:
    import msgpack
except ImportError as exc:  # the test must fail, not skip, without the peer
    sys.exit(
        "python_peer.py: cannot import msgpack (%s) with %s; install the Debian package "
        "python3-msgpack and run this script with /usr/bin/python3" % (exc, sys.executable)
    )

SEED = 0x6D706B7079  # "mpkpy"
RANDOM_VALUES = 600

UINT_EDGES = [0, 1, 127, 128, 255, 256, 65535, 65536, 2**32 - 1, 2**32, 2**63 - 1, 2**63, 2**64 - 1]
SINT_EDGES = [-1, -32, -33, -128, -129, -32768, -32769, -(2**31), -(2**31) - 1, -(2**63), -(2**63) + 1]
FLOAT_EDGES = [
    0.0, -0.0, 1.0, -1.0, 0.5, 0.1, -2.5, 1e300, -1e-300, 5e-324, 2.2250738585072014e-308,
    1.7976931348623157e308, math.inf, -math.inf, math.nan, 2.0**53, 2.0**63, -(2.0**63),
]
LENGTH_EDGES = [0, 1, 31, 32, 255, 256]
EXT_LENGTH_EDGES = [0, 1, 2, 3, 4, 5, 8, 15, 16, 17, 255, 256]
CONTAINER_EDGES = [0, 1, 15, 16, 17]


# --- descriptions ---------------------------------------------------------------------------

def describe(v):
    """The description of a value as msgpack.packb(v, use_bin_type=True) writes it."""
    if v is None:
        return ["nil"]
    if isinstance(v, bool):  # before int: bool is an int in Python
        return ["bool", "1" if v else "0"]
    if isinstance(v, int):
        return ["uint" if v >= 0 else "int", str(v)]
    if isinstance(v, float):
        return ["f64", struct.pack(">d", v).hex()]
    if isinstance(v, str):
        return ["str", v.encode("utf-8").hex()]
    if isinstance(v, (bytes, bytearray)):
        return ["bin", bytes(v).hex()]
    if isinstance(v, msgpack.ExtType):  # before tuple: ExtType is a namedtuple
        return ["ext", str(v.code), v.data.hex()]
    if isinstance(v, msgpack.Timestamp):
        return ["ext", "-1", v.to_bytes().hex()]
    if isinstance(v, (list, tuple)):
        return ["array"] + [describe(x) for x in v]
    if isinstance(v, dict):
        out = ["map"]
        for key, value in v.items():
            out.append(describe(key))
            out.append(describe(value))
        return out
    raise TypeError("cannot describe %r" % type(v))


# --- the generator --------------------------------------------------------------------------

class Generator:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.budget = 0

    def integer(self):
        r = self.rng.random()
        if r < 0.2:
            return self.rng.choice(UINT_EDGES)
        if r < 0.4:
            return self.rng.choice(SINT_EDGES)
        if r < 0.7:
            return self.rng.getrandbits(self.rng.randrange(65))  # 0 .. 2^64-1
        return -1 - self.rng.getrandbits(self.rng.randrange(64))  # -2^63 .. -1

    def double(self):
        r = self.rng.random()
        if r < 0.3:
            return self.rng.choice(FLOAT_EDGES)
        if r < 0.6:
            return struct.unpack(">d", self.rng.getrandbits(64).to_bytes(8, "big"))[0]
        if r < 0.8:
            return float(self.rng.randrange(-1000, 1001))
        return self.rng.randrange(-1000000, 1000001) / 1024.0

    def length(self):
        if self.rng.random() < 0.5:
            return self.rng.choice(LENGTH_EDGES)
        return self.rng.randrange(300) if self.rng.random() < 0.25 else self.rng.randrange(24)

    def text(self, nbytes):
        """Valid UTF-8 of exactly nbytes bytes, 1- to 4-byte characters mixed."""
        chars = []
        room = nbytes
        while room > 0:
            pick = self.rng.randrange(8)
            if pick <= 3 or room < 2:
                cp = self.rng.randrange(0x20) if self.rng.random() < 0.06 else self.rng.randrange(0x20, 0x7F)
            elif pick == 4 or room < 3:
                cp = self.rng.randrange(0x80, 0x800)
            elif pick <= 6 or room < 4:
                cp = self.rng.randrange(0x800, 0x10000)
                while 0xD800 <= cp <= 0xDFFF:
                    cp = self.rng.randrange(0x800, 0x10000)
            else:
                cp = self.rng.randrange(0x10000, 0x110000)
            c = chr(cp)
            chars.append(c)
            room -= len(c.encode("utf-8"))
        return "".join(chars)

    def timestamp(self):
        seconds, nanoseconds = self.rng.choice([
            (0, 0), (2**32 - 1, 0), (2**32, 0), (1, 999999999), (2**34 - 1, 5), (2**34, 0),
            (-1, 0), (-(2**40), 123), (self.rng.randrange(2**32), 0),
            (self.rng.randrange(2**34), self.rng.randrange(10**9)),
            (self.rng.randrange(-(2**63), 2**63), self.rng.randrange(10**9)),
        ])
        return msgpack.Timestamp(seconds, nanoseconds)

    def scalar(self):
        pick = self.rng.randrange(11)
        if pick == 0:
            return None
        if pick == 1:
            return self.rng.random() < 0.5
        if pick <= 4:
            return self.integer()
        if pick == 5:
            return self.double()
        if pick <= 7:
            return self.text(self.length())
        if pick == 8:
            return self.rng.randbytes(self.length())
        if pick == 9:
            n = self.rng.choice(EXT_LENGTH_EDGES) if self.rng.random() < 0.5 else self.rng.randrange(40)
            # ExtType takes 0..127 only; ext -1 comes from Timestamp below.
            return msgpack.ExtType(self.rng.randrange(128) if self.rng.random() < 0.9 else 127,
                                   self.rng.randbytes(n))
        return self.timestamp()

    def key(self, depth):
        """A hashable key: str, int, bytes, None, float, bool or a tuple of those."""
        pick = self.rng.randrange(8)
        if pick <= 2:
            return self.text(self.rng.randrange(12))
        if pick == 3:
            return self.integer()
        if pick == 4:
            return self.rng.randbytes(self.rng.randrange(8))
        if pick == 5:
            return self.rng.choice([None, True, False, self.double()])
        if depth > 0:
            return tuple(self.key(depth - 1) for _ in range(self.rng.randrange(4)))
        return self.integer()

    def container_size(self):
        n = self.rng.choice(CONTAINER_EDGES) if self.rng.random() < 0.33 else self.rng.randrange(6)
        return min(n, self.budget)

    def node(self, depth, top=False):
        self.budget = max(0, self.budget - 1)
        if depth <= 0 or self.budget == 0 or (not top and self.rng.random() < 0.6) or (top and self.rng.random() < 0.2):
            return self.scalar()
        n = self.container_size()
        pick = self.rng.randrange(3)
        if pick == 0:
            return [self.node(depth - 1) for _ in range(n)]
        if pick == 1:
            return tuple(self.node(depth - 1) for _ in range(n))
        d = {}
        for _ in range(n):
            d[self.key(2)] = self.node(depth - 1)
        return d

    def value(self, depth):
        self.budget = 200
        return self.node(depth, top=True)


def boundary_values(gen):
    """Values at the 8-, 16- and 32-bit length boundaries, too large for the random ones."""
    out = []
    for n in [0, 31, 32, 255, 256, 65535, 65536]:
        out.append(gen.text(n))
        out.append(bytes(range(256)) * (n // 256) + bytes(range(n % 256)))
    for n in [0, 1, 2, 4, 8, 16, 17, 255, 256, 65535, 65536]:
        out.append(msgpack.ExtType(n % 128, b"\x5a" * n))
    for n in [15, 16, 65535, 65536]:
        out.append(list(range(-n // 2, n - n // 2)))
        out.append({i: "v%d" % (i % 10) for i in range(n)})
    deep = "bottom"
    for d in range(300):
        deep = [d, deep]
    out.append(deep)
    return out


# --- main -------------------------------------------------------------------------------------

def main(argv):
    if len(argv) != 3:
        sys.exit("usage: python_peer.py IN OUT")
    src, out = argv[1], argv[2]

    with open(src, "rb") as f:
        data = f.read()
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False, use_list=False)
    unpacker.feed(data)
    count = 0
    with open(out, "wb") as f:
        for value in unpacker:
            f.write(msgpack.packb(value, use_bin_type=True))
            count += 1

    gen = Generator(SEED)
    values = [gen.value(i % 5) for i in range(RANDOM_VALUES)] + boundary_values(gen)
    entries = []
    with open(out + ".own", "wb") as f:
        for value in values:
            packed = msgpack.packb(value, use_bin_type=True)
            f.write(packed)
            entries.append([packed.hex(), describe(value)])
    with open(out + ".own.json", "w") as f:
        json.dump(entries, f, separators=(",", ":"))

    extension = "C extension" if msgpack.Packer.__module__.endswith("_cmsgpack") else "pure Python"
    print("python_peer.py: msgpack %s (%s), Python %s: re-packed %d values, generated %d"
          % (".".join(map(str, msgpack.version)), extension, sys.version.split()[0], count,
             len(values)))


if __name__ == "__main__":
    main(sys.argv)
