"""The shared result format of the benchmark suite (docs/benchmark-suite.md): one CSV row per
cell (workload, case, implementation), written by every harness and merged by the runner;
and the statistics of a cell's repetitions (its median, its spread, whether it is noisy)."""
import csv
import statistics

# Every harness writes HARNESS: the columns of a cell, and the time of every repetition in
# the order they ran (`repetitions_ns`); the runner computes the spread columns from those
# (cell_stats) and adds the instructions per unit of the C++ cells (callgrind).
CORE = ["workload", "case", "implementation", "language", "version", "unit", "ns_per_unit",
        "spread_pct", "range_pct", "repetitions", "noisy", "verdict", "verification", "encoded_bytes",
        "alloc_bytes_per_op", "allocs_per_op"]
OPTIONAL = ["instructions_per_unit", "repetitions_ns"]
FIELDS = CORE + OPTIONAL
# The columns without which a file is not in the format (earlier runs have no range_pct,
# no repetitions_ns: their spread_pct is the range, see read_rows).
REQUIRED = [c for c in CORE if c != "range_pct"]

VERDICTS = ("same_bytes", "different_bytes", "same_values", "wrong_values", "error")

# A cell is noisy when its spread (the robust one, below) is over this, in % of the median.
NOISY_PCT = 5.0


def median(values):
    return statistics.median(values)


def spread_pct(values):
    """The robust spread of a cell's repetitions, in % of their median: the median absolute
    deviation from the median (MAD) over the median. It is at most 5% exactly when at least
    half of the repetitions lie within 5% of the median (3 of 5: the median's own and two
    more), so one or two repetitions slowed by a neighbour's burst do not make it large, as
    they do not move the median either; it grows when the repetitions disagree among
    themselves. 0 for fewer than 2 repetitions."""
    if len(values) < 2:
        return 0.0
    m = median(values)
    if m <= 0:
        return 0.0
    return median([abs(v - m) for v in values]) / m * 100.0


def range_pct(values):
    """The range of a cell's repetitions, (max - min) / median, in %: the spread of the runs
    before 2026-12 (one slow repetition of five sets it)."""
    if len(values) < 2:
        return 0.0
    m = median(values)
    return (max(values) - min(values)) / m * 100.0 if m > 0 else 0.0


def parse_repetitions(text):
    """The repetitions_ns column: nanoseconds per unit of each repetition, space-separated."""
    return [float(x) for x in (text or "").split()]


def format_repetitions(values):
    return " ".join("%.4g" % v if v >= 1e5 else "%.4f" % v for v in values)


def cell_stats(row):
    """Sets a row's spread_pct, range_pct and noisy from its repetitions_ns (no change when it
    has none, e.g. an untimed cell). Returns the row."""
    values = parse_repetitions(row.get("repetitions_ns"))
    if values:
        s, r = spread_pct(values), range_pct(values)
        row["spread_pct"], row["range_pct"] = "%.2f" % s, "%.2f" % r
        row["noisy"] = "yes" if s > NOISY_PCT else "no"
        row["repetitions"] = str(len(values))
    return row


def read_rows(path):
    """The rows of a CSV in the shared format, every column of FIELDS present (missing
    optional columns empty). A file of an earlier run (no range_pct column) had only the
    range, in spread_pct, and flagged noisy on it: its rows get range_pct = that range and an
    empty spread_pct (no robust spread was recorded); noisy stays as it was."""
    with open(path, newline="") as f:
        r = csv.DictReader(f)
        names = r.fieldnames or []
        missing = [c for c in REQUIRED if c not in names]
        unknown = [c for c in names if c not in FIELDS]
        if missing or unknown:
            raise ValueError("%s: header %s is not the shared format %s (missing %s, unknown %s)"
                             % (path, names, FIELDS, missing, unknown))
        rows = [dict({k: "" for k in FIELDS}, **row) for row in r]
    if "range_pct" not in names:
        for row in rows:
            row["range_pct"], row["spread_pct"] = row["spread_pct"], ""
    for row in rows:
        if row["verdict"] not in VERDICTS:
            raise ValueError("%s: unknown verdict %r" % (path, row["verdict"]))
    return rows


def write_rows(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, lineterminator="\n")
        w.writeheader()
        for row in rows:
            w.writerow({k: row.get(k, "") for k in FIELDS})
