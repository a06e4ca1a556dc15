#!/usr/bin/python3
"""icount.py EXE OUTDIR [FILTER]: instructions per unit of mpk_bench cells, counted the way the
runner counts them (callgrind from each cell's own start; bench/runner/run.py,
parse_callgrind_dumps). FILTER is a Google Benchmark regex. Writes OUTDIR/counts.json and
prints the exit status of the run and the number of cells counted.

    /usr/bin/python3 bench/runner/icount.py build/bench/bench/mpk_bench /tmp/ic 'w5/serialize_int_array/'
"""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402

exe, out = sys.argv[1], sys.argv[2]
flt = sys.argv[3] if len(sys.argv) > 3 else None
shutil.rmtree(out, ignore_errors=True)
os.makedirs(out)
args = ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--dump-line=no",
        "--callgrind-out-file=" + os.path.join(out, "callgrind.out"),
        exe, "--instructions", "--quick", "--out", os.path.join(out, "tables")]
if flt:
    args.append("--benchmark_filter=" + flt)
with open(os.path.join(out, "log"), "w") as f:
    code = subprocess.run(args, stdout=f, stderr=subprocess.STDOUT).returncode
counts = run.parse_callgrind_dumps(out)
with open(os.path.join(out, "counts.json"), "w") as f:
    json.dump(counts, f, indent=1, sort_keys=True)
print(code, len(counts))
