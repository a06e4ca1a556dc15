"""report.md and report.html of a result folder, and the comparison of two folders.

Reads only the folder (its <workload>.csv files in the shared format and machine.json), so a
report can be regenerated from committed results: `run.py --report DIR`."""
import glob
import html
import io
import json
import math
import os
import re
import statistics

from resultformat import NOISY_PCT, read_rows

HERE = os.path.dirname(os.path.abspath(__file__))

WORKLOADS = [  # id, name, title, unit shown; ops/s where the original benchmark used it
    ("W1", "small_fields", "1,000,000 small values", "ns"),
    ("W2", "strings_binary", "strings and binaries", "ns"),
    ("W3", "flat_maps", "maps of 16 entries", "ns"),
    ("W4", "deep_nesting", "arrays nested N levels deep", "ns"),
    ("W5", "typed_objects", "the MsgPack.Light objects", "ns"),
    ("W6", "lua_bench", "the lua-MessagePack bench (pack + unpack)", "ops"),
    ("W7", "documents", "the msgpackr / notepack documents", "ops"),
    ("W8", "build_matrix", "mpk under GCC and Clang, -O2 and -O3 -march=native", "ns"),
    ("JSON", "json_conversion", "MessagePack to and from JSON text (C++)", "ns"),
]
LANG_ORDER = ["C++", "C", "Python", "JavaScript", "Lua", "Ruby", "C#"]
# C and C++ share the first columns, in this order (then any other C/C++ implementation).
NATIVE_ORDER = ["mpk", "msgpack-cxx", "msgpack-c", "nlohmann", "simdjson", "rapidjson"]
QUICK_NOTE = ("**Quick run**: small sizes and very short timings, a smoke test. Do not quote "
              "these figures; run `scripts/bench` for a full run.")


def load(out_dir):
    rows = []
    for path in sorted(glob.glob(os.path.join(out_dir, "*.csv"))):
        rows += read_rows(path)
    with open(os.path.join(out_dir, "machine.json")) as f:
        machine = json.load(f)
    return rows, machine


def workload_names(by_w):
    """Known workloads in W1..W8 order, then any other (a new C++ table) in first-seen order."""
    known = [n for _, n, _, _ in WORKLOADS]
    return [n for n in known if n in by_w] + [n for n in by_w if n not in known]


def workload_info(name):
    for wid, n, title, unit in WORKLOADS:
        if n == name:
            return wid, title, unit
    return "W?", name, "ns"


def ordered(seq):
    out = []
    for x in seq:
        if x not in out:
            out.append(x)
    return out


def impl_key(impl, lang):
    """Columns: C/C++ first (mpk, msgpack-cxx, msgpack-c, nlohmann, simdjson, RapidJSON),
    then Python, JavaScript, Lua, Ruby; first-seen order otherwise (sorted() is stable)."""
    group = 0 if lang in ("C++", "C") else (LANG_ORDER.index(lang) if lang in LANG_ORDER else 99)
    rank = len(NATIVE_ORDER)
    if group == 0:
        name = impl.lower()
        for k, prefix in enumerate(NATIVE_ORDER):
            # longest prefix wins: msgpack-cxx is not msgpack-c
            if name == prefix or name.startswith(prefix + "-") or name.startswith(prefix + " ") \
                    or name.startswith(prefix + ",") or (name.startswith(prefix) and prefix != "msgpack-c"):
                rank = k
                break
    return group, rank


def impl_order(rows):
    impls = ordered((r["implementation"], r["language"]) for r in rows)
    return [i for i, _ in sorted(impls, key=lambda il: impl_key(*il))]


def unit_groups(rows, unit):
    """The rows of a workload split by their unit (field, value, byte...): one table each,
    since cells in different units cannot share a row. Returns [(unit, display, rows)];
    the display is 'ops' (operations per second) for ops workloads, 'MB/s' for bytes."""
    groups = {}
    for r in rows:
        groups.setdefault(r["unit"], []).append(r)
    return [(u, "MB/s" if u == "byte" else unit, rs) for u, rs in groups.items()]


def value_of(r, unit):
    if not r["ns_per_unit"]:
        return None
    ns = float(r["ns_per_unit"])
    if ns <= 0:
        return None
    if unit == "MB/s":
        return 1e3 / ns  # ns per byte -> 1e6 bytes per second
    return 1e9 / ns if unit == "ops" else ns


def higher_is_better(unit):
    return unit in ("ops", "MB/s")


def fmt(v, unit):
    if v is None:
        return "—"
    if unit in ("ops", "MB/s"):
        return "{:,.0f}".format(v) if v >= 100 else "%.1f" % v
    if v < 1:
        return "%.3f" % v
    if v < 10:
        return "%.2f" % v
    if v < 100:
        return "%.1f" % v
    return "{:,.0f}".format(v)


def upper_first(s):
    return s[:1].upper() + s[1:]


def unit_label(rows, unit):
    u = rows[0]["unit"] if rows else "op"
    if unit == "MB/s":
        return "MB/s (10^6 bytes per second), higher is better"
    if unit == "ops":
        return "operations per second, higher is better"
    return "ns per %s, lower is better" % u


CASE_VARIANTS = ("_view", "_novalidate", "_copy", "_unchecked", "_checked")


