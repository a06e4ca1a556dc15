"""Says why an implementation's bytes differ from mpk's: walks both encodings side by side
and names the kinds of difference ("writes maps as map16", "writes integers beyond 32 bits as
float64"...). Harnesses only save their bytes; the reasons are worded here, once."""
import os
import struct

LIMIT = 400000  # items compared at most (the W1 stream has a million)


_FIXED = {  # marker: (family, form, struct format or the value, payload bytes)
    0xC0: ("nil", "nil", None, 0), 0xC2: ("bool", "false", False, 0), 0xC3: ("bool", "true", True, 0),
    0xCC: ("int", "uint8", ">B", 1), 0xCD: ("int", "uint16", ">H", 2), 0xCE: ("int", "uint32", ">I", 4),
    0xCF: ("int", "uint64", ">Q", 8), 0xD0: ("int", "int8", ">b", 1), 0xD1: ("int", "int16", ">h", 2),
    0xD2: ("int", "int32", ">i", 4), 0xD3: ("int", "int64", ">q", 8),
    0xCA: ("float", "float32", ">f", 4), 0xCB: ("float", "float64", ">d", 8),
}
_SIZED = {0xD9: ("str", "str8", 1), 0xDA: ("str", "str16", 2), 0xDB: ("str", "str32", 4),
          0xC4: ("bin", "bin8", 1), 0xC5: ("bin", "bin16", 2), 0xC6: ("bin", "bin32", 4),
          0xDC: ("array", "array16", 2), 0xDD: ("array", "array32", 4),
          0xDE: ("map", "map16", 2), 0xDF: ("map", "map32", 4)}
_FIXEXT = {0xD4: 1, 0xD5: 2, 0xD6: 4, 0xD7: 8, 0xD8: 16}
_EXT = {0xC7: 1, 0xC8: 2, 0xC9: 4}
_unpack_from = struct.unpack_from


def _item(b, p):
    """Decodes the header at p: (family, form, value-or-length, header_end, payload_len)."""
    m = b[p]
    if m <= 0x7F:
        return "int", "fixint", m, p + 1, 0
    if m >= 0xE0:
        return "int", "negative fixint", m - 256, p + 1, 0
    if m >= 0xA0 and m <= 0xBF:
        return "str", "fixstr", m & 0x1F, p + 1, m & 0x1F
    if m <= 0x8F:
        return "map", "fixmap", m & 0xF, p + 1, 0
    if m <= 0x9F:
        return "array", "fixarray", m & 0xF, p + 1, 0
    f = _FIXED.get(m)
    if f is not None:
        fam, form, fmt, n = f
        if n == 0:
            return fam, form, fmt, p + 1, 0
        return fam, form, _unpack_from(fmt, b, p + 1)[0], p + 1 + n, 0
    f = _SIZED.get(m)
    if f is not None:
        fam, form, n = f
        length = int.from_bytes(b[p + 1:p + 1 + n], "big")
        payload = length if fam in ("str", "bin") else 0
        return fam, form, length, p + 1 + n, payload
    if m in _FIXEXT:
        return "ext", "fixext", _FIXEXT[m], p + 2, _FIXEXT[m]
    if m in _EXT:
        n = _EXT[m]
        length = int.from_bytes(b[p + 1:p + 1 + n], "big")
        return "ext", "ext%d" % (8 * n), length, p + 2 + n, length
    raise ValueError("reserved marker 0x%02x at %d" % (m, p))


def _advance(stack):
    """One item of the innermost container is done (a map entry is a key then a value)."""
    if stack:
        top = stack[-1]
        if top[0]:
            top[2] = not top[2]
            if top[2]:
                top[1] -= 1
        else:
            top[1] -= 1


PLURAL = {"map": "maps", "array": "arrays", "str": "strings", "bin": "binaries"}


