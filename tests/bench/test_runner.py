"""Unit tests of the benchmark runner's logic: the wording of byte differences, the shared
format, the report's summary and tables, the instruction counts, the order mpk_bench runs its
repetitions in, and the comparison of two result folders. Run by tests/bench/run_quick
(python3 -m unittest)."""
import csv
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "runner"))
import explain  # noqa: E402
import report  # noqa: E402
import run  # noqa: E402
import resultformat  # noqa: E402
from resultformat import FIELDS, read_rows, write_rows  # noqa: E402

# The header of the harnesses' CSVs and of the result folders before range_pct (2026-12).
OLD_CORE = ["workload", "case", "implementation", "language", "version", "unit", "ns_per_unit", "spread_pct",
            "repetitions", "noisy", "verdict", "verification", "encoded_bytes", "alloc_bytes_per_op", "allocs_per_op"]


def f64(x):
    return b"\xcb" + struct.pack(">d", x)


class ExplainTest(unittest.TestCase):
    def test_map16_and_float64_integers(self):
        ref = bytes([0x81, 0xA1, 0x61]) + b"\xcf" + (5000000000).to_bytes(8, "big")
        mine = bytes([0xDE, 0, 1, 0xA1, 0x61]) + f64(5000000000.0)
        why = explain.explain(ref, mine)
        self.assertIn("writes maps as map16 where mpk writes fixmap", why)
        self.assertIn("writes integers beyond 32 bits as float64", why)

    def test_integral_double_as_integer(self):
        self.assertIn("integral doubles", explain.explain(bytes([0x91]) + f64(6.0), bytes([0x91, 0x06])))

    def test_float32(self):
        self.assertIn("fit float32 exactly", explain.explain(f64(0.25), b"\xca" + struct.pack(">f", 0.25)))

    def test_key_order(self):
        ref = bytes([0x82, 0xA1, 0x61, 1, 0xA1, 0x62, 2])
        mine = bytes([0x82, 0xA1, 0x62, 2, 0xA1, 0x61, 1])
        self.assertEqual(explain.explain(ref, mine), "writes map keys in another order")

    def test_nested_containers_stay_aligned(self):
        # [[1, 2], {"a": [3]}, 0.5]: the float after the nested containers is compared.
        ref = bytes([0x93, 0x92, 1, 2, 0x81, 0xA1, 0x61, 0x91, 3]) + f64(0.5)
        mine = bytes([0x93, 0x92, 1, 2, 0x81, 0xA1, 0x61, 0x91, 3]) + b"\xca" + struct.pack(">f", 0.5)
        self.assertEqual(explain.explain(ref, mine), "writes doubles that fit float32 exactly as float32")

    def test_str16_instead_of_str8(self):
        s = b"x" * 40
        self.assertIn("str16 where mpk writes str8", explain.explain(bytes([0xD9, 40]) + s, bytes([0xDA, 0, 40]) + s))


def row(**kw):
    base = {k: "" for k in FIELDS}
    base.update(workload="documents", case="encode_tiny", implementation="a", language="Python", version="1",
                unit="op", ns_per_unit="100", spread_pct="1", repetitions="5", noisy="no",
                verdict="same_bytes", verification="same bytes as mpk")
    base.update(kw)
    return base


def reports_of(d, mode):
    """Writes a machine.json of `mode` into the folder `d`, then its reports; returns the text
    of report.md and of report.html."""
    with open(os.path.join(d, "machine.json"), "w") as f:
        json.dump({"mode": mode}, f)
    report.write_reports(d)
    return open(os.path.join(d, "report.md")).read(), open(os.path.join(d, "report.html")).read()