def case_order(rows):
    """Cases in first-seen order, each variant right after its kind, even when the harness
    that has the variant runs later: read_x_view after read_x, and the cells of one W2 datum
    (ascii_8_write, ascii_8_read_view, ascii_8_read_copy...) together."""
    cases = ordered(r["case"] for r in rows)
    index = {c: k for k, c in enumerate(cases)}

    def family(c):
        m = re.match(r"^(.+?)_(write|read)(_|$)", c)
        if m:
            return m.group(1) + "_"
        for suffix in CASE_VARIANTS:
            if c.endswith(suffix) and c[:-len(suffix)] in index:
                return c[:-len(suffix)]
        return c
    first = {}
    for c in cases:
        first.setdefault(family(c), index[c])
    return sorted(cases, key=lambda c: (first[family(c)], c != family(c), index[c]))


def table(rows, unit):
    """Cases x implementations: (cases, impls, cells{(case, impl): row}, fastest{case: impl})."""
    cases = case_order(rows)
    impls = impl_order(rows)
    cells = {(r["case"], r["implementation"]): r for r in rows}
    fastest = {}
    for c in cases:
        vals = [(value_of(cells[(c, i)], unit), i) for i in impls if (c, i) in cells and value_of(cells[(c, i)], unit)]
        if vals:
            fastest[c] = (max if higher_is_better(unit) else min)(vals)[1]
    return cases, impls, cells, fastest


def cell_marks(r):
    marks = ""
    if r["verdict"] == "different_bytes":
        marks += " ≠"
    if r["verdict"] in ("wrong_values", "error"):
        marks += " ✗"
    if r["noisy"] == "yes":
        marks += " ~"
    return marks


LEGEND = ("Marks: **bold** = fastest of the row; ≠ = different bytes from mpk (values still right; the "
          "reason is listed under the table); ~ = noisy (robust spread of the repetitions, their "
          "median absolute deviation / median, over 5%: fewer than half of them within 5% of the median; "
          "rerun before drawing conclusions); ✗ = wrong values or error (a failure); "
          "— = not run; an empty cell means the implementation cannot express that case.")


def verification_lines(rows):
    """Different-bytes reasons grouped by implementation and reason."""
    groups = {}
    for r in rows:
        if r["verdict"] in ("different_bytes", "wrong_values", "error"):
            text = r["verification"]
            if text.startswith("different bytes: "):
                text = text[len("different bytes: "):]
            key = (r["implementation"], r["verdict"], text)
            groups.setdefault(key, []).append(r["case"])
    return [(impl, verdict, text, cases) for (impl, verdict, text), cases in groups.items()]


def versions(rows):
    return ordered((r["implementation"], r["language"], r["version"]) for r in rows)


VERDICT_MARK = {"same_bytes": "=", "same_values": "v", "different_bytes": "≠", "wrong_values": "✗", "error": "✗"}


def md_table(rows, unit, verdicts=False):
    """One Markdown table: cases x implementations; the fastest of each row in bold, or
    (verdicts) the verification mark of every cell."""
    cases, impls, cells, fastest = table(rows, unit)
    out = "| case | " + " | ".join(md_escape(i) for i in impls) + " |\n"
    out += "|:--|" + ("--:|" if not verdicts else ":-:|") * len(impls) + "\n"
    for c in cases:
        line = "| %s |" % md_escape(c)
        for i in impls:
            r = cells.get((c, i))
            if r is None:
                line += " |"
            elif verdicts:
                line += " %s |" % VERDICT_MARK.get(r["verdict"], "?")
            else:
                text = fmt(value_of(r, unit), unit)
                if fastest.get(c) == i:
                    text = "**%s**" % text
                line += " %s%s |" % (text, cell_marks(r))
        out += line + "\n"
    return out + "\n"


def md_instructions_table(rows):
    cases, impls, cells, _ = table(rows, "ns")
    out = "| case | " + " | ".join(md_escape(i) for i in impls) + " |\n|:--|" + "--:|" * len(impls) + "\n"
    for c in cases:
        vals = {i: instructions(cells[(c, i)]) for i in impls if (c, i) in cells}
        best = min(v for v in vals.values() if v) if any(vals.values()) else None
        line = "| %s |" % md_escape(c)
        for i in impls:
            v = vals.get(i)
            text = "" if not v else fmt_count(v)
            line += " %s |" % ("**%s**" % text if v and v == best else text)
        out += line + "\n"
    return out + "\n"


def fmt_count(v):
    if v >= 1000:
        return "{:,.0f}".format(v)
    return "%.1f" % v if v >= 10 else "%.2f" % v


def md_escape(s):
    return s.replace("|", "\\|")


