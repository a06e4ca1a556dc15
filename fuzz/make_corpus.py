#!/usr/bin/env python3
"""fuzz/make_corpus.py - writes the seed corpora under fuzz/corpus/ from the test vectors.

Layout (fuzz/run and the replay tests give each target common/ and its own folder, if any):
  common/    MessagePack seeds every target reads: the unit tests' exact-byte vectors (every
             hex("...") literal in tests/*_test.cpp, the hex strings of the hostile
             catalogue in tests/support/hostile_inputs.hpp) and vectors built here (each wire format
             at its boundaries, nested documents, the hostile classes of
             tests/hostile_test.cpp in short form, typed shapes for the unpack target, text
             for the unicode target);
  stream/    the common seeds behind the stream target's chunk-size prefix, and runs of them;
  records/   msgpackr record sequences (records_seeds());
  encode/    writer programs of fuzz/encode.cpp's shape (encode_seeds());
  json/      JSON text (every R"(...)" literal of tests/json_test.cpp and texts written here:
             the lossless mapping, JSON Lines, escapes, numbers at their limits).
Files are named by the first 16 hex digits of the SHA-1 of their content, so rerunning is
idempotent; each folder is replaced whole. Inputs found by fuzzing that cover what the seeds
do not are kept in fuzz/regressions/<target>/ (never touched here).
Needs only the Python standard library:  python3 fuzz/make_corpus.py
"""
import hashlib
import pathlib
import re
import struct

ROOT = pathlib.Path(__file__).resolve().parent.parent
MAX_SEED = 4096  # libFuzzer's default -max_len


# --- a small encoder: smallest forms, as the MessagePack specification gives them ---------
def uint(v):
    if v < 0x80:
        return bytes([v])
    for m, fmt, top in ((0xCC, ">B", 0xFF), (0xCD, ">H", 0xFFFF), (0xCE, ">I", 0xFFFFFFFF)):
        if v <= top:
            return bytes([m]) + struct.pack(fmt, v)
    return b"\xcf" + struct.pack(">Q", v)


def sint(v):
    if v >= 0:
        return uint(v)
    if v >= -32:
        return struct.pack(">b", v)
    for m, fmt, lo in ((0xD0, ">b", -0x80), (0xD1, ">h", -0x8000), (0xD2, ">i", -0x80000000)):
        if v >= lo:
            return bytes([m]) + struct.pack(fmt, v)
    return b"\xd3" + struct.pack(">q", v)


def sized(n, fix, fixmax, markers):
    if fix is not None and n <= fixmax:
        return bytes([fix | n])
    for m, fmt, top in markers:
        if n <= top:
            return bytes([m]) + struct.pack(fmt, n)
    raise ValueError("too long")


def s(text):
    b = text.encode() if isinstance(text, str) else text
    return sized(len(b), 0xA0, 31, ((0xD9, ">B", 0xFF), (0xDA, ">H", 0xFFFF), (0xDB, ">I", 2**32 - 1))) + b


def binary(b):
    return sized(len(b), None, 0, ((0xC4, ">B", 0xFF), (0xC5, ">H", 0xFFFF), (0xC6, ">I", 2**32 - 1))) + b


def arr(items):
    return sized(len(items), 0x90, 15, ((0xDC, ">H", 0xFFFF), (0xDD, ">I", 2**32 - 1))) + b"".join(items)


def mp(pairs):
    head = sized(len(pairs), 0x80, 15, ((0xDE, ">H", 0xFFFF), (0xDF, ">I", 2**32 - 1)))
    return head + b"".join(k + v for k, v in pairs)


def ext(t, data):
    fixed = {1: 0xD4, 2: 0xD5, 4: 0xD6, 8: 0xD7, 16: 0xD8}
    if len(data) in fixed:
        return bytes([fixed[len(data)]]) + struct.pack(">b", t) + data
    for m, fmt, top in ((0xC7, ">B", 0xFF), (0xC8, ">H", 0xFFFF), (0xC9, ">I", 2**32 - 1)):
        if len(data) <= top:
            return bytes([m]) + struct.pack(fmt, len(data)) + struct.pack(">b", t) + data