class ReportTest(unittest.TestCase):
    def folder(self, rows, mode="full"):
        d = tempfile.mkdtemp()
        write_rows(os.path.join(d, "documents.csv"), rows)
        with open(os.path.join(d, "machine.json"), "w") as f:
            json.dump({"mode": mode, "date": "now", "commit": "abc"}, f)
        return d

    def test_format_round_trip(self):
        d = self.folder([row(verification='with "quotes", commas')])
        self.assertEqual(read_rows(os.path.join(d, "documents.csv"))[0]["verification"], 'with "quotes", commas')

    def test_fastest_in_bold_in_ops_per_second(self):
        d = self.folder([row(implementation="a", ns_per_unit="200"), row(implementation="b", ns_per_unit="100")])
        report.write_reports(d)
        md = open(os.path.join(d, "report.md")).read()
        line = [l for l in md.splitlines() if l.startswith("| encode_tiny")][0]
        self.assertIn("**10,000,000**", line)  # b: 1e9 / 100 ns, the fastest
        self.assertIn("5,000,000", line.replace("**10,000,000**", ""))
        self.assertIn("<svg", open(os.path.join(d, "report.html")).read())

    def test_quick_runs_are_labelled(self):
        d = self.folder([row()], mode="quick")
        report.write_reports(d)
        self.assertIn("Quick run", open(os.path.join(d, "report.md")).read())

    def test_compare_speedup(self):
        a = self.folder([row(ns_per_unit="621")])
        b = self.folder([row(ns_per_unit="310.5")])
        out = os.path.join(b, "cmp.md")
        with open(os.devnull, "w") as null:
            old, sys.stdout = sys.stdout, null
            try:
                report.compare(a, b, out)
            finally:
                sys.stdout = old
        text = open(out).read()
        self.assertIn("| 2.00x |", text)
        self.assertIn("A: Noisy cells: 0 of 1 (robust spread over 5%", text)


class RunCheckTest(unittest.TestCase):
    def test_known_defect_does_not_fail_but_others_do(self):
        rows = [row(implementation="notepack.io", workload="lua_bench", case="dary10", verdict="wrong_values",
                    verification="its own bytes do not decode to the data"),
                row(implementation="notepack.io", workload="lua_bench", case="iary10", verdict="wrong_values",
                    verification="its own bytes do not decode to the data")]
        run.apply_known_defects(rows)
        problems = run.check_run(rows, {}, {})
        self.assertEqual(len(problems), 1)
        self.assertIn("iary10", problems[0])

    def test_missing_cells_and_crashes_fail(self):
        problems = run.check_run([row()], {"js": ["documents/encode_tiny/a", "documents/decode_tiny/a"]}, {"js": 134})
        self.assertEqual(len(problems), 2)


class ReferenceCaseTest(unittest.TestCase):
    def test_encode_cells_name_their_reference(self):
        self.assertEqual(explain.reference_case("small_fields", "write_implicit"), "stream")
        self.assertEqual(explain.reference_case("strings_binary", "ascii_8_write"), "ascii_8")
        self.assertEqual(explain.reference_case("deep_nesting", "build_128"), "nest_128")
        self.assertEqual(explain.reference_case("documents", "encode_stream"), "stream")
        self.assertEqual(explain.reference_case("documents", "encode_beer_list_records"), "beer_list_records")
        self.assertEqual(explain.reference_case("typed_objects", "serialize_beer_map"), "beer_map")
        self.assertEqual(explain.reference_case("lua_bench", "iary10"), "iary10")


class StatisticsTest(unittest.TestCase):
    """The spread of a cell's repetitions (resultformat.py; docs/benchmark-suite.md, "Statistics")."""

    def test_one_slow_repetition_sets_the_range_not_the_robust_spread(self):
        v = [100, 101, 102, 150, 99]  # median 101; deviations 1 0 1 49 2: their median is 1
        self.assertAlmostEqual(resultformat.spread_pct(v), 100 / 101)
        self.assertAlmostEqual(resultformat.range_pct(v), 51 / 101 * 100)

    def test_repetitions_that_disagree_make_the_robust_spread_large(self):
        v = [100, 120, 80, 100, 110]  # median 100; deviations 0 20 20 0 10: median 10
        self.assertAlmostEqual(resultformat.spread_pct(v), 10.0)
        self.assertAlmostEqual(resultformat.range_pct(v), 40.0)
        self.assertAlmostEqual(resultformat.spread_pct([1, 2, 3, 4]), 40.0)  # median 2.5, MAD 1
        self.assertEqual(resultformat.spread_pct([5.0]), 0.0)
        self.assertEqual(resultformat.range_pct([5.0]), 0.0)

    def test_at_most_five_percent_when_half_lie_within_five_percent(self):
        # 3 of 5 within 5% of the median (itself and two more): not noisy however far the others.
        self.assertLessEqual(resultformat.spread_pct([100, 104.9, 95.1, 300, 10]), 5.0)
        # Only the median itself and one more within 5%: noisy.
        self.assertGreater(resultformat.spread_pct([100, 104.9, 94, 300, 10]), 5.0)

    def test_cell_stats_from_the_repetitions(self):
        r = resultformat.cell_stats({"repetitions_ns": "100 101 102 150 99", "spread_pct": "", "noisy": ""})
        self.assertEqual((r["spread_pct"], r["range_pct"], r["noisy"], r["repetitions"]), ("0.99", "50.50", "no", "5"))
        r = resultformat.cell_stats({"repetitions_ns": "100 120 80 100 110"})
        self.assertEqual((r["spread_pct"], r["noisy"]), ("10.00", "yes"))
        untimed = {"repetitions_ns": "", "spread_pct": "", "noisy": ""}
        self.assertEqual(resultformat.cell_stats(dict(untimed)), untimed)