def markdown(rows, machine):
    out = io.StringIO()
    w = out.write
    w("# mpk benchmark suite — results\n\n")
    if machine.get("mode") == "quick":
        w(QUICK_NOTE + "\n\n")
    w("Run of %s (%s mode%s), commit %s.\n\n" % (machine.get("date"), machine.get("mode"),
                                                   ", only " + ",".join(machine["only"]) if machine.get("only") else "",
                                                   machine.get("commit")))
    w("Machine: %s, %s cores, %s, %s, %s. C++: %s (%s). Full description: `machine.json`.\n\n" % (
        machine.get("cpu"), machine.get("cores"), machine.get("memory"), machine.get("os"), machine.get("kernel"),
        machine.get("cxx_compiler_version"), machine.get("cxx_build_type")))
    if machine.get("note"):
        w("**Note on this run:** %s\n\n" % machine["note"])
    w(summary_md(rows))
    if machine.get("instructions"):
        w("Instructions per unit of the C/C++ cells: %s.\n\n" % machine["instructions"])
    w("## Implementations\n\n| implementation | language | version |\n|:--|:--|:--|\n")
    for impl, lang, ver in versions(rows):
        w("| %s | %s | %s |\n" % (md_escape(impl), lang, md_escape(ver)))
    w("\n")
    for what, why in machine.get("not_run", {}).items():
        w("- %s: %s.\n" % (md_escape(what), md_escape(why)))
    w("\n" + LEGEND + "\n\n")
    by_w = {}
    for r in rows:
        by_w.setdefault(r["workload"], []).append(r)
    for name in workload_names(by_w):
        rs = by_w[name]
        wid, title, unit = workload_info(name)
        groups = unit_groups(rs, unit)
        w("## %s %s — %s\n\n" % (wid, name, title))
        if name != "build_matrix" and not any(r["implementation"] == "mpk" for r in rs):
            w("mpk is not measured in this workload yet: the C++ harness (`mpk_bench`) does not "
              "cover it so far. mpk's bytes are the reference every cell is verified against.\n\n")
        for u, display, g in groups:
            if len(groups) > 1:
                w("### Cells timed per %s\n\n" % u)
            w("%s.\n\n" % upper_first(unit_label(g, display)))
            w(md_table(g, display))
            ir = [r for r in g if instructions(r)]
            if ir:
                w("Instructions per %s (C/C++, callgrind on the quick data; lower is better; they do not move "
                  "with the machine's load):\n\n" % g[0]["unit"])
                w(md_instructions_table(ir))
            w("Verification of every cell (= same bytes as mpk; v decodes mpk's bytes to the same values, "
              "or a JSON / records round trip; ≠ different bytes, values right; ✗ wrong values or error):\n\n")
            w(md_table(g, display, verdicts=True))
        if name == "build_matrix" and machine.get("matrix_m32"):
            w("32-bit x86 (`-m32`): %s.\n\n" % machine["matrix_m32"])
        n = noise(rs)
        if n["noisy"] or n["noisy_range"]:
            w(noise_counts(n) + "\n\n")
        lines = verification_lines(rs)
        if lines:
            w("Verification, cells that are not \"same bytes\" / \"same values\":\n\n")
            for impl, verdict, text, cs in lines:
                w("- %s, %s: %s — %s\n" % (md_escape(impl), ", ".join(cs), verdict.replace("_", " "), md_escape(text)))
            w("\n")
        alloc = [r for r in rs if r["allocs_per_op"] or r["alloc_bytes_per_op"]]
        if alloc:
            a_impls = ordered(r["implementation"] for r in alloc)
            a_cells = {(r["case"], r["implementation"]): r for r in alloc}
            w("Allocations per %s (Ruby: objects allocated, from GC.stat; C#: bytes allocated, from "
              "GC.GetAllocatedBytesForCurrentThread; C++: bytes and calls are in mpk_bench's own tables, "
              "<raw>/cpp/ (machine.json: raw_dir); Python and Node do not tell):\n\n" % rs[0]["unit"])
            w("| case | " + " | ".join(md_escape(i) for i in a_impls) + " |\n|:--|" + "--:|" * len(a_impls) + "\n")
            for c in ordered(r["case"] for r in alloc):
                cols = []
                for i in a_impls:
                    r = a_cells.get((c, i))
                    if r is None:
                        cols.append("")
                    elif r["alloc_bytes_per_op"]:  # C++: bytes (calls); .NET: bytes only
                        cols.append("%s B" % r["alloc_bytes_per_op"] + (" (%s)" % r["allocs_per_op"] if r["allocs_per_op"] else ""))
                    else:
                        cols.append("%s objects" % r["allocs_per_op"])
                w("| %s | %s |\n" % (md_escape(c), " | ".join(cols)))
            w("\n")
    w(published_md(rows))
    return out.getvalue()


# --- the summary ----------------------------------------------------------------------------

# Operations, from the case names (docs/benchmark-suite.md, "Case names"): the first pattern
# that matches; otherwise the case without its size suffix (examine_8 -> examine).
OPERATIONS = [
    (r"(^|_)(write|serialize|encode|build)(_|$)|^buffer_", "encode"),
    (r"(^|_)(read|deserialize|decode|dom)(_|$)", "decode"),
    (r"^to_json", "to JSON"),
    (r"^from_json", "from JSON"),
    (r"^skip", "skip"),
]
# Workloads whose every case is one operation of its own kind.
WORKLOAD_OPERATION = {"lua_bench": "pack + unpack"}
# Workloads without peers: not in the summary.
NOT_SUMMARIZED = {"build_matrix"}


def operation(workload, case):
    if workload in WORKLOAD_OPERATION:
        return WORKLOAD_OPERATION[workload]
    for pattern, name in OPERATIONS:
        if re.search(pattern, case):
            return name
    return re.sub(r"_\d+$", "", case).replace("_", " ")


def is_mpk(impl):
    """mpk and its variants (mpk-value, "mpk, gcc -O2", the tool's commands mpk_get and
    mpk_to_json): never "another implementation"."""
    return impl == "mpk" or impl.startswith(("mpk-", "mpk,", "mpk_"))


def ns(r):
    try:
        v = float(r["ns_per_unit"])
    except (KeyError, ValueError):
        return None
    return v if v > 0 else None


def instructions(r):
    try:
        v = float(r.get("instructions_per_unit") or "")
    except ValueError:
        return None
    return v if v > 0 else None


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(statistics.fmean(math.log(x) for x in xs)) if xs else None


