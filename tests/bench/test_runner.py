"""Unit tests of the benchmark runner's logic: the wording of byte differences, the shared
format, the report's tables and the comparison of two result folders. Run by
tests/bench/run_quick (python3 -m unittest)."""
import json
import os
import struct
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "runner"))
import explain  # noqa: E402
import report  # noqa: E402
import run  # noqa: E402
from resultformat import FIELDS, read_rows, write_rows  # noqa: E402


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
        self.assertIn("| 2.00x |", open(out).read())


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


if __name__ == "__main__":
    unittest.main()