class HarnessInterleavingTest(unittest.TestCase):
    """The Python harness (as the JavaScript, Ruby and C# ones) runs repetition k of every
    implementation of a case before repetition k + 1 of any, the first one rotating."""

    def test_rounds_rotate_and_long_operations_drop_out(self):
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "harness",
                                        "python"))
        import harness  # noqa: E402
        order = []

        class Fake:
            def __init__(self, name, reps):
                self.name, self.reps, self.samples = name, reps, []

            def rep(self):
                order.append(self.name)
                self.samples.append(1.0)

        fakes = [Fake("a", 5), Fake("b", 5), Fake("c", 3)]
        harness.time_interleaved(fakes)
        self.assertEqual("".join(order), "abc" "bca" "cab" "ab" "ba")
        self.assertEqual([len(f.samples) for f in fakes], [5, 5, 3])


    HARNESS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "harness")
    EXPECTED = "abc" "bca" "cab" "ab" "ba"  # a and b: 5 repetitions, c: 3

    @unittest.skipUnless(shutil.which("node"), "no node")
    def test_javascript(self):
        path = os.path.abspath(os.path.join(self.HARNESS, "js", "harness.js"))
        script = """
const Module = require('module'), fs = require('fs'), p = require('path');
const file = %s;
const m = new Module(file, null);
m.filename = file;
m.paths = Module._nodeModulePaths(p.dirname(file));
m._compile(fs.readFileSync(file, 'utf8').replace(/main\\(\\)\\.then\\(.*\\);\\s*$/, '')
  + '\\nmodule.exports = { timeInterleaved };', file);
const order = [];
const t = (name, reps) => ({ op: () => { order.push(name); }, units: 1, batch: 1, reps, samples: [] });
const ts = [t('a', 5), t('b', 5), t('c', 3)];
m.exports.timeInterleaved(ts).then(() => console.log(order.join('') + ' ' + ts.map((x) => x.samples.length).join(',')));
""" % json.dumps(path)
        out = subprocess.run(["node", "-e", script], capture_output=True, text=True, check=True).stdout.strip()
        self.assertEqual(out, self.EXPECTED + " 5,5,3")

    @unittest.skipUnless(shutil.which("ruby"), "no ruby")
    def test_ruby(self):
        path = os.path.abspath(os.path.join(self.HARNESS, "ruby", "harness.rb"))
        script = """
eval(File.read(%s).sub(/^exit main\\(ARGV\\.dup\\)\\s*\\z/, ''))
order = +''
ts = [['a', 5], ['b', 5], ['c', 3]].map { |n, r| Timed.new(-> { order << n }, 1, 1, r, []) }
time_interleaved(ts)
puts "#{order} #{ts.map { |x| x.samples.size }.join(',')}"
""" % json.dumps(path)
        out = subprocess.run(["ruby", "-e", script], capture_output=True, text=True, check=True).stdout.strip()
        self.assertEqual(out, self.EXPECTED + " 5,5,3")