def summary_rows(rows):
    """The headline, one entry per workload, operation and unit: mpk's figure (the geometric
    mean over the cases where mpk and another implementation ran), the fastest other
    implementation's (per case, the fastest of all others; named: the one fastest in most
    cases), the ratio (geometric mean of other time / mpk time: above 1, mpk is faster), and
    the same against the fastest other C/C++ implementation, by time and by instructions."""
    groups = {}
    for r in rows:
        if r["workload"] in NOT_SUMMARIZED or ns(r) is None:
            continue
        key = (r["workload"], operation(r["workload"], r["case"]), r["unit"])
        groups.setdefault(key, {}).setdefault(r["case"], []).append(r)
    by_w = {}
    for key in groups:
        by_w.setdefault(key[0], []).append(key)
    out = []
    for w in workload_names(by_w):
        for key in by_w[w]:
            cases = groups[key]
            e = {"workload": w, "operation": key[1], "unit": key[2], "cases": 0, "mpk_fastest": 0,
                 "mpk": [], "other": [], "winners": {}, "cpp_mpk": [], "cpp_other": [], "cpp_winners": {},
                 "ir_ratio": []}
            e["measured_mpk"] = any(is_mpk(r["implementation"]) for rs in cases.values() for r in rs)
            for case, rs in cases.items():
                mine = [r for r in rs if r["implementation"] == "mpk"]
                others = [r for r in rs if not is_mpk(r["implementation"])]
                if not mine or not others:
                    continue
                m = mine[0]
                best = min(others, key=ns)
                e["cases"] += 1
                e["mpk"].append(ns(m))
                e["other"].append(ns(best))
                e["winners"][best["implementation"]] = e["winners"].get(best["implementation"], 0) + 1
                if ns(m) <= ns(best):
                    e["mpk_fastest"] += 1
                native = [r for r in others if r["language"] in ("C++", "C")]
                if native:
                    nb = min(native, key=ns)
                    e["cpp_mpk"].append(ns(m))
                    e["cpp_other"].append(ns(nb))
                    e["cpp_winners"][nb["implementation"]] = e["cpp_winners"].get(nb["implementation"], 0) + 1
                    if instructions(m) and instructions(nb):
                        e["ir_ratio"].append(instructions(nb) / instructions(m))
            if e["cases"]:
                e["ratio"] = geomean(o / m for o, m in zip(e["other"], e["mpk"]))
                e["cpp_ratio"] = geomean(o / m for o, m in zip(e["cpp_other"], e["cpp_mpk"]))
                e["cpp_ir_ratio"] = geomean(e["ir_ratio"])
            out.append(e)
    return out


def most(counts):
    """The key counted most often (the first of equals), and its count."""
    if not counts:
        return None, 0
    k = max(counts, key=lambda x: counts[x])
    return k, counts[k]


def fmt_ratio(x):
    if x is None:
        return "—"
    return "%.2f×" % x


def fastest_per_language(rows):
    """{language: {workload: (implementation, cases where it is its language's fastest, cases)}}."""
    cells = {}
    for r in rows:
        if r["workload"] in NOT_SUMMARIZED or ns(r) is None:
            continue
        cells.setdefault((r["language"], r["workload"], r["case"], r["unit"]), []).append(r)
    wins = {}
    for (lang, w, _, _), rs in cells.items():
        best = min(rs, key=ns)["implementation"]
        d = wins.setdefault(lang, {}).setdefault(w, {})
        d[best] = d.get(best, 0) + 1
    out = {}
    for lang, per_w in wins.items():
        out[lang] = {w: most(d) + (sum(d.values()),) for w, d in per_w.items()}
    return out


def pct(r, column):
    """A spread column of a row as a float, or None when empty."""
    return float(r[column]) if r.get(column) else None


def noise(rows):
    """The noise of the timed cells: {"timed", "noisy" (by the robust spread, spread_pct; None
    when no cell has one: a run before it was recorded), "noisy_range" (by the range,
    range_pct), "median_spread", "median_range", "per": {language: [noisy, noisy by the range,
    timed]}, "largest": the row of the largest robust spread}."""
    timed = [r for r in rows if ns(r) is not None and (r.get("spread_pct") or r.get("range_pct"))]
    robust = [r for r in timed if pct(r, "spread_pct") is not None]
    ranged = [r for r in timed if pct(r, "range_pct") is not None]
    per = {}
    for r in timed:
        n = per.setdefault(r["language"], [0, 0, 0])
        n[0] += (pct(r, "spread_pct") or 0) > NOISY_PCT
        n[1] += (pct(r, "range_pct") or 0) > NOISY_PCT
        n[2] += 1
    return {
        "timed": len(timed),
        "noisy": sum((pct(r, "spread_pct") or 0) > NOISY_PCT for r in robust) if robust else None,
        "noisy_range": sum(pct(r, "range_pct") > NOISY_PCT for r in ranged),
        "median_spread": statistics.median(pct(r, "spread_pct") for r in robust) if robust else None,
        "median_range": statistics.median(pct(r, "range_pct") for r in ranged) if ranged else None,
        "per": per,
        "largest": max(robust, key=lambda r: pct(r, "spread_pct")) if robust else None,
    }


def noise_counts(n):
    """"N of M cells noisy (robust spread over 5%); K of M by the range, the measure of earlier
    runs", from noise()."""
    t = n["timed"]
    by_range = "%d of %d by the range ((max − min) / median), the measure of earlier runs" % (n["noisy_range"], t)
    if n["noisy"] is None:
        return "Noisy cells: %s (this run recorded no robust spread)." % by_range
    big = n["largest"]
    return "Noisy cells: %d of %d (robust spread over 5%%; largest %.1f%%, %s, %s); %s." % (
        n["noisy"], t, pct(big, "spread_pct"), big["case"], big["implementation"], by_range)


def verification_counts(rows):
    counts = {}
    for r in rows:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    return counts