def built_vectors():
    v = [b"\xc0", b"\xc2", b"\xc3"]
    for n in (0, 1, 0x7F, 0x80, 0xFF, 0x100, 0xFFFF, 0x10000, 2**32 - 1, 2**32, 2**64 - 1):
        v.append(uint(n))
    for n in (-1, -32, -33, -128, -129, -32768, -32769, -(2**31), -(2**31) - 1, -(2**63)):
        v.append(sint(n))
    # non-minimal widths, which decoders must accept
    v += [b"\xcd\x00\x01", b"\xd3\x00\x00\x00\x00\x00\x00\x00\x05", b"\xd0\x05", b"\xda\x00\x01a"]
    for d in (0.0, -0.0, 1.5, 1e300, float("inf"), float("nan")):
        v.append(b"\xcb" + struct.pack(">d", d))
        v.append(b"\xca" + struct.pack(">f", d if abs(d) < 1e38 or d != d else float("inf")))
    for n in (0, 1, 31, 32, 255, 256):
        v.append(s("a" * n))
        v.append(binary(bytes(range(256))[:n]))
    v.append(s("héllo wörld ✓"))
    for n in (1, 2, 3, 4, 8, 16, 17, 256):
        v.append(ext(7, b"\x01" * n))
    v.append(ext(-1, struct.pack(">I", 1440949922)))  # timestamp 32
    v.append(ext(-1, struct.pack(">Q", (999999999 << 34) | 1)))  # timestamp 64
    v.append(ext(-1, struct.pack(">Iq", 5, -1)))  # timestamp 96
    for n in (0, 1, 15, 16):
        v.append(arr([uint(k) for k in range(n)]))
        v.append(mp([(s("k%d" % k), uint(k)) for k in range(n)]))
    nest = arr([uint(1), uint(2), uint(3)])
    for _ in range(7):
        nest = arr([uint(1), uint(2), uint(3), nest])
    v.append(nest)
    v.append(mp([(s("foo"), uint(1)), (s("bar"), s("abc"))]))
    v.append(
        mp([(s("foo"), uint(1)), (s("bar"), arr([uint(1), uint(2), s("abc")])),
            (s("foobar"), mp([(s("foo"), b"\xc3"), (s("bar"), sint(-2147483649)),
                              (s("baz"), binary(b"\x01\x02\x03\x04\x05"))]))]))
    v.append(b"\x01\x02\xa1a\x90")  # several top-level values
    # typed shapes, for the unpack target (fuzz/unpack.cpp: everything, row, node, hashed)
    row = arr([s("t"), uint(5), b"\xcb" + struct.pack(">d", 2.5)])
    v.append(row)
    v.append(mp([(s("b"), b"\xc3"), (s("i8"), sint(-5)), (s("u64"), uint(2**64 - 1)),
                 (s("f32"), b"\xca" + struct.pack(">f", 1.5)), (s("str"), s("x")),
                 (s("view"), s("v")), (s("bin_view"), binary(b"\x01")),
                 (s("bin"), binary(b"\x01\x02")), (s("fixed_bin"), binary(b"\x00" * 4)),
                 (s("vec"), arr([uint(1), sint(-2)])), (s("arr"), arr([uint(1)] * 3)),
                 (s("deq"), arr([s("d")])), (s("lst"), arr([sint(-9)])),
                 (s("set"), arr([s("a"), s("b")])), (s("map"), mp([(s("a"), uint(1))])),
                 (s("pair"), arr([uint(1), s("p")])),
                 (s("tuple"), arr([b"\xc2", b"\xcb" + struct.pack(">d", 0.5), s("t")])),
                 (s("opt"), b"\xc0"), (s("var"), arr([uint(2), row])), (s("col"), s("green")),
                 (s("lvl"), uint(200)), (s("nested"), row), (s("rows"), arr([row, row])),
                 (s("deep"), mp([(s("k"), arr([uint(1), b"\xc0"]))])),
                 (s("bits"), arr([b"\xc3", b"\xc2"]))]))
    v.append(arr([uint(1), arr([arr([uint(2), arr([])]), arr([uint(3), arr([arr([uint(4), arr([])])])])])]))
    v.append(mp([(s("uset"), arr([uint(1), uint(2), uint(3)])), (s("umap"), mp([(uint(1), s("a"))]))]))
    # text, for the unicode target: UTF-8, and UTF-16 (little-endian, as the target reads it)
    text = "h\u00e9llo w\u00f6rld \u2713 \U0001d11e"
    v += [text.encode(), text.encode("utf-16-le"), b"\xed\xa0\x80", b"\x00\xd8a\x00"]
    # JSON text, for the json target (it reads its input as JSON too)
    v += [b'{"a": [1, -2, 3.5, true, null, "x\\u00e9"], "b": {"c": 18446744073709551615}}',
          b'[1e308, -0.0, 1.5e-300, "\\ud83d\\ude00"]\n{"$bin": "AQID"}\n{"$float32": 1.5}',
          b'{"$ext": [5, "AQ=="]}', b'{"$map": [[1, 2], [[3], 4]]}', b'[[[[[[[[]]]]]]]]']
    # hostile classes, short
    v += [b"\xdd\xff\xff\xff\xff", b"\xdf\xff\xff\xff\xff", b"\xdc\xff\xff", b"\x9f\x01\x01\x01",
          b"\xdb\xff\xff\xff\xff\x5a", b"\xc6\xff\xff\xff\xff", b"\xc9\xff\xff\xff\xff\x01",
          b"\xdf\x40\x00\x00\x00", b"\xdf\x80\x00\x00\x00", b"\xc1", b"\x91\xc1", b"\x81\xc1\xc0",
          b"\x81\xa1a\xdd\xff\xff\xff\xff", b"\x91" * 600, b"\x81" * 300 + b"\xc0",
          b"\x81\xc0" * 300 + b"\xc0", s(b"\xc0\x80") , s(b"\xed\xa0\x80"), s(b"\xf4\x90\x80\x80"),
          s(b"\xe2\x82"), s(b"a\x00b"), ext(-1, struct.pack(">Q", (1000000000 << 34))),
          ext(-1, struct.pack(">Iq", 0, 2**63 - 1)), ext(-128, b"x"),
          mp([(s("a"), uint(1)), (s("a"), uint(2))]), mp([(arr([]), uint(1))]),
          mp([(b"\xc0", uint(1))]), mp([(b"\xcb" + struct.pack(">d", float("nan")), uint(1))]),
          b"\xcf\xff\xff\xff\xff\xff\xff\xff\xff", b"\xd3\x80\x00\x00\x00\x00\x00\x00\x00",
          uint(1) + b"\xff\xff"]
    return v


