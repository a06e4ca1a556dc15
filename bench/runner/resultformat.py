"""The shared result format of the benchmark suite (docs/benchmark-suite.md): one CSV row per
cell (workload, case, implementation), written by every harness and merged by the runner."""
import csv

# Every harness writes CORE; the runner adds the optional columns (instructions per unit of
# the C++ cells, counted by callgrind) to the merged files.
CORE = ["workload", "case", "implementation", "language", "version", "unit", "ns_per_unit",
        "spread_pct", "repetitions", "noisy", "verdict", "verification", "encoded_bytes",
        "alloc_bytes_per_op", "allocs_per_op"]
OPTIONAL = ["instructions_per_unit"]
FIELDS = CORE + OPTIONAL

VERDICTS = ("same_bytes", "different_bytes", "same_values", "wrong_values", "error")


def read_rows(path):
    with open(path, newline="") as f:
        r = csv.DictReader(f)
        if r.fieldnames != CORE and r.fieldnames != FIELDS:
            raise ValueError("%s: header %s is not the shared format %s" % (path, r.fieldnames, FIELDS))
        rows = [dict({k: "" for k in OPTIONAL}, **row) for row in r]
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