class LuaShortModeTest(unittest.TestCase):
    """harness.lua's measure in the default mode (MPK_BENCH_SHORT=1): a verification of 0.5 s or
    more is the warm-up; the repetitions follow the operation's own time (its first call)."""
    HARNESS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "harness", "lua",
                           "harness.lua")

    def measure(self, lua, call_s, verified_s):
        script = """
local f = assert(io.open(%s)); local src = f:read('*a'); f:close()
src = src:gsub('os%%.exit%%(main%%(arg%%)%%)%%s*$', '') .. [[
local calls = 0
local function op() calls = calls + 1; local s = os.clock(); while os.clock() - s < %r do end end
local _, _, n = measure(op, 1, false, %r)
print(n .. ' ' .. calls)
]]
assert(load(src))()
""" % (json.dumps(os.path.abspath(self.HARNESS)), call_s, verified_s)
        env = dict(os.environ, MPK_BENCH_SHORT="1")
        if lua == "lua5.4":
            env["LUA_PATH"] = "/usr/share/lua/5.3/?.lua;;"
        out = subprocess.run([lua, "-e", script], capture_output=True, text=True, check=True, env=env).stdout
        return [int(x) for x in out.split()]  # repetitions, calls

    @unittest.skipUnless(shutil.which("lua5.4"), "no lua5.4")
    def test_long_operations(self):
        # No warm-up call: 3 calls, 3 repetitions (from 2 s, 2: not tested, it takes 4 s of CPU).
        self.assertEqual(self.measure("lua5.4", 0.6, 0.7), [3, 3])

    @unittest.skipUnless(shutil.which("luajit"), "no luajit")
    def test_short_operation_after_a_long_verification(self):
        reps, calls = self.measure("luajit", 0.002, 0.7)
        self.assertEqual(reps, 5)  # warmed up and batched as usual: 5 batches of ~0.05 s
        self.assertGreater(calls, 5 * 10)


class CppTablesTest(unittest.TestCase):
    def cpp_folder(self, header, lines):
        d = tempfile.mkdtemp()
        with open(os.path.join(d, "t.csv"), "w") as f:
            f.write(header + "\n" + "\n".join(lines) + "\n")
        return d

    def test_rates_become_ns_per_unit(self):
        d = self.cpp_folder("workload,case,implementation,mb_per_s_median,spread_pct,repetitions,verification",
                            ["strings_binary,read_bin_1m,mpk,2000,1.5,5,same values"])
        r = run.cpp_rows(d, {})[0]
        self.assertEqual(r["unit"], "byte")
        self.assertAlmostEqual(float(r["ns_per_unit"]), 0.5)  # 2000 MB/s = 0.5 ns per byte
        d = self.cpp_folder("workload,case,implementation,ops_per_s_median,spread_pct,repetitions,verification",
                            ["documents,encode_tiny,nlohmann,4000000,1.5,5,same bytes as mpk"])
        r = run.cpp_rows(d, {})[0]
        self.assertEqual((r["unit"], r["verdict"]), ("op", "same_bytes"))
        self.assertAlmostEqual(float(r["ns_per_unit"]), 250.0)

    def test_spread_from_the_repetitions(self):
        d = self.cpp_folder("workload,case,implementation,ns_per_map_median,spread_pct,repetitions,verification,"
                            "range_pct,repetition_values",
                            ["flat_maps,write,mpk,101,0.99,5,same bytes,50.50,100 101 102 150 99"])
        r = run.cpp_rows(d, {})[0]
        self.assertEqual((r["spread_pct"], r["range_pct"], r["noisy"]), ("0.99", "50.50", "no"))
        self.assertEqual(r["repetitions_ns"].split(), ["100.0000", "101.0000", "102.0000", "150.0000", "99.0000"])
        # A table of an earlier run: its spread_pct is the range.
        d = self.cpp_folder("workload,case,implementation,ns_per_map_median,spread_pct,repetitions,verification",
                            ["flat_maps,write,mpk,101,50.5,5,same bytes"])
        r = run.cpp_rows(d, {})[0]
        self.assertEqual((r["spread_pct"], r["range_pct"], r["noisy"]), ("", "50.5", "yes"))

    def test_unknown_median_column_is_an_error(self):
        d = self.cpp_folder("workload,case,implementation,furlongs_median,spread_pct,repetitions,verification",
                            ["documents,encode_tiny,mpk,1,1,5,same bytes"])
        with self.assertRaises(ValueError):
            run.cpp_rows(d, {})

    def test_languages_and_packages(self):
        self.assertEqual(run.cpp_package("msgpack-c"), ("C", "libmsgpack-dev"))
        self.assertEqual(run.cpp_package("msgpack-cxx-parse"), ("C++", "libmsgpack-cxx-dev"))
        self.assertEqual(run.cpp_package("RapidJSON"), ("C++", "rapidjson-dev"))
        self.assertEqual(run.cpp_package("mpk"), ("C++", None))

    def test_benchmark_names_are_cell_ids(self):
        self.assertEqual(run.cpp_cell_id("w2/read_ascii_8/mpk"), "strings_binary/read_ascii_8/mpk")
        self.assertEqual(run.cpp_cell_id("w4/parse_8/nlohmann/repeats:5"), "deep_nesting/parse_8/nlohmann")

    def test_a_planned_cpp_cell_without_a_row_fails_the_run(self):
        rows = [row(language="C++"), row(workload="json_conversion", case="to_json_w1", implementation="mpk", language="C++")]
        plan = ["documents/encode_tiny/a", "documents/encode_tiny/mpk", "json/to_json_w1/mpk"]
        problems = run.check_run(rows, {"C++ (mpk_bench)": plan}, {"C++ (mpk_bench)": 0})
        self.assertEqual(len(problems), 1)
        self.assertIn("raw/cpp.log", problems[0])