def test_vectors():
    out = []
    for path in sorted((ROOT / "tests").glob("*_test.cpp")):
        for m in re.finditer(r'hex\("([0-9a-fA-F ]*)"\)', path.read_text(encoding="utf-8")):
            out.append(bytes.fromhex(m.group(1)))
    # The hostile catalogue's classes, kept as lists of hex strings in tests/support.
    for m in re.finditer(r'"((?:[0-9a-f]{2} )*[0-9a-f]{2})"',
                         (ROOT / "tests" / "support" / "hostile_inputs.hpp").read_text(encoding="utf-8")):
        out.append(bytes.fromhex(m.group(1)))
    return out


# fuzz/stream.cpp reads byte 0 as k (mod 8), then k chunk sizes (b + 1 bytes each), then the
# stream: all at once, one byte at a time, and chunks of 1, 7 and 3 bytes in turn.
STREAM_PREFIXES = (b"\x00", b"\x01\x00", b"\x03\x00\x06\x02")


def stream_seeds(seeds):
    """The stream target's seeds: each seed behind a chunk-size prefix, and runs of 8 seeds
    back to back (a stream of several messages)."""
    values = [b for _, b in sorted(seeds.items())]
    runs = [b"".join(values[i:i + 8]) for i in range(0, len(values), 8)]
    out = {}
    for i, b in enumerate(values + runs):
        seed = STREAM_PREFIXES[i % len(STREAM_PREFIXES)] + b
        if len(seed) <= MAX_SEED:
            out[hashlib.sha1(seed).hexdigest()[:16]] = seed
    return out


def records_seeds(seeds):
    """The records target's own seeds: msgpackr record sequences (one- and two-byte ids,
    definitions inside instances, redefinitions, sequences of messages)."""
    def define(rid, keys, two=None):
        head = b"\xd5\x72" + bytes([rid, two]) if two is not None else b"\xd4\x72" + bytes([rid])
        return head + arr([s(k) for k in keys])
    out = {}
    extra = [
        arr([define(0x40, ["a", "b"]) + uint(1) + s("x"), b"\x40" + uint(70) + s("y")]),
        define(0x41, ["a"]) + define(0x41, ["b"]) + uint(2),
        arr([define(0x60, ["a"], 1) + uint(1), b"\x60\x01" + uint(2)]),
        arr([define(0x60, ["z"], 0) + uint(1), b"\x60\x00" + uint(3), b"\x40", b"\x7f"]),
        define(0x40, ["brand", "alcohol", "brewery", "sort"]) + s("Ale") +
        b"\xcb\x40\x12\x00\x00\x00\x00\x00\x00" + s("Co") + arr([s("pale")]),
        define(0x40, ["a"]) + uint(1) + b"\x40" + uint(2) + b"\x40" + define(0x41, ["n"]) + b"\xc0",
        arr([define(0x40 + i, ["k%d" % i]) + uint(i) for i in range(40)]),
        define(0x40, []) + b"\x40",
        # the fuzz target's structs in declaration order (read straight-line), a list of them
        # whose id is redefined with other keys mid-list, and inside an instance of itself
        define(0x40, ["items", "one", "any", "small"]) +
        arr([define(0x41, ["a", "b", "c"]) + uint(1) + s("x") + arr([]),
             b"\x41" + uint(2) + b"\xc0" + arr([]),
             define(0x41, ["c", "a"]) + arr([]) + uint(3), b"\x41" + arr([]) + uint(4)]) +
        b"\x41" + arr([]) + uint(5) + uint(0) + uint(6),
        define(0x41, ["a", "b", "c"]) + define(0x41, ["a", "b", "c"]) + uint(1) + b"\xc0" +
        arr([]) + b"\xc0" + arr([]),
    ]
    for b in extra:
        out[hashlib.sha1(b).hexdigest()[:16]] = b
    return out


