"""msgpack-python peer of tests/interop/codec_interop_test.cpp.

Reads lines "name hex" from stdin: mpk's encoding of the sample called `name`. For each, it
builds the same sample as a Python dict (map mode) or list (array mode), and prints
"name <hex of msgpack.packb(sample)> <1 if msgpack.unpackb(mpk's bytes) == sample else 0>".
The samples follow the C++ ones field for field (see make_samples in the test).
"""
import sys

import msgpack


def beer(brand, alcohol):
    return {"brand": brand, "alcohol": alcohol, "brewery": "Brew Co",
            "sort": ["pale", "amber", "dark", "stout", "porter"]}


def flat(i):
    # W3 of docs/workloads.md: keys k00..k15, value j by j % 4
    out = {}
    for j in range(16):
        kind = j % 4
        if kind == 0:
            v = i * 16 + j
        elif kind == 1:
            v = i + (j + 0.5) / 16
        elif kind == 2:
            v = "v" + str(i % 100)
        else:
            v = (i + j) % 2 == 0
        out["k%02d" % j] = v
    return out


def order(n):
    return {
        "id": 5000000000 + n,
        "delta": -100000 - n,
        "customer": {"name": "c" + str(n), "vip": n % 2 == 0},
        "lines": [[k, "sku" + str(k), k * 0.5 + 0.25] for k in range(n % 4)],
        "tags": {"a": n, "b": -n},
        "note": None if n % 2 else "n" + str(n),
        "blob": bytes(range(n % 5)),
    }


def samples():
    out = {
        "beer_map": beer("Ale Brewery Lager", 4.5),
        "beer_array": ["Ale Brewery Lager", 4.5, "Brew Co",
                       ["pale", "amber", "dark", "stout", "porter"]],
        "beer_list": [beer("Ale " + str(k), 4.5 + k / 4) for k in range(10)],
    }
    for i in (0, 1, 7, 99, 12345, 99999):
        out["flat_%d" % i] = flat(i)
    for n in range(6):
        out["order_%d" % n] = order(n)
        out["plain_order_%d" % n] = order(n)  # the reflected struct: the same dict
    # reflected, with a renamed key, a skipped member, an enum by name, untagged values
    out["choices"] = {"c": "dark_blue", "ids": ["a", 7, None], "userId": 3, "ratio": 0.5}
    return out


def main():
    known = samples()
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        name, _, text = line.partition(" ")
        sample = known[name]
        ours = bytes.fromhex(text)
        theirs = msgpack.packb(sample, use_bin_type=True)
        same = msgpack.unpackb(ours, raw=False, strict_map_key=False) == sample
        print(name, theirs.hex(), 1 if same else 0)


if __name__ == "__main__":
    main()