class ReportColumnsTest(unittest.TestCase):
    def test_native_columns_first_in_order(self):
        rows = [row(implementation=i, language=l) for i, l in [
            ("msgpack-python", "Python"), ("RapidJSON", "C++"), ("msgpack-c", "C"), ("simdjson", "C++"),
            ("nlohmann", "C++"), ("msgpack-cxx", "C++"), ("mpk", "C++"), ("msgpackr", "JavaScript")]]
        self.assertEqual(report.impl_order(rows), ["mpk", "msgpack-cxx", "msgpack-c", "nlohmann", "simdjson",
                                                   "RapidJSON", "msgpack-python", "msgpackr"])

    def test_variants_follow_their_case(self):
        rows = [row(case=c) for c in ("write_a", "read_a", "write_b", "read_b", "read_a_view", "read_b_novalidate")]
        self.assertEqual(report.case_order(rows), ["write_a", "read_a", "read_a_view", "write_b", "read_b",
                                                   "read_b_novalidate"])
        # W2's data-first names (mpk_bench): a harness's later copy variant joins its data
        rows = [row(case=c) for c in ("a_write", "a_read_view", "b_write", "a_read_copy")]
        self.assertEqual(report.case_order(rows), ["a_write", "a_read_view", "a_read_copy", "b_write"])

    def test_mixed_units_get_one_table_each_and_every_verdict_is_shown(self):
        d = tempfile.mkdtemp()
        write_rows(os.path.join(d, "strings_binary.csv"), [
            row(workload="strings_binary", case="read_bin_1m", implementation="mpk", language="C++", unit="byte",
                ns_per_unit="0.5", verdict="same_values"),
            row(workload="strings_binary", case="read_bin_1m", implementation="msgpack-python", unit="value",
                ns_per_unit="100000", verdict="different_bytes", verification="different bytes: x"),
            row(workload="strings_binary", case="write_bin_1m", implementation="msgpack-python", unit="value",
                ns_per_unit="200000", verdict="same_bytes")])
        md, html = reports_of(d, "full")
        self.assertIn("### Cells timed per byte", md)
        self.assertIn("### Cells timed per value", md)
        self.assertIn("**2,000**", md)  # 0.5 ns per byte = 2,000 MB/s
        verdict_rows = [l for l in md.splitlines() if l.startswith("| read_bin_1m |") and "≠ |" in l and "100,000" not in l]
        self.assertEqual(len(verdict_rows), 1)
        self.assertTrue(any(l.startswith("| write_bin_1m |") and l.endswith(" = |") for l in md.splitlines()))
        self.assertEqual(html.count("<svg"), 2)


def summary_line(md, workload, operation):
    """The cells of the summary's row of `workload` and `operation`."""
    for line in md.split("## Summary", 1)[1].splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) > 2 and cells[0].endswith(workload) and cells[1] == operation:
            return cells
    raise AssertionError("no summary row for %s %s" % (workload, operation))