def verification_sentence(rows):
    counts = verification_counts(rows)
    return ("%d cells verified before timing: %d same bytes as mpk, %d different bytes (values right, "
            "reasons below each table), %d same values (decoding mpk's bytes), %d wrong values, %d errors."
            % (len(rows), counts.get("same_bytes", 0), counts.get("different_bytes", 0),
               counts.get("same_values", 0), counts.get("wrong_values", 0), counts.get("error", 0)))


def noise_sentence(rows):
    n = noise(rows)
    t = n["timed"]
    if not t:
        return "No timed cells."
    langs = sorted(n["per"], key=lambda l: LANG_ORDER.index(l) if l in LANG_ORDER else 99)
    per = n["per"]
    medians = ", ".join("median %s %.1f%%" % (what, n[k]) for what, k in (("robust spread", "median_spread"),
                                                                        ("range", "median_range"))
                        if n[k] is not None)
    if n["noisy"] is None:
        return ("Noise: %d of %d timed cells are noisy by the range of their repetitions ((max − min) / "
                "median over 5%%; this run recorded no robust spread); %s. By language: %s." % (
                    n["noisy_range"], t, medians, ", ".join("%s %d of %d" % (l, per[l][1], per[l][2]) for l in langs)))
    return ("Noise: %d of %d timed cells are noisy (robust spread over 5%%: the median absolute deviation of "
            "the repetitions over their median); %d of %d by the range ((max − min) / median over 5%%), the "
            "measure of earlier runs; %s. By language: %s." % (
                n["noisy"], t, n["noisy_range"], t, medians,
                ", ".join("%s %d of %d (by the range %d)" % (l, per[l][0], per[l][2], per[l][1]) for l in langs)))


SUMMARY_LEGEND = ("Per workload and operation: mpk's figure and the fastest other implementation's "
                  "(geometric means over the cases where both ran; per case, the fastest of every other "
                  "implementation, named by the one fastest in most cases); **ratio** = the other's time / "
                  "mpk's time (above 1: mpk is faster); mpk fastest = the cases where mpk beats every "
                  "other implementation. **C/C++** compares with the fastest other C or C++ "
                  "implementation, by time and by instructions per unit (callgrind, on the quick data: "
                  "figures that do not move with the machine's load).")


def summary_table(rows):
    """The summary as (header, [row cells]): shared by the Markdown and the HTML reports."""
    head = ["workload", "operation", "cases", "mpk", "fastest other", "ratio", "mpk fastest",
            "fastest other C/C++", "C/C++ ratio: time", "C/C++ ratio: instructions"]
    body = []
    for e in summary_rows(rows):
        wid, _, unit = workload_info(e["workload"])
        display = "MB/s" if e["unit"] == "byte" else unit
        label = "%s %s" % (wid, e["workload"])
        if not e["cases"]:
            why = "mpk not measured" if not e["measured_mpk"] else "no other implementation"
            body.append([label, e["operation"], "0", why, "", "", "", "", "", ""])
            continue
        per = ("" if display in ("ops", "MB/s") else " ns/%s" % e["unit"]) + (" ops/s" if display == "ops" else "") \
            + (" MB/s" if display == "MB/s" else "")

        def figure(v):
            return fmt(1e9 / v if display == "ops" else 1e3 / v if display == "MB/s" else v, display) + per
        winner, wins = most(e["winners"])
        cpp, cpp_wins = most(e["cpp_winners"])
        body.append([label, e["operation"], str(e["cases"]), figure(geomean(e["mpk"])),
                     "%s %s" % (winner, figure(geomean(e["other"]))) if wins == e["cases"] else
                     "%s %s (%s in %d of %d)" % (winner, figure(geomean(e["other"])), winner, wins, e["cases"]),
                     fmt_ratio(e["ratio"]), "%d of %d" % (e["mpk_fastest"], e["cases"]),
                     cpp or "—", fmt_ratio(e.get("cpp_ratio")), fmt_ratio(e.get("cpp_ir_ratio"))])
    return head, body


def language_table(rows):
    per = fastest_per_language(rows)
    by_w = {}
    for r in rows:
        if r["workload"] not in NOT_SUMMARIZED:
            by_w.setdefault(r["workload"], [])
    ws = workload_names(by_w)
    head = ["language"] + [workload_info(w)[0] for w in ws]
    body = []
    for lang in sorted(per, key=lambda l: LANG_ORDER.index(l) if l in LANG_ORDER else 99):
        line = [lang]
        for w in ws:
            x = per[lang].get(w)
            line.append("" if x is None else x[0] if x[1] == x[2] else "%s (%d of %d)" % x)
        body.append(line)
    return head, body


def summary_md(rows):
    out = "## Summary\n\n" + SUMMARY_LEGEND + "\n\n"
    head, body = summary_table(rows)
    out += "| " + " | ".join(head) + " |\n|:--|:--|" + "--:|" * (len(head) - 2) + "\n"
    for line in body:
        out += "| " + " | ".join(md_escape(x) for x in line) + " |\n"
    head, body = language_table(rows)
    out += ("\nThe fastest implementation of each language, per workload (fastest of its language in "
            "that many of the workload\'s cases):\n\n")
    out += "| " + " | ".join(head) + " |\n|:--|" + ":--|" * (len(head) - 1) + "\n"
    for line in body:
        out += "| " + " | ".join(md_escape(x) for x in line) + " |\n"
    out += "\n" + verification_sentence(rows) + " " + noise_sentence(rows) + "\n\n"
    return out


