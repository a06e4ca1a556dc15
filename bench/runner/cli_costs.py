#!/usr/bin/python3
"""cli_costs.py BUILD_DIR OUTDIR [ROUNDS]: where the CPU time of `mpk get .bool` goes, against
`mpk to-json`, on the input of the suite's CLI case (json/cli_select_w7_medium: W7 `medium`
documents back to back, 128 MiB; issue 16). BUILD_DIR is the bench build (build/bench: its
tools/mpk/mpk and bench/mpk_gen); OUTDIR receives the inputs and the skip driver.

Each round runs every command once, in order (interleaved: the load of the shared machine
falls on all of them alike); a command's figure is the CPU time (user + system) of its
process from wait4, output to /dev/null. Printed: median and range of each over ROUNDS
(default 15). The commands:

  get W7, to-json W7   the suite's two commands on its file
  get bins             `mpk get .bool` on a file of the same size with nothing to walk
                       (64 KiB bin32 values, each skipped by its header): process start,
                       reading the file and the stream decoder, the fixed part of get
  get 1 doc            process start (one W7 medium document)
  cat W7               reading the file alone (and cat's start)
  skip checked         mpk::reader::skip() of one W7 medium document in memory, repeated as
                       many times as the file has documents (CPU time of the loop, hot data):
                       the walk that get does over every value it passes
  skip unchecked       the same with mpk::unchecked_reader (no bounds, limit or depth check;
                       for trusted input only): what a walk costs with no checks at all

    /usr/bin/python3 bench/runner/cli_costs.py build/bench /tmp/cli_costs
"""
import os
import statistics
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))

DRIVER = r"""
#include <mpk/reader.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <vector>

static double cpu_ns() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char** argv) {  // DOC c|u REPS: ns per skip of the document
  std::ifstream f(argv[1], std::ios::binary);
  const std::vector<char> c((std::istreambuf_iterator<char>(f)), {});
  std::vector<std::byte> doc(c.size());
  std::memcpy(doc.data(), c.data(), c.size());
  const bool checked = argv[2][0] == 'c';
  const long reps = std::atol(argv[3]);
  std::size_t sum = 0;
  const double t0 = cpu_ns();
  for (long k = 0; k < reps; ++k) {
    if (checked) {
      mpk::reader r(doc);
      r.skip();
      sum += r.ok() ? r.position() : 0;
    } else {
      mpk::unchecked_reader r(doc);
      r.skip();
      sum += r.position();
    }
  }
  const double t1 = cpu_ns();
  std::printf("%.1f %zu\n", (t1 - t0) / static_cast<double>(reps), sum);
  return sum == doc.size() * static_cast<std::size_t>(reps) ? 0 : 1;
}
"""


def main():
    build, out = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 15
    mpk = os.path.join(build, "tools", "mpk", "mpk")
    os.makedirs(out, exist_ok=True)
    subprocess.run([os.path.join(build, "bench", "mpk_gen"), "--out", os.path.join(out, "gen"),
                    "--quick"], check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "gen", "documents", "medium.msgpack"), "rb") as f:
        doc = f.read()
    copies = (128 << 20) // len(doc) + 1  # as bench/json_conversion.cpp
    w7, one, bins = (os.path.join(out, n) for n in ("w7.mp", "one.mp", "bins.mp"))
    with open(w7, "wb") as f:
        f.write(doc * copies)
    with open(one, "wb") as f:
        f.write(doc)
    value = b"\xc6" + struct.pack(">I", 65536) + b"x" * 65536
    with open(bins, "wb") as f:
        f.write(value * (len(doc) * copies // len(value) + 1))
    src, exe = os.path.join(out, "skip_driver.cpp"), os.path.join(out, "skip_driver")
    with open(src, "w") as f:
        f.write(DRIVER)
    subprocess.run(["g++", "-std=c++20", "-O3", "-DNDEBUG", "-I", os.path.join(ROOT, "include"),
                    src, "-o", exe], check=True)

    cmds = [("get W7", [mpk, "get", ".bool", w7]), ("to-json W7", [mpk, "to-json", w7]),
            ("get bins", [mpk, "get", ".bool", bins]), ("get 1 doc", [mpk, "get", ".bool", one]),
            ("cat W7", ["/bin/cat", w7]), ("skip checked", [exe, one, "c", str(copies)]),
            ("skip unchecked", [exe, one, "u", str(copies)])]
    res = {label: [] for label, _ in cmds}
    null = os.open(os.devnull, os.O_WRONLY)
    for _ in range(rounds):
        for label, argv in cmds:
            driver = argv[0] == exe
            rd, wr = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.dup2(wr if driver else null, 1)
                os.execv(argv[0], argv)
            os.close(wr)
            text = os.read(rd, 4096).decode()
            os.close(rd)
            _, status, ru = os.wait4(pid, 0)
            if status != 0:
                sys.exit(f"{label} failed ({status})")
            ms = (ru.ru_utime + ru.ru_stime) * 1e3
            if driver:
                ms = float(text.split()[0]) * copies / 1e6
            res[label].append(ms)
    size = len(doc) * copies
    med = {label: statistics.median(v) for label, v in res.items()}
    print(f"{copies} W7 medium documents, {size} bytes; {rounds} interleaved rounds; CPU ms")
    for label, v in res.items():
        v.sort()
        print(f"  {label:15s} {med[label]:7.1f}  ({v[0]:.1f}-{v[-1]:.1f})  "
              f"{med[label] * 1e6 / size:.3f} ns/byte")
    print(f"to-json / get: {med['to-json W7'] / med['get W7']:.2f}")
    walk = med["get W7"] - med["get bins"]
    print(f"get's walk and selection (get W7 - get bins): {walk:.1f} ms; "
          f"{walk * 1e6 / copies:.0f} ns per document")
    print(f"to-json / (get bins + skip checked): "
          f"{med['to-json W7'] / (med['get bins'] + med['skip checked']):.2f}; "
          f"/ (get bins + skip unchecked): "
          f"{med['to-json W7'] / (med['get bins'] + med['skip unchecked']):.2f}")
    print(f"get at 5x to-json: at most {med['to-json W7'] / 5:.1f} ms, "
          f"{(med['to-json W7'] / 5 - med['get bins']) * 1e6 / copies:.0f} ns per document "
          f"beyond get bins")


if __name__ == "__main__":
    main()