class SummaryTest(unittest.TestCase):
    ROWS = [  # W3 encode: mpk 10 ns; msgpack-c 20 ns (C), msgpackr 15 ns; decode: msgpackr faster
        dict(case="write", implementation="mpk", language="C++", ns_per_unit="10", instructions_per_unit="100"),
        dict(case="write", implementation="msgpack-c", language="C", ns_per_unit="20", instructions_per_unit="300"),
        dict(case="write", implementation="msgpackr", language="JavaScript", ns_per_unit="15", noisy="yes",
             spread_pct="12"),
        dict(case="read_typed", implementation="mpk", language="C++", ns_per_unit="40"),
        dict(case="read_typed", implementation="msgpackr", language="JavaScript", ns_per_unit="20",
             verdict="same_values"),
        dict(case="read_typed", implementation="msgpack-lite", language="JavaScript", ns_per_unit="80",
             verdict="different_bytes", verification="different bytes: x"),
    ]

    def report_of(self, rows):
        d = tempfile.mkdtemp()
        write_rows(os.path.join(d, "flat_maps.csv"),
                   [row(workload="flat_maps", unit="map", **r) for r in rows])
        return reports_of(d, "default")

    def test_summary_opens_the_report(self):
        md, html = self.report_of(self.ROWS)
        self.assertLess(md.index("## Summary"), md.index("## Implementations"))
        self.assertLess(html.index("<h2 id=summary>"), html.index("<h2>Implementations"))
        enc = summary_line(md, "flat_maps", "encode")
        # mpk 10 ns; the fastest other is msgpackr (15 ns): 1.5x; the fastest C/C++ msgpack-c: 2x
        self.assertEqual(enc[2:8], ["1", "10.0 ns/map", "msgpackr 15.0 ns/map", "1.50×", "1 of 1", "msgpack-c"])
        self.assertEqual(enc[8:10], ["2.00×", "3.00×"])  # by time, by instructions (300 / 100)
        dec = summary_line(md, "flat_maps", "decode")
        self.assertEqual(dec[3:7], ["40.0 ns/map", "msgpackr 20.0 ns/map", "0.50×", "0 of 1"])
        self.assertEqual(dec[7:10], ["—", "—", "—"])  # no other C/C++ implementation decodes

    def test_the_tools_commands_are_mpk(self):
        # json/cli_select_w7_medium compares the mpk tool's commands: mpk is measured there,
        # with no other implementation (not "mpk not measured").
        self.assertTrue(report.is_mpk("mpk_get") and report.is_mpk("mpk_to_json"))
        self.assertFalse(report.is_mpk("msgpack-c") or report.is_mpk("to_json_jq"))
        rows = [dict(case="cli_select", implementation=i, language="C++", ns_per_unit=t)
                for i, t in (("mpk_get", "1"), ("mpk_to_json", "3"))]
        md, _ = self.report_of(rows)
        self.assertIn("no other implementation", summary_line(md, "flat_maps", "cli select"))

    def test_fastest_per_language_verification_and_noise(self):
        md, html = self.report_of(self.ROWS)
        langs = {l.split("|")[1].strip(): l for l in md.splitlines() if l.startswith("| JavaScript") or
                 l.startswith("| C++")}
        self.assertIn("msgpackr", langs["JavaScript"])
        self.assertIn("| mpk |", langs["C++"])
        self.assertIn("6 cells verified before timing: 4 same bytes as mpk, 1 different bytes", md)
        self.assertIn("1 of 6 timed cells are noisy", md)
        self.assertIn("JavaScript 1 of 3", md)
        self.assertIn("class=chart", html)  # the bars of the ratio to mpk
        self.assertIn("overflow-x:auto", html)  # wide tables scroll inside their box

    def test_noise_states_both_counts(self):
        rows = [dict(case="write", implementation=i, language="C++", ns_per_unit="10", spread_pct=s, range_pct=g,
                     noisy="yes" if float(s) > 5 else "no")
                for i, s, g in (("mpk", "1", "30"), ("msgpack-cxx", "12", "40"), ("msgpack-c", "2", "3"))]
        md, html = self.report_of(rows)
        self.assertIn("Noise: 1 of 3 timed cells are noisy (robust spread over 5%", md)
        self.assertIn("2 of 3 by the range ((max − min) / median over 5%), the measure of earlier runs", md)
        self.assertIn("Noisy cells: 1 of 3 (robust spread over 5%; largest 12.0%, write, msgpack-cxx); 2 of 3 by "
                      "the range", md)
        self.assertIn("2 of 3 by the range", html)

    def test_noise_of_an_earlier_run(self):
        d = tempfile.mkdtemp()
        with open(os.path.join(d, "flat_maps.csv"), "w") as f:
            f.write(",".join(OLD_CORE) + "\n")
            for i, spread in (("mpk", "30"), ("msgpack-c", "3")):
                r = row(workload="flat_maps", unit="map", implementation=i, language="C++", spread_pct=spread,
                        noisy="yes" if float(spread) > 5 else "no")
                f.write(",".join(r[k] for k in OLD_CORE) + "\n")
        md, _ = reports_of(d, "full")
        self.assertIn("Noise: 1 of 2 timed cells are noisy by the range of their repetitions", md)
        self.assertIn("this run recorded no robust spread", md)

    def test_ratio_bars(self):
        bars = report.ratio_bars([row(workload="flat_maps", **r) for r in self.ROWS])
        got = {i: round(x, 3) for i, _, x, _ in bars["flat_maps"]}
        # msgpackr: geometric mean of 15/10 and 20/40
        self.assertEqual(got, {"msgpackr": round((1.5 * 0.5) ** 0.5, 3), "msgpack-c": 2.0, "msgpack-lite": 2.0})

    def test_operations_from_case_names(self):
        self.assertEqual(report.operation("strings_binary", "ascii_8_read_view"), "decode")
        self.assertEqual(report.operation("small_fields", "buffer_exact"), "encode")
        self.assertEqual(report.operation("deep_nesting", "examine_unchecked_8"), "examine unchecked")
        self.assertEqual(report.operation("typed_objects", "skip_beer_map"), "skip")
        self.assertEqual(report.operation("lua_bench", "iary10"), "pack + unpack")