def ratio_bars(rows):
    """{workload: [(implementation, language, geometric mean of its time / mpk's time over
    the cases both ran, cases)]}, fastest first: the summary chart."""
    mpk = {(r["workload"], r["case"], r["unit"]): ns(r) for r in rows
           if r["implementation"] == "mpk" and ns(r) is not None and r["workload"] not in NOT_SUMMARIZED}
    acc = {}
    for r in rows:
        m = mpk.get((r["workload"], r["case"], r["unit"]))
        if m is None or r["implementation"] == "mpk" or ns(r) is None:
            continue
        acc.setdefault(r["workload"], {}).setdefault((r["implementation"], r["language"]), []).append(ns(r) / m)
    out = {}
    for w, per in acc.items():
        out[w] = sorted(((i, l, geomean(v), len(v)) for (i, l), v in per.items()), key=lambda x: x[2])
    return out


LANG_COLOURS = {"C++": "#1f77b4", "C": "#17becf", "Python": "#2ca02c", "JavaScript": "#d4a000",
                "Lua": "#9467bd", "Ruby": "#d62728", "C#": "#8c564b"}


def summary_chart_svg(rows):
    """Bars of every implementation's time relative to mpk's, one panel per workload."""
    bars = ratio_bars(rows)
    if not bars:
        return ""
    plt = pyplot()
    if plt is None:
        return NO_CHART
    ws = [w for w in workload_names(bars)]
    heights = [0.6 + 0.24 * (len(bars[w]) + 1) for w in ws]
    fig, axes = plt.subplots(len(ws), 1, figsize=(9, sum(heights)), squeeze=False,
                             gridspec_kw={"height_ratios": heights})
    for ax, w in zip(axes[:, 0], ws):
        items = [("mpk", "C++", 1.0, 0)] + bars[w]
        ys = range(len(items))
        ax.barh(list(ys), [x[2] for x in items], color=[LANG_COLOURS.get(x[1], "#777") for x in items], height=0.7)
        ax.set_yticks(list(ys))
        ax.set_yticklabels(["%s (%s)" % (x[0], x[1]) for x in items], fontsize=7)
        ax.invert_yaxis()
        ax.set_xscale("log")
        ax.axvline(1.0, color="#333", linewidth=0.8)
        for y, x in zip(ys, items):
            ax.text(x[2], y, " %.2f×" % x[2], va="center", fontsize=6.5)
        wid, title, _ = workload_info(w)
        ax.set_title("%s %s — %s" % (wid, w, title), fontsize=9, loc="left")
        ax.grid(True, axis="x", alpha=0.3)
        lo = min(x[2] for x in items)
        hi = max(x[2] for x in items)
        ax.set_xlim(min(lo, 1.0) / 1.5, max(hi, 1.0) * 3)
    axes[-1, 0].set_xlabel("time relative to mpk (geometric mean over the cases both ran; above 1: slower "
                           "than mpk; log scale)", fontsize=8)
    return svg_of(fig, plt)


SUMMARY_NUMERIC = {2, 3, 5, 6, 8, 9}  # columns of summary_table aligned right


def summary_html(rows):
    e = html.escape
    out = "<h2 id=summary>Summary</h2>\n<p>%s</p>\n" % e(SUMMARY_LEGEND.replace("**", ""))
    for head, body, caption in (summary_table(rows) + (None,),
                                language_table(rows) + ("The fastest implementation of each language, per "
                                                        "workload (fastest of its language in that many of "
                                                        "the workload's cases)",)):
        if caption:
            out += "<p>%s:</p>" % e(caption)
        out += "<div class=scroll><table><tr>" + "".join("<th>%s" % e(h) for h in head) + "</tr>\n"
        for line in body:
            out += "<tr>" + "".join("<td%s>%s" % (" class=n" if k in SUMMARY_NUMERIC and not caption else "", e(x))
                                    for k, x in enumerate(line)) + "</tr>\n"
        out += "</table></div>\n"
    out += "<p>%s %s</p>\n" % (e(verification_sentence(rows)), e(noise_sentence(rows)))
    chart = summary_chart_svg(rows)
    if chart:
        out += ("<p>Every implementation's time relative to mpk's, per workload (geometric mean over the "
                "cases both ran; mpk = 1; shorter bars are faster):</p>\n<div class=chart>%s</div>\n" % chart)
    return out


def published():
    with open(os.path.join(HERE, "published.json")) as f:
        return json.load(f)


def published_measured(s, rows):
    """A source's "measured" column: the cell measured here for each row ({row case: our
    case} in published.json), or None; the column's title."""
    m = s.get("measured")
    if not m:
        return None, None
    cells = {(r["workload"], r["case"]): r for r in rows if r["implementation"] == m["implementation"]}
    out = []
    for wl, case, _ in s["rows"]:
        r = cells.get((wl, m["cases"].get(case)))
        out.append(None if r is None or not r["ns_per_unit"] else (float(r["ns_per_unit"]), r["case"], r["version"]))
    return out, m["title"]


def published_md(rows=()):
    p = published()
    out = "## Published figures of implementations that cannot run here\n\n"
    out += "**Not measured by this suite.** " + p["note"] + "\n\n"
    for s in p["sources"]:
        out += "### %s\n\nCopied from the report by hand. Hardware: %s. Unit: %s.\n\n" % (
            s["title"], s["hardware"], s["unit"])
        measured, title = published_measured(s, rows)
        cols = s["columns"] + ([title] if measured else [])
        out += "| workload | case | " + " | ".join(cols) + " |\n"
        out += "|:--|:--|" + "--:|" * len(cols) + "\n"
        for k, (wl, case, vals) in enumerate(s["rows"]):
            extra = ""
            if measured:
                m = measured[k]
                extra = " | " + ("" if m is None else "%s (`%s`)" % ("{:,.1f}".format(m[0]), m[1]))
            out += "| %s | %s | %s%s |\n" % (wl, case, " | ".join("—" if v is None else "{:,}".format(v) for v in vals), extra)
        if measured and any(measured):
            out += "\nThe last column was measured here, in this run (%s), on this machine: %s\n" % (
                next(m[2] for m in measured if m), s["measured"]["note"])
        out += "\n"
    return out


