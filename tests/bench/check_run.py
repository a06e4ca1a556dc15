#!/usr/bin/python3
"""Checks a result folder of the benchmark suite (tests/bench/run_quick runs it after a quick
run): every harness ran every implementation, every verification passed, the report files
exist and parse. Says nothing about speed.

    check_run.py RESULT_DIR

A run made with --only (machine.json's "only") measured part of the suite on purpose: the
checks that every workload, harness, implementation and required cell is present are then
skipped, and every cell that is there is checked as strictly as in a whole run.
"""
import glob
import html.parser
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "runner"))
from resultformat import read_rows  # noqa: E402

# Workloads every quick run must have; any other <workload>.csv in the folder (a new C++
# table) is read and checked the same way.
WORKLOADS = ["small_fields", "strings_binary", "flat_maps", "deep_nesting", "typed_objects", "lua_bench", "documents"]
# Cells each harness language must have produced (beyond "some cell"): W2, W4, W7 stream and
# records lists, by a part of the case name (W2: <data>_write, <data>_read_copy...).
REQUIRED_CASES = {
    "Python": [("strings_binary", "_write"), ("strings_binary", "_read_copy"), ("deep_nesting", "build_"),
               ("deep_nesting", "dom_"), ("documents", "encode_stream"), ("documents", "decode_stream"),
               ("documents", "encode_beer_list_maps")],
    "JavaScript": [("strings_binary", "_write"), ("strings_binary", "_read_copy"), ("deep_nesting", "build_"),
                   ("deep_nesting", "dom_"), ("documents", "encode_stream"), ("documents", "decode_stream"),
                   ("documents", "encode_beer_list_maps"), ("documents", "encode_beer_list_records")],
    "Lua": [("strings_binary", "_write"), ("strings_binary", "_read_copy"), ("deep_nesting", "build_"),
            ("deep_nesting", "dom_"), ("documents", "encode_stream"), ("documents", "decode_stream")],
    "Ruby": [("strings_binary", "_write"), ("strings_binary", "_read_copy"), ("deep_nesting", "build_"),
             ("deep_nesting", "dom_"), ("documents", "encode_stream"), ("documents", "decode_stream")],
}
IMPLEMENTATIONS = {
    "C++": ["mpk", "msgpack-cxx"],
    "Python": ["msgpack-python", "json-python"],
    "JavaScript": ["msgpackr", "@msgpack/msgpack", "notepack.io", "msgpack-lite", "msgpack5", "JSON-node"],
    "Lua": ["lua-MessagePack-lua5.4", "lua-MessagePack-luajit"],
    "Ruby": ["msgpack-ruby", "json-ruby"],
}
IMPLEMENTATIONS["JavaScript"] += ["msgpack-js", "msgpack-js-v5", "what-the-pack", "msgpack-unpack", "avsc"]
HARNESSES = ["C++ (mpk_bench)", "python", "js", "lua5.4", "luajit", "ruby"]
NPM_PEERS = ["msgpackr", "@msgpack/msgpack", "notepack.io", "msgpack-lite", "msgpack5", "msgpack-js", "msgpack-js-v5",
             "what-the-pack", "msgpack-unpack", "avsc"]
# The .NET harness runs when the .NET SDK is there; without it, machine.json and the report
# must say that its cells were not run (and the run is not a failure).
DOTNET_IMPLEMENTATIONS = ["MessagePack-CSharp", "Nerdbank.MessagePack", "Json.NET", "System.Text.Json"]
DOTNET_REQUIRED = [("small_fields", "write_implicit"), ("small_fields", "read_generic"), ("strings_binary", "utf16_1k_"),
                   ("strings_binary", "_read_view"), ("flat_maps", "read_typed"), ("typed_objects", "serialize_beer_array"),
                   ("documents", "encode_stream"), ("documents", "decode_stream"), ("documents", "encode_tiny")]

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


class TagChecker(html.parser.HTMLParser):
    """Counts tags and checks that tables and SVGs open and close in order; notes any
    reference to the network (the report must read offline)."""

    VOID = {"meta", "br", "img", "link", "input", "hr", "col", "source", "wbr"}
    OPTIONAL_END = {"tr", "td", "th", "li", "p"}

    def __init__(self):
        super().__init__()
        self.counts, self.stack, self.errors, self.remote = {}, [], [], []

    def handle_starttag(self, tag, attrs):
        self.counts[tag] = self.counts.get(tag, 0) + 1
        for k, v in attrs:
            if k in ("src", "href") and v and re.match(r"^(https?:)?//", v):
                self.remote.append(v)
        if tag in ("table", "svg", "html", "body", "ul"):
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in ("table", "svg", "html", "body", "ul"):
            if not self.stack or self.stack[-1] != tag:
                self.errors.append("</%s> does not close <%s>" % (tag, self.stack[-1] if self.stack else "nothing"))
            else:
                self.stack.pop()