def encode_seeds(seeds):
    """The encode target's own seeds (it reads common/ too): programs of fuzz/encode.cpp's
    shape: an options byte, a 4-byte top-level count, then items (a kind
    byte, a form byte, parameters). Each kind of item in each form, under each option."""
    out = {}
    filler = bytes((i * 37 + 11) % 256 for i in range(64))
    for opts in range(4):
        for kind in range(16):
            body = b"".join(bytes([kind, form]) + filler[form * 7:form * 7 + 12] for form in range(6))
            b = bytes([opts]) + struct.pack(">I", 6) + body
            out[hashlib.sha1(b).hexdigest()[:16]] = b
    return out


def json_seeds():
    """The json target's own seeds: JSON text."""
    texts = []
    for m in re.finditer(r'R"\((.*?)\)"', (ROOT / "tests" / "json_test.cpp").read_text(encoding="utf-8"),
                         re.S):
        texts.append(m.group(1).encode())
    texts += [
        b'{"a": [1, -2, 3.5, true, false, null, "x\\u00e9"], "b": {"c": 18446744073709551615}}',
        b'[1e308, -0.0, 1.5e-300, 5e-324, -9223372036854775808, 18446744073709551616]',
        b'["\\ud83d\\ude00", "\\u0000", "\\\\\\"\\/\\b\\f\\n\\r\\t", "h\xc3\xa9llo \xe2\x9c\x93"]',
        b'1\n[2, 3]\n{"a": 4}\n"five"\n',
        b'{"$bin": "AQID"}', b'{"$ext": [5, "AQ=="]}', b'{"$ext": [-1, "AAAAAQ=="]}',
        b'{"$timestamp": [1440949922, 500]}', b'{"$float32": 1.5}', b'{"$float64": "NaN"}',
        b'{"$float64": "-inf"}', b'{"$str": "wA=="}', b'{"$map": [[1, 2], [[3], {"k": null}]]}',
        b'{"$map": [[{"$bin": ""}, {"$ext": [0, ""]}]]}', b'[[[[[[[[[[[]]]]]]]]]]]',
        b'{"a": {"b": {"c": {"d": {"e": {"f": {}}}}}}}', b'{"": "", "a": 1, "a": 2}',
        b'[0, -0, 1E2, 1e-2, 123456789012345678901234567890, -1.7976931348623157e308]',
        b'  {\n  "pretty": [\n    1,\n    2\n  ]\n}\n', b'[1, 2', b'{"a" 1}', b'nul', b'"\\ud800"',
    ]
    return {hashlib.sha1(t).hexdigest()[:16]: t for t in texts if 0 < len(t) <= MAX_SEED}


def main():
    seeds = {}
    for b in test_vectors() + built_vectors():
        if 0 < len(b) <= MAX_SEED:
            seeds[hashlib.sha1(b).hexdigest()[:16]] = b
    folders = {"common": seeds, "stream": stream_seeds(seeds), "records": records_seeds(seeds),
               "json": json_seeds(), "encode": encode_seeds(seeds)}
    corpus = ROOT / "fuzz" / "corpus"
    for d in corpus.iterdir():  # a folder per target of an older layout goes too
        if d.is_dir() and d.name not in folders:
            for old in d.iterdir():
                old.unlink()
            d.rmdir()
    for name, chosen in folders.items():
        d = corpus / name
        d.mkdir(parents=True, exist_ok=True)
        for old in d.iterdir():
            old.unlink()
        for key, b in sorted(chosen.items()):
            (d / key).write_bytes(b)
    print("make_corpus: " + ", ".join("%s/ %d" % (n, len(c)) for n, c in folders.items()))


if __name__ == "__main__":
    main()