# --- HTML -------------------------------------------------------------------------------------

CSS = """body{font:15px/1.45 system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:13px}th,td{border:1px solid #ccc;padding:3px 7px}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}th{background:#f3f3f3}td.best{font-weight:bold;background:#eef7ee}
td.bad{background:#fbe3e3}.note{background:#fff8e0;padding:.6em 1em;border-left:4px solid #e0b000}
.pub{background:#f0f0f8;padding:.3em 1em;border-left:4px solid #88a}svg{max-width:100%;height:auto}
.scroll{overflow-x:auto;max-width:100%}td small.ir{display:block;color:#555;font-size:11px}
td:first-child{white-space:nowrap}"""


NO_CHART = "<p>(chart not drawn: python3-matplotlib is not installed)</p>"


def pyplot():
    """matplotlib's pyplot drawing SVG, or None when python3-matplotlib is not installed."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        matplotlib.rcParams["svg.fonttype"] = "none"  # text as text: a tenth of the size
        matplotlib.rcParams["svg.hashsalt"] = "mpk"  # the same ids each time: stable diffs
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def svg_of(fig, plt):
    """The figure as an inline <svg> element."""
    fig.tight_layout()
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})  # no date: the same file each time
    plt.close(fig)
    svg = buf.getvalue()
    return svg[svg.index("<svg"):]


def chart_svg(rs, unit, title):
    """One chart per workload: a dot per cell, cases down, value across; log scale when the
    values span more than 30x (always the case with sizes that vary)."""
    plt = pyplot()
    if plt is None:
        return NO_CHART
    cases, impls, cells, _ = table(rs, unit)
    vals = [value_of(r, unit) for r in rs if value_of(r, unit)]
    if not vals:
        return ""
    # tall enough for the cases and for the legend (one line per implementation)
    fig, ax = plt.subplots(figsize=(9, max(0.9 + 0.32 * len(cases), 0.6 + 0.17 * len(impls))))
    markers = "osD^v<>ph*X"
    for k, impl in enumerate(impls):
        xs, ys = [], []
        for y, c in enumerate(cases):
            r = cells.get((c, impl))
            if r is not None and value_of(r, unit):
                xs.append(value_of(r, unit))
                ys.append(y)
        ax.plot(xs, ys, markers[k % len(markers)], label=impl, alpha=0.85)
    ax.set_yticks(range(len(cases)))
    ax.set_yticklabels(cases, fontsize=8)
    ax.invert_yaxis()
    if max(vals) / min(vals) > 30:
        ax.set_xscale("log")
    ax.set_xlabel(unit_label(rs, unit) + (" (log scale)" if max(vals) / min(vals) > 30 else ""))
    ax.set_title(title, fontsize=10)
    ax.grid(True, axis="x", alpha=0.3)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    return svg_of(fig, plt)


def html_report(rows, machine):
    e = html.escape
    out = io.StringIO()
    w = out.write
    w("<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>mpk benchmark suite — results</title>")
    w("<style>%s</style></head><body>\n<h1>mpk benchmark suite — results</h1>\n" % CSS)
    if machine.get("mode") == "quick":
        w("<p class=note>%s</p>" % e(QUICK_NOTE.replace("**", "")))
    w("<p>Run of %s (%s mode), commit %s.<br>Machine: %s, %s cores, %s, %s. C++: %s (%s).</p>\n" % tuple(
        e(str(machine.get(k))) for k in ("date", "mode", "commit", "cpu", "cores", "memory", "os",
                                         "cxx_compiler_version", "cxx_build_type")))
    if machine.get("note"):
        w("<p class=note><b>Note on this run:</b> %s</p>\n" % e(machine["note"]))
    w(summary_html(rows))
    w("<h2>Implementations</h2><table><tr><th>implementation<th>language<th>version</tr>")
    for impl, lang, ver in versions(rows):
        w("<tr><td>%s<td>%s<td>%s</tr>" % (e(impl), e(lang), e(ver)))
    w("</table>")
    for what, why in machine.get("not_run", {}).items():
        w("<p class=note>%s: %s.</p>" % (e(what), e(why)))
    w("<p>%s</p>\n" % e(LEGEND.replace("**", "")))
    by_w = {}
    for r in rows:
        by_w.setdefault(r["workload"], []).append(r)
    for name in workload_names(by_w):
        rs = by_w[name]
        wid, title, unit = workload_info(name)
        w("<h2 id=%s>%s %s — %s</h2>\n" % (e(name), wid, name, e(title)))
        groups = unit_groups(rs, unit)
        for u, display, g in groups:
            cases, impls, cells, fastest = table(g, display)
            label = unit_label(g, display)
            w("<p>%s%s. Each cell: the figure, then its verification (= same bytes as mpk, v same values, "
              "≠ different bytes, ✗ wrong values or error; hover for the details).</p>\n" % (
                  "Cells timed per %s: " % u if len(groups) > 1 else "", e(upper_first(label))))
            w(chart_svg(g, display, "%s %s — %s" % (wid, name, label)))
            w("<div class=scroll><table><tr><th>case" + "".join("<th>%s" % e(i) for i in impls) + "</tr>\n")
            for c in cases:
                w("<tr><td>%s" % e(c))
                for i in impls:
                    r = cells.get((c, i))
                    if r is None:
                        w("<td>")
                        continue
                    cls = "n best" if fastest.get(c) == i else ("n bad" if r["verdict"] in ("wrong_values", "error") else "n")
                    tip = "%s; spread %s%% (range %s%%); %s reps; %s" % (r["verdict"], r["spread_pct"] or "?", r["range_pct"] or "?",
                                                                       r["repetitions"], r["verification"])
                    ir = instructions(r)
                    w("<td class='%s' title='%s'>%s%s <small>%s</small>%s" % (
                        cls, e(tip, quote=True), e(fmt(value_of(r, display), display)),
                        e(cell_marks(r).replace(" ≠", "").replace(" ✗", "")), e(VERDICT_MARK.get(r["verdict"], "?")),
                        "<small class=ir>%s instr.</small>" % e(fmt_count(ir)) if ir else ""))
                w("</tr>\n")
            w("</table></div>\n")
        n = noise(rs)
        if n["noisy"] or n["noisy_range"]:
            w("<p>%s</p>\n" % e(noise_counts(n).replace("Noisy cells:", "Noisy cells (~):")))
        lines = verification_lines(rs)
        if lines:
            w("<ul>" + "".join("<li>%s, %s: %s — %s" % (e(i), e(", ".join(cs)), e(v.replace("_", " ")), e(t))
                               for i, v, t, cs in lines) + "</ul>\n")
    p = published()
    w("<h2>Published figures of implementations that cannot run here</h2><div class=pub><p><b>Not measured by this suite.</b> %s</p>" % e(p["note"]))
    for s in p["sources"]:
        w("<h3>%s</h3><p>Copied from the report by hand. Hardware: %s. Unit: %s.</p>" % (
            e(s["title"]), e(s["hardware"]), e(s["unit"])))
        measured, title = published_measured(s, rows)
        w("<table><tr><th>workload<th>case" + "".join("<th>%s" % e(c) for c in s["columns"] + ([title] if measured else [])) + "</tr>")
        for k, (wl, case, vals) in enumerate(s["rows"]):
            extra = ""
            if measured:
                m = measured[k]
                extra = "<td class=n>%s" % ("" if m is None else "%s (%s)" % ("{:,.1f}".format(m[0]), e(m[1])))
            w("<tr><td>%s<td>%s%s%s</tr>" % (e(wl), e(case), "".join("<td class=n>%s" % ("—" if v is None else "{:,}".format(v)) for v in vals), extra))
        w("</table>")
        if measured and any(measured):
            w("<p>The last column was measured here, in this run, on this machine: %s</p>" % e(s["measured"]["note"]))
    w("</div></body></html>\n")
    return out.getvalue()


def write_reports(out_dir):
    rows, machine = load(out_dir)
    with open(os.path.join(out_dir, "report.md"), "w") as f:
        f.write(markdown(rows, machine))
    with open(os.path.join(out_dir, "report.html"), "w") as f:
        f.write(html_report(rows, machine))


# --- comparison -------------------------------------------------------------------------------

def compare(dir_a, dir_b, out=None):
    """A table per workload: A, B and the speedup of B over A ("6.21 vs 6.41" style)."""
    ra, ma = load(dir_a)
    rb, mb = load(dir_b)
    a = {(r["workload"], r["case"], r["implementation"]): r for r in ra}
    text = io.StringIO()
    w = text.write
    w("# Comparison: %s vs %s\n\nA = `%s` (%s, commit %s); B = `%s` (%s, commit %s). Speedup = time A / time B "
      "(above 1: B is faster).\n\n" % (os.path.basename(dir_a.rstrip("/")), os.path.basename(dir_b.rstrip("/")),
                                         dir_a, ma.get("date"), ma.get("commit"), dir_b, mb.get("date"), mb.get("commit")))
    if ma.get("mode") != mb.get("mode"):
        w("**Warning:** A is a %s run and B a %s run: their data sizes and timings differ, so these "
          "ratios compare unlike things.\n\n" % (ma.get("mode"), mb.get("mode")))
    for label, rows in (("A", ra), ("B", rb)):
        n = noise(rows)
        if n["timed"]:
            w("%s: %s\n\n" % (label, noise_counts(n)))
    by_w = {}
    for r in rb:
        if (r["workload"], r["case"], r["implementation"]) in a:
            by_w.setdefault(r["workload"], []).append(r)
    ratios = []
    for name, rs in by_w.items():
        wid, title, unit = workload_info(name)
        w("## %s %s\n\n| case | implementation | A (ns/%s) | B (ns/%s) | speedup |\n|:--|:--|--:|--:|--:|\n" % (
            wid, name, rs[0]["unit"], rs[0]["unit"]))
        for r in rs:
            x = a[(r["workload"], r["case"], r["implementation"])]
            if not x["ns_per_unit"] or not r["ns_per_unit"]:
                continue
            va, vb = float(x["ns_per_unit"]), float(r["ns_per_unit"])
            ratios.append(va / vb)
            noisy = " ~" if "yes" in (x["noisy"], r["noisy"]) else ""
            w("| %s | %s | %s | %s | %.2fx%s |\n" % (r["case"], r["implementation"], fmt(va, "ns"), fmt(vb, "ns"), va / vb, noisy))
        w("\n")
    if ratios:
        w("Geometric mean of the speedups: %.2fx over %d cells (~: a noisy cell on either side).\n" % (
            math.exp(statistics.fmean(math.log(x) for x in ratios)), len(ratios)))
    s = text.getvalue()
    path = out or os.path.join(dir_b, "compare.md")
    with open(path, "w") as f:
        f.write(s)
    print(s)
    return 0
