#!/usr/bin/python3
"""Python harness of the mpk benchmark suite: msgpack (C extension) and json.

    harness.py --ref DIR --out FILE [--quick] [--only SUBSTR[,SUBSTR...]] [--list]
    harness.py --ref DIR --check-generators

Generates every workload it can express exactly as docs/workloads.md defines it,
verifies each implementation against mpk's reference encodings in DIR (written by mpk_gen)
before timing it, then times it. Protocol and result format: docs/benchmark-suite.md.
Run with Debian's /usr/bin/python3 (python3-msgpack is installed there).
"""
import argparse
import io
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))

import msgpack  # noqa: E402

LANGUAGE = "Python"
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


# --- data, exactly as docs/workloads.md defines it ------------------------------------------------

def small_fields(values):
    out = []
    for i in range(values // 8):
        n = i % 1000
        out += [i % 128, -(i % 1000) - 1, 40000 + i % 1000, -100000 - i, 5000000000 + i,
                i + 0.25, 1.0 / (i + 3), "field%03d" % n]
    return out


def flat_maps(count):
    maps = []
    for i in range(count):
        m = {}
        for j in range(16):
            r = j % 4
            if r == 0:
                v = i * 16 + j
            elif r == 1:
                v = i + (j + 0.5) / 16
            elif r == 2:
                v = "v" + str(i % 100)
            else:
                v = (i + j) % 2 == 0
            m["k%02d" % j] = v
        maps.append(m)
    return maps


SORTS = ["pale", "amber", "dark", "stout", "porter"]


def beer(brand, alcohol, map_mode):
    if map_mode:
        return {"brand": brand, "alcohol": alcohol, "brewery": "Brew Co", "sort": list(SORTS)}
    return [brand, alcohol, "Brew Co", list(SORTS)]


def typed_objects():
    d = {
        "int_array": [(k * 7919) % 65536 - 1000 for k in range(100)],
        "double_array": [k * 1.1 + 0.5 for k in range(100)],
    }
    for mode, map_mode in (("map", True), ("array", False)):
        d["beer_" + mode] = beer("Ale Brewery Lager", 4.5, map_mode)
        d["beer_list_" + mode] = [beer("Ale " + str(k), 4.5 + k / 4, map_mode) for k in range(10)]
    return d


def lua_bench():
    d = {"empty": [], "iary1": [1], "iary10": list(range(-5, 5))}
    for n in (100, 1000, 10000):
        d["iary%d" % n] = [i - n // 2 for i in range(1, n + 1)]
    d["dary1"] = [1.5e35]
    for n in (10, 100, 1000):
        d["dary%d" % n] = [1.5e35 * i for i in range(1, n + 1)]
    d["str1"] = ["a"]
    for n in (10, 100, 1000, 10000, 20000, 30000, 40000, 80000):
        d["str%d" % n] = "a" * (n - 1) + "b"
    return d


def alphabet(n):
    return (ALPHABET * (n // len(ALPHABET) + 1))[:n]


def pattern_bin(n):
    return bytes((k * 31 + 7) & 0xFF for k in range(n))


# W2: every case writes max(1, min(1,000,000, total / size)) values of one size (mpk_gen).
W2_TOTAL = {False: 32 << 20, True: 256 << 10}
W2_MAX_VALUES = 1000000
UTF8_UNIT = "h\u00e9llo w\u00f6rld \u2713 "


def utf8_text(n):
    """UTF8_UNIT repeated, cut at the last whole character at or below n bytes."""
    b = (UTF8_UNIT * (n // len(UTF8_UNIT.encode()) + 2)).encode()[:n]
    return b.decode("utf-8", errors="ignore")


def strings_binary(quick):
    """{case: (payload, count)} exactly as mpk_gen writes them."""
    payloads = {"ascii_8": alphabet(8), "ascii_1k": alphabet(1024), "ascii_64k": alphabet(65536),
                "utf8_1k": utf8_text(1024), "bin_1k": pattern_bin(1024), "bin_1m": pattern_bin(1 << 20)}
    total = W2_TOTAL[quick]
    return {k: (v, max(1, min(W2_MAX_VALUES, total // len(v.encode() if isinstance(v, str) else v))))
            for k, v in payloads.items()}


NEST_DEPTHS = (1, 2, 4, 8, 16, 32, 64, 128)


def nest(n):
    v = [1, 2, 3]
    for _ in range(n - 1):
        v = [1, 2, 3, v]
    return v


STREAM_MESSAGE = ["tag", [[1440949922, {"message": "hi there"}]]]
STREAM_COUNT = {False: 1000000, True: 20000}
STREAM_CHUNK = 65536


def records_lists():
    """W7 records, the plain-map lists: beer_list (W5, map mode) and map_list."""
    return {"beer_list_maps": typed_objects()["beer_list_map"],
            "map_list_maps": [{"key": "a" * i, "value": "a" * i, "index": i} for i in range(32)]}


def medium_or_large(large):
    # notepack's benchmarks/data.js, reconstructed: see docs/benchmark-suite.md.
    entries = 1024 if large else 32
    doc = {"unsigned": [1 << k for k in range(53)], "signed": [-(1 << k) for k in range(53)]}
    if large:
        doc["bin"] = [pattern_bin(256), pattern_bin(65536), pattern_bin(1 << 20)]
    doc["str"] = ["abc", "g" * 32, "h" * 256]
    doc["array"] = [[], [1, 2, 3], ["a", "b", "c"], [[1], [2], [3]]]
    m = {}
    for i in range(entries):
        m["a" * i] = "a" * i
        m["b" * i] = b"b" * i
    doc["map"] = m
    doc["nil"] = None
    doc["bool"] = {"true": True, "false": False, "both": [True, False]}
    doc["undefined"] = [None, True, False, None, None]
    return doc


def documents():
    return {
        "tiny": {"foo": 1, "bar": "abc"},
        "small": {"foo": 1, "bar": [1, 2, 3, 4, "abc", "def"],
                  "foobar": {"foo": True, "bar": -2147483649,
                             "foobar": {"foo": bytes([1, 2, 3, 4, 5]), "bar": 1.5,
                                        "foobar": [True, False, "abcdefghijkmonpqrstuvwxyz"]}}},
        "medium": medium_or_large(False),
        "large": medium_or_large(True),
        # msgpack-lite's test/example.json, reconstructed: see docs/benchmark-suite.md.
        "example": {
            "int0": 0, "int1": 1, "int1-": -1, "int8": 255, "int8-": -255, "int16": 256,
            "int16-": -256, "int32": 65536, "int32-": -65536, "nil": None, "true": True,
            "false": False, "float": 0.5, "float-": -0.5, "string0": "", "string1": "A",
            "string4": "foobarbaz", "string8": "Omnes viae Romam ducunt.",
            "string16": alphabet(641), "array0": [], "array1": ["foo"],
            "array8": [1 << k for k in range(21)], "map0": {}, "map1": {"foo": "bar"},
        },
    }


def same(a, b):
    """Deep equality that also tells int from float and str from bytes (no recursion on depth
    that matters here: the data is ours)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a.keys()) == list(b.keys()) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def has_bytes(v):
    if isinstance(v, bytes):
        return True
    if isinstance(v, dict):
        return any(has_bytes(x) for x in v.values())
    if isinstance(v, list):
        return any(has_bytes(x) for x in v)
    return False


# --- implementations --------------------------------------------------------------------------

def mp_version():
    native = msgpack.Packer.__module__.endswith("_cmsgpack")
    return "msgpack %s%s" % (".".join(map(str, msgpack.version)), "" if native else " (pure Python fallback)")


def stream_pack(values):
    p = msgpack.Packer(autoreset=False)
    for v in values:
        p.pack(v)
    return p.bytes()


def stream_unpack(data):
    u = msgpack.Unpacker(None, raw=False, max_buffer_size=len(data) + 1)
    u.feed(data)
    return list(u)


def stream_consume(data, raw=False):
    """Reads every value of the stream without keeping them: the number of values."""
    u = msgpack.Unpacker(None, raw=raw, max_buffer_size=len(data) + 1)
    u.feed(data)
    n = 0
    for _ in u:
        n += 1
    return n


def stream_all_equal(data, expected, count, raw=False):
    u = msgpack.Unpacker(None, raw=raw, max_buffer_size=len(data) + 1)
    u.feed(data)
    n = 0
    for v in u:
        if not same(v, expected):
            return False
        n += 1
    return n == count


def messages_write(msg, count):
    """W7 stream: count messages packed one by one into a stream (io.BytesIO)."""
    out = io.BytesIO()
    pack = msgpack.Packer().pack
    write = out.write
    for _ in range(count):
        write(pack(msg))
    return out.getvalue()


def messages_read(data, check=None):
    """W7 stream: the bytes arrive in 64 KiB chunks, fed to one Unpacker; returns the count
    of messages (and, with check, whether each equals it)."""
    u = msgpack.Unpacker(raw=False)
    n = 0
    ok = True
    for p in range(0, len(data), STREAM_CHUNK):
        u.feed(data[p:p + STREAM_CHUNK])
        for v in u:
            n += 1
            if check is not None and ok and not same(v, check):
                ok = False
    return n if check is None else (n, ok)


def stream_skip(data):
    u = msgpack.Unpacker(None, raw=False, max_buffer_size=len(data) + 1)
    u.feed(data)
    n = 0
    try:
        while True:
            u.skip()
            n += 1
    except msgpack.OutOfData:
        pass
    return n


class Cell:
    """One cell: workload, case, implementation, unit, units per op, and its operations."""

    def __init__(self, workload, case, impl, unit, units, op, verify):
        self.workload, self.case, self.impl, self.unit = workload, case, impl, unit
        self.units, self.op, self.verify = units, op, verify

    @property
    def id(self):
        return "%s/%s/%s" % (self.workload, self.case, self.impl)


def cells(ref_dir, quick):
    """Every cell this harness runs, with the data it needs (generated lazily per workload)."""
    out = []
    values = 20000 if quick else 1000000
    maps = 2000 if quick else 100000

    def ref(workload, case):
        with open(os.path.join(ref_dir, workload, case + ".msgpack"), "rb") as f:
            return f.read()

    def encode_check(expected, encode, decode):
        def verify(state):
            ref_bytes = state["ref"]()
            mine = encode()
            state["encoded"] = mine
            if not same(decode(mine), expected()):
                return "wrong_values", "its own bytes do not decode to the data", len(mine)
            if mine == ref_bytes:
                return "same_bytes", "same bytes as mpk", len(mine)
            return "different_bytes", "", len(mine)
        return verify

    def decode_check(expected, decode):
        def verify(state):
            got = decode(state["ref"]())
            if same(got, expected()):
                return "same_values", "decodes mpk's bytes to the same values", None
            return "wrong_values", "decodes mpk's bytes to other values", None
        return verify

    class Lazy:
        def __init__(self, fn):
            self.fn, self.v = fn, None

        def __call__(self):
            if self.v is None:
                self.v = self.fn()
            return self.v

    # W1 small_fields
    w1 = Lazy(lambda: small_fields(values))
    w1ref = Lazy(lambda: ref("small_fields", "stream"))
    out.append((Cell("small_fields", "write_implicit", "msgpack-python", "field", values,
                     lambda: stream_pack(w1()), encode_check(w1, lambda: stream_pack(w1()), stream_unpack)), w1ref))
    out.append((Cell("small_fields", "read_generic", "msgpack-python", "field", values,
                     lambda: stream_unpack(w1ref()), decode_check(w1, stream_unpack)), w1ref))

    def skip_verify(state):
        n = stream_skip(state["ref"]())
        if n == values:
            return "same_values", "skips exactly %d values of mpk's bytes" % n, None
        return "wrong_values", "skipped %d values instead of %d" % (n, values), None
    out.append((Cell("small_fields", "skip", "msgpack-python", "field", values,
                     lambda: stream_skip(w1ref()), skip_verify), w1ref))

    # W3 flat_maps
    w3 = Lazy(lambda: flat_maps(maps))
    w3ref = Lazy(lambda: ref("flat_maps", "stream"))
    out.append((Cell("flat_maps", "write", "msgpack-python", "map", maps, lambda: stream_pack(w3()),
                     encode_check(w3, lambda: stream_pack(w3()), stream_unpack)), w3ref))
    out.append((Cell("flat_maps", "read_dynamic", "msgpack-python", "map", maps,
                     lambda: stream_unpack(w3ref()), decode_check(w3, stream_unpack)), w3ref))

    # W2 strings_binary: streams of max(1, 32 MiB / size) values of one size.
    for name, (payload, count) in strings_binary(quick).items():
        r = Lazy(lambda name=name: ref("strings_binary", name))
        w2_values = [payload] * count
        enc = lambda v=w2_values: stream_pack(v)  # noqa: E731
        is_text = isinstance(payload, str)
        out.append((Cell("strings_binary", name + "_write", "msgpack-python", "value", count, enc,
                         encode_check(lambda v=w2_values: v, enc, stream_unpack)), r))

        def read_verify(state, payload=payload, count=count, text=is_text, raw=False):
            expected = payload.encode() if raw else payload
            if stream_all_equal(state["ref"](), expected, count, raw):
                how = ("as bytes, without UTF-8 validation" if raw else
                       "into str, UTF-8 validated" if text else "into bytes (a copy)")
                return "same_values", "decodes mpk's bytes to the same values (%s)" % how, None
            return "wrong_values", "decodes mpk's bytes to other values", None
        out.append((Cell("strings_binary", name + ("_read_copy_utf8" if is_text else "_read_copy"), "msgpack-python", "value", count,
                         lambda r=r: stream_consume(r()), read_verify), r))
        if is_text:  # raw=True: str payloads as bytes, not validated
            out.append((Cell("strings_binary", name + "_read_copy", "msgpack-python", "value", count,
                             lambda r=r: stream_consume(r(), raw=True),
                             lambda state, f=read_verify: f(state, raw=True)), r))

    # W4 deep_nesting: one structure per operation.
    for n in NEST_DEPTHS:
        value = Lazy(lambda n=n: nest(n))
        r = Lazy(lambda n=n: ref("deep_nesting", "nest_%d" % n))
        enc = lambda value=value: msgpack.packb(value())  # noqa: E731
        out.append((Cell("deep_nesting", "build_%d" % n, "msgpack-python", "structure", 1, enc,
                         encode_check(value, enc, msgpack.unpackb)), r))
        out.append((Cell("deep_nesting", "dom_%d" % n, "msgpack-python", "structure", 1,
                         lambda r=r: msgpack.unpackb(r()), decode_check(value, msgpack.unpackb)), r))
        text = Lazy(lambda value=value: json.dumps(value()))

        def json_verify(state, value=value):
            if same(json.loads(json.dumps(value())), value()):
                return "same_values", "JSON text (no MessagePack bytes to compare); round trip gives the same values", len(json.dumps(value()))
            return "wrong_values", "JSON round trip changes the values", None
        out.append((Cell("deep_nesting", "build_%d" % n, "json-python", "structure", 1,
                         lambda value=value: json.dumps(value()), json_verify), r))
        out.append((Cell("deep_nesting", "dom_%d" % n, "json-python", "structure", 1,
                         lambda text=text: json.loads(text()), json_verify), r))

    def per_object(workload, case_prefix, data, with_json, decode_name="decode", encode_name="encode"):
        for name in data():
            value = Lazy(lambda name=name: data()[name])
            r = Lazy(lambda name=name: ref(workload, name))
            packb = msgpack.packb
            unpackb = msgpack.unpackb
            enc = lambda value=value: packb(value())  # noqa: E731
            out.append((Cell(workload, "%s_%s" % (encode_name, name), "msgpack-python", "op", 1, enc,
                             encode_check(value, enc, unpackb)), r))
            out.append((Cell(workload, "%s_%s" % (decode_name, name), "msgpack-python", "op", 1,
                             lambda r=r: unpackb(r()), decode_check(value, unpackb)), r))
            if with_json and not has_bytes(data()[name]):
                text = Lazy(lambda value=value: json.dumps(value()))

                def json_verify(state, value=value):
                    if same(json.loads(json.dumps(value())), value()):
                        return "same_values", "JSON text (no MessagePack bytes to compare); round trip gives the same values", len(json.dumps(value()).encode())
                    return "wrong_values", "JSON round trip changes the values", None
                out.append((Cell(workload, "%s_%s" % (encode_name, name), "json-python", "op", 1,
                                 lambda value=value: json.dumps(value()), json_verify), r))
                out.append((Cell(workload, "%s_%s" % (decode_name, name), "json-python", "op", 1,
                                 lambda text=text: json.loads(text()), json_verify), r))

    per_object("typed_objects", "", Lazy(typed_objects), True, "deserialize", "serialize")

    # W6 lua_bench: pack then unpack is one operation.
    w6 = Lazy(lua_bench)
    for name in w6():
        value = Lazy(lambda name=name: w6()[name])
        r = Lazy(lambda name=name: ref("lua_bench", name))
        op = lambda value=value: msgpack.unpackb(msgpack.packb(value()))  # noqa: E731

        def verify(state, value=value):
            mine = msgpack.packb(value())
            if not same(msgpack.unpackb(state["ref"]()), value()):
                return "wrong_values", "decodes mpk's bytes to other values", len(mine)
            if mine == state["ref"]():
                return "same_bytes", "same bytes as mpk; decodes mpk's bytes to the same values", len(mine)
            state["encoded"] = mine
            return "different_bytes", "", len(mine)
        out.append((Cell("lua_bench", name, "msgpack-python", "op", 1, op, verify), r))

    per_object("documents", "", Lazy(documents), True)

    # W7 stream: messages written to and read from a stream; one message is the unit.
    count = STREAM_COUNT[quick]
    sref = Lazy(lambda: ref("documents", "stream"))

    def stream_write_verify(state):
        mine = messages_write(STREAM_MESSAGE, count)
        n, ok = messages_read(mine, STREAM_MESSAGE)
        if not ok or n != count:
            return "wrong_values", "its own stream does not read back to the messages", len(mine)
        if mine == state["ref"]():
            return "same_bytes", "same bytes as mpk", len(mine)
        state["encoded"] = mine
        return "different_bytes", "", len(mine)

    def stream_read_verify(state):
        n, ok = messages_read(state["ref"](), STREAM_MESSAGE)
        if ok and n == count:
            return "same_values", "reads mpk's stream, fed in 64 KiB chunks, to the same %d messages" % n, None
        return "wrong_values", "read %d messages%s" % (n, "" if ok else ", some different"), None
    out.append((Cell("documents", "encode_stream", "msgpack-python", "op", count,
                     lambda: messages_write(STREAM_MESSAGE, count), stream_write_verify), sref))
    out.append((Cell("documents", "decode_stream", "msgpack-python", "op", count,
                     lambda: messages_read(sref()), stream_read_verify), sref))

    # W7 records: msgpack-python has no record extension: it runs the plain-map lists.
    per_object("documents", "", Lazy(records_lists), True)
    return out


# --- timing -----------------------------------------------------------------------------------

LONG_OP = 2.0  # seconds


# MPK_BENCH_SHORT=1 (the runner's default mode): shorter batches, as many repetitions.
SHORT = os.environ.get("MPK_BENCH_SHORT") == "1"


class Timing:
    """One cell's timing: its operation warmed up, the batch sized, its samples (ns per unit of
    each repetition, in the order they ran)."""

    def __init__(self, op, units, quick):
        warm, target, reps = (0.01, 0.02, 3) if quick else (0.03, 0.05, 5) if SHORT else (0.1, 0.25, 5)
        t0 = time.perf_counter()
        calls = 0
        while True:
            op()
            calls += 1
            elapsed = time.perf_counter() - t0
            if elapsed >= warm:
                break
        self.op, self.units = op, units
        self.batch = max(1, int(target / (elapsed / calls)))
        # long operations: 3 repetitions (docs/benchmark-suite.md)
        self.reps = 3 if elapsed / calls >= LONG_OP else reps
        self.samples = []

    def rep(self):
        op, batch = self.op, self.batch
        s = time.perf_counter_ns()
        for _ in range(batch):
            op()
        self.samples.append((time.perf_counter_ns() - s) / (batch * self.units))

    def summary(self):
        """(median, range %, repetitions); the runner computes the robust spread from the
        samples (the repetitions_ns column)."""
        v = sorted(self.samples)
        n = len(v)
        median = v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2
        return median, (v[-1] - v[0]) / median * 100 if median > 0 else 0.0, n


def time_interleaved(timings):
    """The repetitions of the implementations of one case, interleaved (docs/benchmark-suite.md,
    "Interleaving"; as mpk_bench's suite::register_benchmarks): repetition k of every
    implementation before repetition k + 1 of any, the first implementation rotating (A B, B A,
    ...). One with fewer repetitions (a long operation) drops out of the later rounds."""
    n = len(timings)
    for k in range(max((t.reps for t in timings), default=0)):
        for j in range(n):
            t = timings[(k + j) % n]
            if len(t.samples) < t.reps:
                t.rep()


HEADER = ("workload,case,implementation,language,version,unit,ns_per_unit,spread_pct,repetitions,"
          "noisy,verdict,verification,encoded_bytes,alloc_bytes_per_op,allocs_per_op,repetitions_ns")


def csv_field(s):
    s = str(s)
    if any(c in s for c in ',"\n'):
        return '"' + s.replace('"', '""') + '"'
    return s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ref", required=True)
    ap.add_argument("--out")
    ap.add_argument("--bytes-dir", help="where to write this harness's bytes when they differ from mpk's")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default="")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--check-generators", action="store_true")
    a = ap.parse_args()
    only = [s for s in a.only.split(",") if s]
    todo = [(c, r) for c, r in cells(a.ref, a.quick) if not only or any(s in c.id for s in only)]
    if a.list:
        for c, _ in todo:
            print(c.id)
        return 0
    if a.check_generators:
        return check_generators(a.ref, a.quick)
    versions = {"msgpack-python": mp_version() + " / Python " + sys.version.split()[0],
                "json-python": "json (standard library) / Python " + sys.version.split()[0]}
    failed = 0
    with open(a.out, "w") as out:
        out.write(HEADER + "\n")
        # The cells of one case (workload/case), in the order listed: verified one by one,
        # then timed together, their repetitions interleaved.
        groups = {}
        for c, r in todo:
            groups.setdefault((c.workload, c.case), []).append((c, r))
        for group in groups.values():
            results = []
            for c, r in group:
                state = {"ref": r}
                try:
                    verdict, text, size = c.verify(state)
                except Exception as e:  # a library error is a failed cell, not a crash of the run
                    verdict, text, size = "error", "%s: %s" % (type(e).__name__, e), None
                if verdict == "different_bytes" and a.bytes_dir and "encoded" in state:
                    path = os.path.join(a.bytes_dir, c.impl, c.workload, c.case + ".msgpack")
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                    with open(path, "wb") as f:
                        f.write(state["encoded"])
                    text = "bytes:" + os.path.relpath(path, a.bytes_dir)
                results.append([c, verdict, text, size, None])
            for res in results:
                if res[1] in ("same_bytes", "different_bytes", "same_values"):
                    res[4] = Timing(res[0].op, res[0].units, a.quick)
            time_interleaved([res[4] for res in results if res[4]])
            for c, verdict, text, size, timing in results:
                median = spread = reps = samples = ""
                if timing:
                    m, s, n = timing.summary()
                    median, spread, reps = "%.4f" % m, "%.2f" % s, n
                    samples = " ".join("%.4f" % x for x in timing.samples)
                else:
                    failed += 1
                noisy = "" if spread == "" else ("yes" if float(spread) > 5 else "no")
                out.write(",".join(csv_field(x) for x in (
                    c.workload, c.case, c.impl, LANGUAGE, versions[c.impl], c.unit, median, spread, reps,
                    noisy, verdict, text, "" if size is None else size, "", "", samples)) + "\n")
                out.flush()
                print("CELL %s %s" % (c.id, verdict), flush=True)
    return 1 if failed else 0


def check_generators(ref_dir, quick):
    """Generator unit test: the canonical encoding (msgpack-python writes every value in its
    smallest form) of each generated case must have mpk's digest."""
    from fnv import fnv1a64  # bench/harness/common/fnv.py
    digests = {}
    with open(os.path.join(ref_dir, "digests.csv")) as f:
        next(f)
        for line in f:
            w, c, n, h = line.strip().split(",")
            digests[(w, c)] = h
    docs = documents()
    docs.update(records_lists())
    gens = {"typed_objects": typed_objects(), "lua_bench": lua_bench(), "documents": docs,
            "deep_nesting": {"nest_%d" % n: nest(n) for n in NEST_DEPTHS}}
    bad = 0
    checked = 0
    for (w, c), h in sorted(digests.items()):
        if w == "small_fields":
            data = stream_pack(small_fields(20000 if quick else 1000000))
        elif w == "flat_maps":
            data = stream_pack(flat_maps(2000 if quick else 100000))
        elif w == "strings_binary" and c in strings_binary(quick):
            payload, count = strings_binary(quick)[c]
            data = stream_pack([payload] * count)
        elif w == "documents" and c == "stream":
            data = messages_write(STREAM_MESSAGE, STREAM_COUNT[quick])
        elif w in gens and c in gens[w]:
            data = msgpack.packb(gens[w][c])
        elif w == "documents" and c.endswith("_records"):
            print("SKIP %s/%s: msgpack-python has no record extension" % (w, c))
            continue
        else:
            print("MISSING %s/%s: no generator" % (w, c))
            bad += 1
            continue
        got = "%016x" % fnv1a64(data)
        checked += 1
        if got != h:
            print("DIFF %s/%s: %s, mpk %s" % (w, c, got, h))
            bad += 1
        else:
            print("OK %s/%s %s" % (w, c, got))
    print("%d cases checked, %d failed" % (checked, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