def explain(ref, mine):
    """A short English reason for the differences between mpk's bytes and another's."""
    reasons = []
    seen = set()

    def note(key, text):
        if key not in seen:
            seen.add(key)
            reasons.append(text)

    p = q = 0
    stack = []  # [is_map, items_left, next_is_key]
    items = 0
    try:
        while p < len(ref) and q < len(mine) and items < LIMIT:
            items += 1
            is_key = bool(stack) and stack[-1][0] and stack[-1][2]
            fa, ma, va, ha, la = _item(ref, p)
            end = ha + la
            if mine[q:q + end - p] == ref[p:end]:  # the same item, byte for byte: no need to decode it
                fb, mb, vb, hb, lb = fa, ma, va, q + ha - p, la
            else:
                fb, mb, vb, hb, lb = _item(mine, q)
            if fa != fb:
                if fa == "int" and fb == "float":
                    big = not (-2 ** 31 <= va < 2 ** 32)
                    note("int-float" + str(big), "writes integers %sas %s" % (
                        "beyond 32 bits " if big else "", mb))
                elif fa == "float" and fb == "int":
                    note("float-int", "writes integral doubles (e.g. %r) as integers" % va)
                elif is_key or (fa == "str" and fb == "str"):
                    note("order", "writes map keys in another order")
                    break
                else:
                    note("type" + fa + fb, "writes a %s where mpk writes a %s (byte %d)" % (fb, fa, q))
                    break
            elif ma != mb:
                if fa == "float":
                    if va == vb:
                        note("f32", "writes doubles that fit float32 exactly as float32")
                    else:
                        note("f32r", "rounds doubles to float32 (e.g. %r as %r)" % (va, vb))
                elif fa in ("map", "array", "str", "bin"):
                    note(fa + ma + mb, "writes %s as %s where mpk writes %s (e.g. %d %s)" % (
                        PLURAL[fa], mb, ma, va, "entries" if fa == "map" else "bytes" if fa in ("str", "bin") else "elements"))
                else:
                    note(fa + ma + mb, "writes %s %r as %s (mpk: %s)" % (fa, va, mb, ma))
            elif fa in ("str", "bin") and ref[ha:ha + la] != mine[hb:hb + lb]:
                if is_key:
                    note("order", "writes map keys in another order")
                    break
                note("payload", "writes other %s content (byte %d)" % (fa, q))
            elif fa not in ("str", "bin", "map", "array") and va != vb and not (va != va and vb != vb):
                note("value", "writes another value at byte %d (mpk %r, it %r)" % (q, va, vb))
            if fa in ("map", "array") and va != vb:
                note("len", "writes another %s length" % fa)
                break
            # advance: a non-empty container counts for its parent once it is complete
            p, q = ha + la, hb + lb
            if fa in ("map", "array") and va > 0:
                stack.append([fa == "map", va, True])
            else:
                _advance(stack)
                while stack and stack[-1][1] == 0:
                    stack.pop()
                    _advance(stack)
    except (ValueError, IndexError, struct.error) as e:
        note("parse", "its bytes do not parse alongside mpk's (%s)" % e)
    if not reasons:
        if len(ref) != len(mine):
            reasons.append("%d bytes instead of %d" % (len(mine), len(ref)))
        else:
            reasons.append("differs beyond the first %d values" % LIMIT)
    return "; ".join(reasons)


def reference_case(workload, case):
    """The name of mpk's reference encoding (mpk_gen) an encode cell is compared with."""
    if workload in ("small_fields", "flat_maps"):
        return "stream"
    if workload == "deep_nesting" and case.startswith("build_"):
        return "nest_" + case[len("build_"):]
    for prefix in ("serialize_", "encode_", "write_"):
        if case.startswith(prefix):
            return case[len(prefix):]
    if case.endswith("_write"):  # W2: <data>_write
        return case[:-len("_write")]
    return case


def fill_reasons(rows, ref_dir, bytes_dir):
    """Rows of verdict different_bytes whose verification says "bytes:<path>" get a reason."""
    for r in rows:
        v = r.get("verification", "")
        if r.get("verdict") != "different_bytes" or not v.startswith("bytes:"):
            continue
        rel = v[len("bytes:"):].split(";")[0].strip()
        parts = rel.split("/")
        workload, case = parts[-2], parts[-1][:-len(".msgpack")]
        ref_path = os.path.join(ref_dir, workload, reference_case(workload, case) + ".msgpack")
        try:
            with open(ref_path, "rb") as f:
                a = f.read()
            with open(os.path.join(bytes_dir, rel), "rb") as f:
                b = f.read()
            r["verification"] = "different bytes: " + explain(a, b)
        except OSError as e:
            r["verification"] = "different bytes (not explained: %s)" % e