class InstructionsTest(unittest.TestCase):
    def test_counts_beside_the_times(self):
        md, html = SummaryTest().report_of(SummaryTest.ROWS)
        table = md.split("Instructions per map", 1)[1].split("\n\n", 2)[1]
        line = [l for l in table.splitlines() if l.startswith("| write |")][0]
        self.assertEqual([c.strip() for c in line.strip("|").split("|")], ["write", "**100.0**", "300.0"])
        self.assertIn("<small class=ir>100.0 instr.</small>", html)

    def test_callgrind_dumps(self):
        d = tempfile.mkdtemp()
        for k, (name, total) in enumerate([("w1/read_typed/mpk units=200000", 3000000),
                                           ("w3/write/msgpack-c units=2000", 500000)]):
            with open(os.path.join(d, "callgrind.out.%d" % (k + 1)), "w") as f:
                f.write("version: 1\ncreator: callgrind\ndesc: Trigger: Client Request: %s\n"
                        "events: Ir\nfn=x\n0 5\ntotals: %d\n" % (name, total))
        with open(os.path.join(d, "callgrind.out"), "w") as f:  # the final dump: no client request
            f.write("desc: Trigger: Program termination\nevents: Ir\ntotals: 99\n")
        self.assertEqual(run.parse_callgrind_dumps(d), {"small_fields/read_typed/mpk": 15.0,
                                                         "flat_maps/write/msgpack-c": 250.0})

    def test_cells_of_child_processes_count_the_children(self):
        # count_children: mpk_bench's dump names the cell and the directory of one dump per
        # child process; the count is theirs (the shell and each command of a pipeline summed),
        # not mpk_bench's own 99.
        d = tempfile.mkdtemp()
        kids = os.path.join(d, "tables", "callgrind-children", "json_cli_select_w7_medium_to_json_jq")
        os.makedirs(kids)
        for pid, total in [(101, 250000), (102, 1750000), (103, 6000000)]:
            with open(os.path.join(kids, "callgrind.out.%d" % pid), "w") as f:
                f.write("desc: Trigger: Program termination\nevents: Ir\nsummary: %d\ntotals: %d\n" % (total, total))
        empty = os.path.join(d, "tables", "callgrind-children", "json_cli_select_w7_medium_mpk_get")
        os.makedirs(empty)
        for k, desc in enumerate(["json/cli_select_w7_medium/to_json_jq units=1000000 children=" + kids,
                                  "json/cli_select_w7_medium/mpk_get units=1000000 children=" + empty,
                                  "json/to_json_w1/mpk units=1000"]):
            with open(os.path.join(d, "callgrind.out.%d" % (k + 1)), "w") as f:
                f.write("desc: Trigger: Client Request: %s\nevents: Ir\ntotals: 99\n" % desc)
        # No dump of a child, no count (not mpk_bench's 99 / 10^6).
        self.assertEqual(run.parse_callgrind_dumps(d), {"json_conversion/cli_select_w7_medium/to_json_jq": 8.0,
                                                         "json_conversion/to_json_w1/mpk": 0.099})

    def test_harness_files_without_the_column_are_read(self):
        d = tempfile.mkdtemp()
        path = os.path.join(d, "h.csv")
        with open(path, "w") as f:
            f.write(",".join(OLD_CORE) + "\n" + ",".join(row(spread_pct="7.5")[k] for k in OLD_CORE) + "\n")
        r = read_rows(path)[0]
        self.assertEqual(r["instructions_per_unit"], "")
        # An earlier file's spread_pct was the range: it moves to range_pct (no robust spread).
        self.assertEqual((r["range_pct"], r["spread_pct"]), ("7.5", ""))


