#!/usr/bin/python3
"""Reference JSON of the W7 documents, by msgpack-python and json (plain mapping).

usage: w7_reference.py OUTDIR
For each W7 document (tiny, small, medium, large, example) writes OUTDIR/<name>.msgpack (the
document packed by msgpack-python) and OUTDIR/<name>.json (those bytes unpacked by
msgpack-python with raw=False, mapped as mpk's plain mode says, then json.dumps).

The documents come from the benchmark harness (bench/harness/python/harness.py), which holds
the W7 definitions of docs/workloads.md, including its reconstruction of notepack's
data.js (medium, large) and of msgpack-lite's example.json.
"""
import base64
import json
import os
import sys

import msgpack

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench", "harness", "python"))
import harness  # noqa: E402


def main():
    outdir = sys.argv[1]
    for name, doc in harness.documents().items():
        packed = msgpack.packb(doc, use_bin_type=True)
        with open(os.path.join(outdir, name + ".msgpack"), "wb") as f:
            f.write(packed)
        value = msgpack.unpackb(packed, raw=False, strict_map_key=False)
        with open(os.path.join(outdir, name + ".json"), "w", encoding="utf-8") as f:
            f.write(json.dumps(to_plain(value), ensure_ascii=False, allow_nan=False))
            f.write("\n")


def timestamp_text(t):
    """RFC 3339 UTC, fractions in groups of three digits (mpk's plain mode)."""
    s = t.to_datetime().strftime("%Y-%m-%dT%H:%M:%S")
    ns, digits = t.nanoseconds, 9
    if ns:
        while ns % 1000 == 0:
            ns, digits = ns // 1000, digits - 3
        s += ".%0*d" % (digits, ns)
    return s + "Z"


def to_plain(v):
    """mpk's plain mapping (recursive: the W7 documents are a few levels deep)."""
    if isinstance(v, msgpack.Timestamp):
        return timestamp_text(v)
    if isinstance(v, bytes):
        return base64.b64encode(v).decode("ascii")
    if isinstance(v, msgpack.ExtType):
        return {"type": v.code, "data": base64.b64encode(v.data).decode("ascii")}
    if isinstance(v, list):
        return [to_plain(x) for x in v]
    if isinstance(v, dict):
        return {(k if isinstance(k, str) else json.dumps(to_plain(k))): to_plain(x)
                for k, x in v.items()}
    return v


if __name__ == "__main__":
    main()