def main(d):
    # machine.json
    with open(os.path.join(d, "machine.json")) as f:
        m = json.load(f)
    for key in ("cpu", "cores", "os", "commit", "cxx_compiler_version", "python", "node", "lua5.4", "luajit", "ruby"):
        check(m.get(key), "machine.json has no %s" % key)
    for p in ("libmsgpack-cxx-dev", "python3-msgpack", "lua-messagepack", "ruby-msgpack"):
        check(m.get("debian_packages", {}).get(p, "not installed") != "not installed", "machine.json: no version of %s" % p)
    for p in NPM_PEERS:
        check(m.get("npm_packages", {}).get(p), "machine.json: no version of npm package %s" % p)
    whole = not m.get("only")
    status = m.get("harness_exit_status", {})
    not_run = m.get("not_run", {})
    dotnet = "C#" not in not_run
    check(dotnet == (bool(m.get("dotnet")) and not str(m.get("dotnet")).startswith("not run")),
          "machine.json: the .NET SDK's version (%s) and not_run (%s) disagree" % (m.get("dotnet"), m.get("not_run")))
    if dotnet:
        HARNESSES.append("dotnet")
        IMPLEMENTATIONS["C#"] = DOTNET_IMPLEMENTATIONS
        REQUIRED_CASES["C#"] = DOTNET_REQUIRED
    else:
        check("dotnet" not in status, "the .NET harness ran although not_run says it did not")
    for h in HARNESSES if whole else status:
        check(h in status, "harness %s did not run" % h)
        check(status.get(h) in ((0,) if h.startswith("C++") else (0, 1)), "harness %s exited with %s" % (h, status.get(h)))

    # the CSVs, in the shared format
    rows = []
    for w in WORKLOADS if whole else []:
        check(os.path.exists(os.path.join(d, w + ".csv")), "no %s.csv" % w)
    csvs = sorted(glob.glob(os.path.join(d, "*.csv")))
    for path in csvs:
        rows += read_rows(path)
    workloads = sorted({r["workload"] for r in rows})
    for lang, needed in REQUIRED_CASES.items() if whole else []:
        for w, prefix in needed:
            check(any(r["language"] == lang and r["workload"] == w and prefix in r["case"] for r in rows),
                  "%s: no %s/*%s* cell" % (lang, w, prefix))
    # Every C/C++ implementation mpk_bench measured (new ones included) has a version and
    # passed verification like the others (checked per row below).
    for r in rows:
        if r["language"] in ("C++", "C"):
            check(r["version"], "%s (%s) has no version" % (r["implementation"], r["language"]))
    seen = {r["implementation"] for r in rows}
    for lang, impls in IMPLEMENTATIONS.items() if whole else []:
        for i in impls:
            check(i in seen, "no result for %s (%s)" % (i, lang))
    for r in rows:
        cell = "%s/%s/%s" % (r["workload"], r["case"], r["implementation"])
        if r["verdict"] in ("same_bytes", "different_bytes", "same_values"):
            check(r["ns_per_unit"] and float(r["ns_per_unit"]) > 0, "%s verified but not timed" % cell)
            check(r["repetitions"] and int(r["repetitions"]) >= 1, "%s has no repetitions" % cell)
            # The spreads (docs/benchmark-suite.md, "Statistics"): computed by the runner from
            # every repetition's time, the robust one never above the range, noisy by the robust one.
            reps = r["repetitions_ns"].split()
            check(len(reps) == int(r["repetitions"] or 0), "%s: %d repetition times for %s repetitions"
                  % (cell, len(reps), r["repetitions"]))
            if check(r["spread_pct"] and r["range_pct"], "%s: no spread_pct or range_pct" % cell):
                check(float(r["spread_pct"]) <= float(r["range_pct"]) + 0.01,
                      "%s: robust spread %s above the range %s" % (cell, r["spread_pct"], r["range_pct"]))
                # (the flag is from the unrounded spread: "5.00" may be either)
                check(abs(float(r["spread_pct"]) - 5) <= 0.005 or
                      r["noisy"] == ("yes" if float(r["spread_pct"]) > 5 else "no"),
                      "%s: noisy %r with a spread of %s%%" % (cell, r["noisy"], r["spread_pct"]))
            if r["verdict"] == "different_bytes":
                check(r["verification"].startswith("different bytes") and not r["verification"].startswith("different bytes (not"),
                      "%s: different bytes without a reason (%s)" % (cell, r["verification"]))
        elif r["verdict"] == "wrong_values":
            check(r["verification"].startswith("known defect"), "%s: wrong values: %s" % (cell, r["verification"]))
        else:
            check(False, "%s: %s: %s" % (cell, r["verdict"], r["verification"]))
    for lang in ["Python", "JavaScript", "Lua", "Ruby"] + (["C#"] if dotnet else []) if whole else []:
        lang_rows = [r for r in rows if r["language"] == lang]
        check(any(r["verdict"] == "same_bytes" for r in lang_rows), "%s: no cell with the same bytes as mpk" % lang)
        check(any(r["verdict"] == "same_values" for r in lang_rows), "%s: no cell decoding mpk's bytes" % lang)
    raw = m.get("raw_dir") or os.path.join(d, "raw")
    check(os.path.exists(os.path.join(raw, "ref", "digests.csv")), "no reference digests")
    check(not os.path.exists(os.path.join(d, "raw")), "raw logs inside the result folder")

    # report.md: a table per workload whose rows have as many cells as the header
    with open(os.path.join(d, "report.md")) as f:
        md = f.read()
    sections = {}
    for part in re.split(r"^## ", md, flags=re.M)[1:]:
        m = re.match(r"(?:W[\d?]|JSON) (\S+) ", part)
        if m:
            sections[m.group(1)] = part
    for w in workloads:
        if not check(w in sections, "report.md has no section for %s" % w):
            continue
        headers = [line for line in sections[w].splitlines() if line.startswith("| case |")]
        columns = {c.strip().replace("\\|", "|") for line in headers for c in re.split(r"(?<!\\)\|", line)}
        for impl in sorted({r["implementation"] for r in rows if r["workload"] == w}):
            check(impl in columns, "report.md: %s has no column for %s" % (w, impl))
    check(re.search(r"Noise: \d+ of \d+ timed cells are noisy \(robust spread over 5%.*; \d+ of \d+ by the range", md),
          "report.md: the summary does not give both noisy counts (robust spread and range)")
    check("## Published figures of implementations that cannot run here" in md, "report.md: no published figures")
    for what, why in not_run.items():
        check("- %s: %s." % (what, why) in md, "report.md does not say that %s was not run" % what)
    if not dotnet:
        check(not any(r["language"] == "C#" for r in rows), "C# cells although the .NET SDK is not there")
    for block in re.findall(r"((?:^\|.*\|\n)+)", md, re.M):
        lines = block.strip("\n").split("\n")
        width = len(re.findall(r"(?<!\\)\|", lines[0]))
        for line in lines:
            check(len(re.findall(r"(?<!\\)\|", line)) == width, "report.md: ragged table row: %s" % line[:80])
    check(md.count("**") >= 2 * len(workloads), "report.md: no fastest cell in bold")

    # report.html: parses, one chart per workload, nothing fetched from the network
    with open(os.path.join(d, "report.html")) as f:
        text = f.read()
    p = TagChecker()
    p.feed(text)
    p.close()
    check(not p.errors, "report.html: %s" % p.errors[:3])
    check(not p.stack, "report.html: unclosed %s" % p.stack)
    check(p.counts.get("svg", 0) >= len(workloads), "report.html: %d charts for %d workloads" % (p.counts.get("svg", 0), len(workloads)))
    check(p.counts.get("table", 0) >= len(workloads), "report.html: too few tables")
    for w in workloads:
        check(re.search(r"<h2[^>]*>(W[\d?]|JSON) %s " % re.escape(w), text), "report.html has no section for %s" % w)
    check(not p.remote and "<script" not in text, "report.html fetches from the network: %s" % p.remote[:3])

    if failures:
        for x in failures:
            print("FAIL: " + x)
        return 1
    print("result folder OK: %d cells, %d implementations, %d workloads" % (len(rows), len(seen), len(workloads)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