class InterleavingTest(unittest.TestCase):
    """mpk_bench runs repetition k of every implementation of a case before repetition k + 1
    of any, the first implementation rotating (its --benchmark_list_tests order is its run order)."""

    def test_repetitions_of_a_case_alternate(self):
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
        exe = os.environ.get("MPK_BENCH_EXE", os.path.join(root, "build", "bench", "bench", "mpk_bench"))
        out = subprocess.run([exe, "--quick", "--benchmark_list_tests=true", "--benchmark_repetitions=3",
                              "--benchmark_filter=^w3/write/"], capture_output=True, text=True, check=True).stdout
        names = [l for l in out.splitlines() if l.startswith("w3/")]
        impls = [n.split("/")[2] for n in names]
        k = len(set(impls))
        self.assertGreaterEqual(k, 2)
        self.assertEqual(len(impls), 3 * k)
        for r in range(3):  # each round has every implementation once, starting one further
            rnd = impls[r * k:(r + 1) * k]
            self.assertEqual(sorted(rnd), sorted(set(impls)))
            self.assertEqual(rnd, impls[:k][r:] + impls[:k][:r])

    def test_repetitions_run_the_calibrated_count(self):
        # suite::register_benchmarks calibrates each cell once; every repetition then runs
        # that many iterations (named ".../iterations:N"), and --benchmark_filter applies to
        # the cell's own name, so a '$' after the implementation still matches.
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
        exe = os.environ.get("MPK_BENCH_EXE", os.path.join(root, "build", "bench", "bench", "mpk_bench"))
        with tempfile.TemporaryDirectory() as out_dir:
            out = subprocess.run([exe, "--quick", "--benchmark_repetitions=3", "--out", out_dir,
                                  "--benchmark_filter=^w1/write_implicit/mpk$"],
                                 capture_output=True, text=True, check=True).stdout
            with open(os.path.join(out_dir, "small_fields.csv")) as f:
                rows = [r for r in csv.DictReader(f) if r["case"] == "write_implicit"]
        lines = [l.split() for l in out.splitlines() if l.startswith("w1/")]
        self.assertEqual(len(lines), 3)
        names = {l[0] for l in lines}
        self.assertEqual(len(names), 1)
        self.assertRegex(names.pop(), r"^w1/write_implicit/mpk/iterations:\d+$")
        self.assertEqual(len({l[5] for l in lines}), 1)  # the Iterations column
        self.assertEqual([r["implementation"] for r in rows], ["mpk"])
        self.assertEqual(len(rows[0]["repetition_values"].split()), 3)


if __name__ == "__main__":
    unittest.main()
