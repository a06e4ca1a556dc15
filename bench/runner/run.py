#!/usr/bin/python3
"""The mpk benchmark suite runner: builds, runs every harness, writes the result folder.

    run.py [--quick | --full] [--only W,IMPL,...] [--out DIR] [--no-setup] [--no-build]
    run.py --compare DIR_A DIR_B [--out FILE]

Runs with Debian's /usr/bin/python3 (python3-matplotlib draws the charts). scripts/bench is
the user-facing command; docs/benchmark-suite.md describes the run, the shared result format
and how to read the report.
"""
import argparse
import concurrent.futures
import csv
import datetime
import json
import os
import platform
import re
import shutil
import socket
import subprocess
import tempfile
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)

import explain  # noqa: E402
import report  # noqa: E402
from resultformat import cell_stats, format_repetitions, read_rows, write_rows  # noqa: E402

BUILD_DIR_DEFAULT = os.path.join(ROOT, "build", "bench")


DOTNET_DIR = os.path.join(ROOT, "bench", "harness", "dotnet")
DOTNET_DLL = os.path.join(DOTNET_DIR, "bin", "Release", "net10.0", "MpkBench.dll")
# Languages whose harness needs a tool that may be missing: the report marks their cells.
NOT_RUN_NO_DOTNET = "not run: no .NET SDK (`dotnet` is not on PATH)"


def dotnet_up_to_date():
    """True when the .NET harness's build is newer than its sources (a build of an unchanged
    project still costs 5-40 s of MSBuild start-up)."""
    if not os.path.exists(DOTNET_DLL):
        return False
    built = os.path.getmtime(DOTNET_DLL)
    for name in os.listdir(DOTNET_DIR):
        if name.endswith((".cs", ".csproj", ".json")) and os.path.getmtime(os.path.join(DOTNET_DIR, name)) > built:
            return False
    return True


def build_dotnet():
    """Builds the .NET harness (Release; NuGet packages restored in locked mode from
    packages.lock.json) unless it is up to date. False, with the reason on stderr, when it
    does not build."""
    if dotnet_up_to_date():
        return True
    r = subprocess.run(["dotnet", "build", DOTNET_DIR, "-c", "Release", "-p:RestoreLockedMode=true", "-nologo",
                        "-v", "quiet"], capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stdout[-3000:] + r.stderr[-3000:])
    return r.returncode == 0


def harnesses(ref, quick, short=False):
    """The harnesses: name, command line (without --out/--only/--list), environment. `short`
    (the default mode): MPK_BENCH_SHORT=1, shorter batches of the same data. The .NET harness
    is there when `dotnet` is on PATH (machine.json and the report say when not)."""
    q = ["--quick"] if quick else []
    if short:
        os.environ["MPK_BENCH_SHORT"] = "1"
    else:
        os.environ.pop("MPK_BENCH_SHORT", None)
    lua_env = dict(os.environ, LUA_PATH="/usr/share/lua/5.3/?.lua;;")
    h = os.path.join(ROOT, "bench", "harness")
    dotnet = [("dotnet", ["dotnet", DOTNET_DLL, "--ref", ref] + q, None)] if shutil.which("dotnet") else []
    return [
        ("python", ["/usr/bin/python3", os.path.join(h, "python", "harness.py"), "--ref", ref] + q, None),
        # --expose-gc: the harness collects garbage before each repetition (docs/benchmark-suite.md).
        ("js", ["node", "--expose-gc", os.path.join(h, "js", "harness.js"), "--ref", ref] + q, None),
        ("lua5.4", ["lua5.4", os.path.join(h, "lua", "harness.lua"), "--ref", ref] + q, lua_env),
        ("luajit", ["luajit", os.path.join(h, "lua", "harness.lua"), "--ref", ref] + q, None),
        ("ruby", ["ruby", os.path.join(h, "ruby", "harness.rb"), "--ref", ref] + q, None),
    ] + dotnet


# --- progress -------------------------------------------------------------------------------

class Progress:
    """A progress bar with an estimate of the time left, on stderr. When stderr is not a
    terminal (CI, logs) it prints a line every 10% instead of redrawing."""

    def __init__(self, total):
        self.total, self.done, self.start = max(total, 1), 0, time.monotonic()
        self.tty = sys.stderr.isatty()
        self.last_decile = -1

    def step(self, what, amount=1.0):
        self.done += amount
        elapsed = time.monotonic() - self.start
        eta = elapsed / self.done * max(self.total - self.done, 0)
        frac = min(self.done / self.total, 1.0)
        bar = "#" * int(frac * 30) + "." * (30 - int(frac * 30))
        line = "[%s] %3d%% %.0f/%d  elapsed %s  left ~%s  %s" % (
            bar, frac * 100, self.done, self.total, fmt_time(elapsed),
            fmt_time(eta) if self.done >= 3 else "?", what)
        if self.tty:
            sys.stderr.write("\r\x1b[2K" + line[:shutil.get_terminal_size().columns - 1])
            sys.stderr.flush()
        elif int(frac * 10) != self.last_decile:
            self.last_decile = int(frac * 10)
            sys.stderr.write(line + "\n")

    def finish(self):
        if self.tty:
            sys.stderr.write("\n")


def fmt_time(s):
    s = int(s)
    return "%d:%02d" % (s // 60, s % 60)


START = time.monotonic()


def log(msg):
    """A line of the run's log on stderr, with the time since the runner started (m:ss), so
    that a log tells where the run's time went."""
    sys.stderr.write(("\n" if sys.stderr.isatty() else "") + "==> [%s] %s\n" % (fmt_time(time.monotonic() - START), msg))
    sys.stderr.flush()


def run(cmd, **kw):
    log("$ " + " ".join(cmd))
    subprocess.run(cmd, check=True, **kw)


# --- machine.json ----------------------------------------------------------------------------

def out_of(cmd, env=None):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=30, env=env)
        return (r.stdout + r.stderr).strip()
    except (OSError, subprocess.SubprocessError):
        return None


def git_commit():
    """The short commit measured, or None outside a git checkout (e.g. an exported tree)."""
    r = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else None


def nuget_packages():
    """The NuGet packages of the .NET harness and their versions, from its lock file."""
    try:
        with open(os.path.join(DOTNET_DIR, "packages.lock.json")) as f:
            deps = next(iter(json.load(f)["dependencies"].values()))
        return {name: d["resolved"] for name, d in deps.items() if d.get("type") == "Direct"}
    except (OSError, ValueError, StopIteration, KeyError):
        return {}


DEB_PACKAGES = ["libmsgpack-cxx-dev", "libmsgpack-dev", "nlohmann-json3-dev", "libsimdjson-dev", "rapidjson-dev",
                "libbenchmark-dev", "python3-msgpack", "python3-matplotlib", "lua-messagepack", "lua5.4", "luajit",
                "ruby-msgpack", "ruby", "nodejs", "g++", "clang-14", "cmake"]


def machine_info(build_dir):
    cpu = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    mem = None
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal"):
                mem = "%.1f GiB" % (int(line.split()[1]) / 1024 / 1024)
    compiler = None
    cache = os.path.join(build_dir, "CMakeCache.txt")
    if os.path.exists(cache):
        with open(cache) as f:
            for line in f:
                if line.startswith("CMAKE_CXX_COMPILER:"):
                    compiler = line.split("=", 1)[1].strip()
                if line.startswith("CMAKE_BUILD_TYPE:"):
                    build_type = line.split("=", 1)[1].strip()
    js_dir = os.path.join(ROOT, "bench", "harness", "js")
    # The versions: every command at once (one by one they took ~5 s, npm ls 1.8 of it).
    cmds = {("deb", p): ["dpkg-query", "-W", "-f=${Version}", p] for p in DEB_PACKAGES}
    cmds.update({
        "npm": ["npm", "ls", "--json", "--depth=0", "--prefix", js_dir],
        "os": ["sh", "-c", ". /etc/os-release && echo $PRETTY_NAME"],
        "cmake": ["cmake", "--version"], "python": ["/usr/bin/python3", "--version"],
        "node": ["node", "--version"], "lua5.4": ["lua5.4", "-v"], "luajit": ["luajit", "-v"],
        "ruby": ["ruby", "--version"]})
    if compiler:
        cmds["cxx"] = [compiler, "--version"]
    if shutil.which("dotnet"):
        cmds["dotnet"] = ["dotnet", "--version"]
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        got = dict(zip(cmds, pool.map(out_of, cmds.values())))

    deb = {p: got[("deb", p)] or "not installed" for p in DEB_PACKAGES}
    npm = {}
    ls = got["npm"]
    try:
        for name, d in json.loads(ls or "{}").get("dependencies", {}).items():
            npm[name] = d.get("version")
    except ValueError:
        pass
    commit = git_commit()
    dirty = subprocess.run(["git", "-C", ROOT, "diff", "--quiet", "HEAD"], capture_output=True).returncode == 1
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "host": socket.gethostname(),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory": mem,
        "kernel": " ".join(platform.uname()[i] for i in (0, 2, 4)),
        "os": got["os"],
        "commit": (commit or "unknown") + (" (with local changes)" if dirty else ""),
        "cxx_compiler": compiler,
        "cxx_compiler_version": (got["cxx"] or "").splitlines()[0] if compiler else None,
        "cxx_build_type": locals().get("build_type"),
        "cmake": (got["cmake"] or "").splitlines()[0],
        "python": got["python"],
        "node": got["node"],
        "lua5.4": got["lua5.4"],
        "luajit": got["luajit"],
        "ruby": got["ruby"],
        "dotnet": got.get("dotnet", NOT_RUN_NO_DOTNET),
        "nuget_packages": nuget_packages(),
        "debian_packages": deb,
        "npm_packages": npm,
        "load_average_at_start": open("/proc/loadavg").read().split()[:3],
    }


# --- the C++ harness (mpk_bench) -------------------------------------------------------------

CPP_VERDICTS = [("reference bytes", "same_bytes"), ("same bytes", "same_bytes"), ("different bytes", "different_bytes"),
                ("same values", "same_values"), ("wrong", "wrong_values"), ("error", "error")]


# Rates a C++ table may give instead of ns_per_<unit>: (unit, ns per unit from the rate).
RATES = {
    "ops_per_s": ("op", lambda v: 1e9 / v),
    "mb_per_s": ("byte", lambda v: 1e3 / v),
    "mib_per_s": ("byte", lambda v: 1e9 / (v * 1048576)),
    "gb_per_s": ("byte", lambda v: 1.0 / v),
    "gib_per_s": ("byte", lambda v: 1e9 / (v * 1073741824)),
}


def cpp_unit(column):
    """The unit of mpk_bench's median column and a function giving ns per unit from its
    values: ns_per_<unit>_median, or a rate (<rate>_median, RATES)."""
    m = re.match(r"^ns_per_(.+)_median$", column)
    if m:
        return m.group(1), float
    m = re.match(r"^(.+)_median$", column)
    if m and m.group(1).lower() in RATES:
        unit, conv = RATES[m.group(1).lower()]
        return unit, lambda text: conv(float(text))
    raise ValueError("mpk_bench CSV: unknown median column %r (ns_per_<unit>_median or %s)" % (
        column, ", ".join(k + "_median" for k in RATES)))


# Language of a C++ harness implementation (msgpack-c is C), and its Debian package.
CPP_PACKAGES = [  # (prefix of the implementation name, language, Debian package)
    ("mpk", "C++", None),
    ("msgpack-cxx", "C++", "libmsgpack-cxx-dev"),
    ("msgpack-c", "C", "libmsgpack-dev"),
    ("nlohmann", "C++", "nlohmann-json3-dev"),
    ("simdjson", "C++", "libsimdjson-dev"),
    ("rapidjson", "C++", "rapidjson-dev"),
]


def cpp_package(impl):
    for prefix, lang, pkg in CPP_PACKAGES:
        if impl.lower().startswith(prefix):
            return lang, pkg
    return "C++", None


def cpp_rows(cpp_dir, machine):
    """Converts mpk_bench's CSVs (workload,case,implementation,ns_per_<unit>_median or a
    rate, spread_pct,repetitions,verification,range_pct,repetition_values: the value of every
    repetition in the median column's unit, space-separated, in the order they ran) to
    the shared format; the spread columns are computed from the repetitions (cell_stats), or,
    for tables of earlier runs without them, the range mpk_bench gave."""
    rows = []
    if not os.path.isdir(cpp_dir):
        return rows
    for name in sorted(os.listdir(cpp_dir)):
        if not name.endswith(".csv"):
            continue
        with open(os.path.join(cpp_dir, name), newline="") as f:
            r = csv.reader(f)
            header = next(r)
            unit, to_ns = cpp_unit(header[3])
            for rec in r:
                w, c, impl, med, spread, reps, ver = rec[:7]
                values = [to_ns(x) for x in rec[header.index("repetition_values")].split()] \
                    if "repetition_values" in header and med else []
                verdict = "same_values"
                low = ver.lower()
                for prefix, v in CPP_VERDICTS:
                    if low.startswith(prefix) or (prefix == "wrong" and "wrong" in low):
                        verdict = v
                        break
                if not med and verdict != "wrong_values":
                    verdict = "error"
                rows.append(cell_stats({
                    "workload": w, "case": c, "implementation": impl, "language": cpp_package(impl)[0],
                    "version": machine.get("cpp_versions", {}).get(impl, ""), "unit": unit,
                    "ns_per_unit": "%.4f" % to_ns(med) if med else "", "spread_pct": "", "range_pct": spread,
                    "repetitions": reps, "noisy": "" if not spread else ("yes" if float(spread) > 5 else "no"),
                    "verdict": verdict, "verification": ver, "encoded_bytes": "",
                    "alloc_bytes_per_op": "", "allocs_per_op": "", "repetitions_ns": format_repetitions(values),
                }))
    return rows


def refresh_cpp_rows(out_dir):
    """Converts <raw>/cpp/ again into the workload CSVs (after a change of the conversion),
    keeping every other row as it is."""
    with open(os.path.join(out_dir, "machine.json")) as f:
        machine = json.load(f)
    cpp_dir = os.path.join(machine.get("raw_dir") or os.path.join(out_dir, "raw"), "cpp")
    if not os.path.isdir(cpp_dir):
        return
    fresh = cpp_rows(cpp_dir, machine)
    for w in {r["workload"] for r in fresh}:
        path = os.path.join(out_dir, w + ".csv")
        old = read_rows(path) if os.path.exists(path) else []
        counts = {(r["case"], r["implementation"]): r.get("instructions_per_unit", "") for r in old}
        for r in fresh:
            r["instructions_per_unit"] = counts.get((r["case"], r["implementation"]), "")
        write_rows(path, [r for r in fresh if r["workload"] == w] + [r for r in old if r["language"] not in ("C++", "C")])


def cpp_versions(impls):
    """The version of every C++/C implementation in mpk_bench's tables: mpk's from
    CMakeLists.txt and the commit, the peers' from their Debian packages."""
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        m = re.search(r"project\(mpk\s+VERSION\s+([0-9.]+)", f.read())
        mpk = m.group(1) if m else "?"
    v = {}
    for impl in impls:
        _, pkg = cpp_package(impl)
        if pkg is None:
            v[impl] = "mpk %s (commit %s)" % (mpk, git_commit() or "unknown")
        else:
            v[impl] = "%s %s (Debian %s)" % (impl.split("-parse")[0], out_of(["dpkg-query", "-W", "-f=${Version}", pkg])
                                             or "?", pkg)
    return v


# --- instruction counts (callgrind) ---------------------------------------------------------

def instruction_counts(exe, only, work_dir, progress=None):
    """Instructions per unit of every C++ cell: mpk_bench --instructions --quick under
    callgrind (reduced data; one pass per cell, counted from its start to its end: see
    time_passes in bench/support/suite.hpp). Returns ({cell id: instructions per unit}, exit
    status); ({}, None) when valgrind is not installed."""
    if not shutil.which("valgrind"):
        return {}, None
    shutil.rmtree(work_dir, ignore_errors=True)
    os.makedirs(work_dir)
    args = ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--dump-line=no",
            "--callgrind-out-file=" + os.path.join(work_dir, "callgrind.out"),
            exe, "--instructions", "--quick", "--out", os.path.join(work_dir, "tables")]
    flt = cpp_filter(only)
    if flt:
        args.append("--benchmark_filter=" + flt)
    with open(os.path.join(work_dir, "mpk_bench.log"), "w") as logf:
        code = subprocess.run(args, stdout=logf, stderr=subprocess.STDOUT).returncode
    return parse_callgrind_dumps(work_dir), code


def callgrind_dump(path):
    """(desc, total Ir) of one callgrind dump: the client request it was dumped at (None for
    other triggers, e.g. the program's end) and its total."""
    desc, total = None, None
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("desc: Trigger: Client Request: "):
                desc = line[len("desc: Trigger: Client Request: "):].strip()
            elif line.startswith("totals:") or (total is None and line.startswith("summary:")):
                total = int(line.split()[1])
    return desc, total


def children_total(directory):
    """The total Ir of the dumps in `directory` (one per process, written at its end), or None
    when there are none or one has no total (a process that did not finish)."""
    try:
        names = [n for n in sorted(os.listdir(directory)) if n.startswith("callgrind.out")]
    except OSError:
        return None
    totals = [callgrind_dump(os.path.join(directory, n))[1] for n in names]
    return sum(totals) if totals and None not in totals else None


def parse_callgrind_dumps(work_dir):
    """{cell id: instructions per unit} from callgrind's dumps named "<benchmark> units=N"
    (CALLGRIND_DUMP_STATS_AT in time_passes): the dump's total Ir / N. A cell that times child
    processes names the directory of their dumps ("<benchmark> units=N children=DIR",
    count_children in bench/support/suite.cpp): their total Ir / N, not mpk_bench's."""
    counts = {}
    for name in sorted(os.listdir(work_dir)):
        if not name.startswith("callgrind.out"):
            continue
        desc, total = callgrind_dump(os.path.join(work_dir, name))
        m = re.match(r"^(\S+) units=(\d+)(?: children=(.+))?$", desc or "")
        if m and m.group(3):
            total = children_total(m.group(3))
        if m and total is not None and int(m.group(2)) > 0:
            counts[cpp_cell_id(m.group(1))] = total / int(m.group(2))
    return counts


# --- the run ---------------------------------------------------------------------------------

def count_cpp(exe, quick, only):
    args = [exe, "--benchmark_list_tests=true"] + (["--quick"] if quick else [])
    flt = cpp_filter(only)
    if flt:
        args.append("--benchmark_filter=" + flt)
    # Not out_of: its 30 s timeout, which listing passes on a busy machine (56-75 s seen at a
    # load of 8-11), would leave the C++ cells out of the run.
    r = subprocess.run(args, capture_output=True, text=True)
    return [l for l in (r.stdout + r.stderr).splitlines() if re.match(r"^w\d+/", l)]


CPP_WORKLOADS = {"w1": "small_fields", "w2": "strings_binary", "w3": "flat_maps", "w4": "deep_nesting",
                 "w5": "typed_objects", "w6": "lua_bench", "w7": "documents", "json": "json_conversion"}


def cpp_cell_id(name):
    """mpk_bench's benchmark name w<N>/<case>/<impl>[/...] as the runner's cell id."""
    parts = name.split("/")
    return "/".join([CPP_WORKLOADS.get(parts[0], parts[0])] + parts[1:3])


def cpp_filter(only):
    """--only words as a Google Benchmark regex over w<N>/<case>/<impl>."""
    if not only:
        return None
    alias = {w: k + "/" for k, w in CPP_WORKLOADS.items()}
    # Escapes only the metacharacters: Google Benchmark's regex refuses re.escape's "\-"
    # ("Invalid escape"), so --only msgpack-cxx listed no C++ cell.
    return "|".join(re.sub(r"([.^$|?*+()\[\]{}\\])", r"\\\1", alias.get(w, w)) for w in only)


MATRIX = [  # W8: name, compiler, flags of the Release build
    ("gcc -O2", "g++", "-O2"),
    ("gcc -O3 -march=native", "g++", "-O3 -march=native"),
    ("clang -O2", "clang++-14", "-O2"),
    ("clang -O3 -march=native", "clang++-14", "-O3 -march=native"),
]


M32_TOOLCHAIN = os.path.join(ROOT, "cmake", "toolchains", "i386.cmake")  # the i386 preset's


def m32_available():
    """None when the -m32 column can be built and run here, else why not. It needs GCC's 32-bit
    libraries and the i386 Google Benchmark, simdjson and msgpack-c (scripts/setup installs
    them: g++-12-multilib and multiarch packages), and a kernel that runs 32-bit x86 programs:
    not every x86-64 kernel does (docs/platforms.md), and a time under an emulator would not
    compare with the other columns."""
    probe_exe = os.path.join(tempfile.mkdtemp(prefix="mpk-m32-"), "probe")
    try:
        probe = subprocess.run(["g++", "-m32", "-x", "c++", "-", "-o", probe_exe], input="int main(){}",
                               capture_output=True, text=True)
        if probe.returncode != 0 or not all(os.path.exists("/usr/lib/i386-linux-gnu/" + f) for f in (
                "libbenchmark.so", "libsimdjson.so.14", "libmsgpackc.so.2")):
            return ("not available: no 32-bit C library and Google Benchmark on this machine "
                    "(g++-12-multilib, libbenchmark-dev:i386: scripts/setup)")
        try:
            ran = subprocess.run([probe_exe], capture_output=True).returncode == 0
        except OSError:
            ran = False
        return None if ran else ("not run: this kernel does not run 32-bit x86 programs (a time "
                                 "under an emulator would not compare with the other columns)")
    finally:
        shutil.rmtree(os.path.dirname(probe_exe), ignore_errors=True)


def run_matrix(a, raw, machine):
    """W8: mpk's benchmarks of mpk_bench built by each compiler and flag set of MATRIX; rows
    of workload build_matrix, one column per build. Returns the rows and the exit statuses."""
    rows, status = [], {}
    configs = list(MATRIX)
    why_not_m32 = m32_available()
    if why_not_m32 is None:
        configs.append(("gcc -O2 -m32", "g++", "-O2 -m32"))  # built with M32_TOOLCHAIN
        machine["matrix_m32"] = "built"
    else:
        machine["matrix_m32"] = why_not_m32
    for name, cxx, flags in configs:
        slug = re.sub(r"[^a-z0-9]+", "-", name.lower())
        build = os.path.join(ROOT, "build", "matrix-" + slug)
        try:
            subprocess.run(["cmake", "-S", ROOT, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                            "-DCMAKE_CXX_COMPILER=" + cxx, "-DCMAKE_CXX_FLAGS_RELEASE=%s -DNDEBUG" % flags,
                            "-DMPK_BUILD_BENCH=ON", "-DMPK_BUILD_TESTS=OFF", "-DMPK_BUILD_TOOLS=OFF",
                            "-DMPK_INSTALL=OFF"] +
                           (["-DCMAKE_TOOLCHAIN_FILE=" + M32_TOOLCHAIN] if "-m32" in flags else []),
                           check=True, capture_output=True)
            log("W8: build mpk_bench with %s %s" % (cxx, flags))
            subprocess.run(["cmake", "--build", build, "-j", "2", "--target", "mpk_bench"], check=True,
                           capture_output=True)
        except subprocess.CalledProcessError as e:
            sys.stderr.write((e.stdout or b"").decode()[-2000:] + (e.stderr or b"").decode()[-2000:])
            status["matrix " + name] = "build failed"
            continue
        out = os.path.join(raw, "matrix", slug)
        log("W8: run mpk_bench (%s), mpk cells of W1-W4" % name)
        with open(os.path.join(raw, "matrix-%s.log" % slug), "w") as logf:
            code = subprocess.run([os.path.join(build, "bench", "mpk_bench"), "--out", out,
                                   "--benchmark_filter=^w[1-4]/.*/mpk$"] + (["--quick"] if a.quick else []),
                                  stdout=logf, stderr=subprocess.STDOUT).returncode
        status["matrix " + name] = code
        for r in cpp_rows(out, machine):
            r["case"] = "%s: %s" % (r["workload"], r["case"])
            r["workload"] = "build_matrix"
            r["implementation"] = "mpk, " + name
            r["version"] = "%s (%s) %s" % (cxx, (out_of([cxx, "--version"]) or "").splitlines()[0], flags)
            rows.append(r)
    return rows, status


def main_run(a):
    only = [s for s in (a.only or "").split(",") if s]
    if not a.no_setup:
        run([os.path.join(ROOT, "scripts", "setup"), "--quiet"])
        js_dir = os.path.join(ROOT, "bench", "harness", "js")
        stamp = os.path.join(js_dir, "node_modules", ".package-lock.json")
        lock = os.path.join(js_dir, "package-lock.json")
        if not os.path.exists(stamp) or os.path.getmtime(stamp) < os.path.getmtime(lock):
            run(["npm", "ci", "--no-audit", "--no-fund", "--prefix", js_dir])
    build = a.build_dir
    if not a.no_build:
        if build == BUILD_DIR_DEFAULT:
            run(["cmake", "--preset", "bench"], cwd=ROOT)
        else:
            run(["cmake", "-S", ROOT, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                 "-DMPK_BUILD_BENCH=ON", "-DMPK_BUILD_TESTS=OFF"])
        run(["cmake", "--build", build, "-j", "2", "--target", "mpk_bench", "mpk_gen"])
    if shutil.which("dotnet") and not a.no_build and not build_dotnet():
        raise SystemExit("bench: the .NET harness (bench/harness/dotnet) does not build")
    exe = os.path.join(build, "bench", "mpk_bench")
    gen = os.path.join(build, "bench", "mpk_gen")
    # mpk_bench lists its cells only after making every workload's data (~10 s of CPU): in the
    # background, while the machine information, the reference data and the harnesses' lists
    # are made.
    load_at_start = open("/proc/loadavg").read().split()[:3]  # before the runner's own load
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=8)
    cpp_list = pool.submit(count_cpp, exe, a.quick, only)

    if a.out:
        out_dir = os.path.abspath(a.out)
    else:
        slug = re.sub(r"[^a-z0-9]+", "-", socket.gethostname().lower()).strip("-")  # machine_info's host
        out_dir = os.path.join(ROOT, "results", "%s-%s%s" % (
            slug, datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H%MZ"),
            "-quick" if a.quick else ""))
    os.makedirs(out_dir, exist_ok=True)
    # The harnesses' own CSVs and logs, the reference encodings and the C++ tables: outside
    # the result folder (a result folder is what a repository may carry).
    raw = os.path.abspath(a.raw_dir) if a.raw_dir else os.path.join(ROOT, "build", "bench-raw",
                                                                       os.path.basename(out_dir))
    ref = os.path.join(raw, "ref")
    bytes_dir = os.path.join(raw, "bytes")
    for d in (ref, bytes_dir):
        shutil.rmtree(d, ignore_errors=True)
    shutil.rmtree(os.path.join(raw, "cpp"), ignore_errors=True)
    os.makedirs(raw, exist_ok=True)
    log("results in %s (logs in %s)" % (out_dir, raw))
    gen_cmd = [gen, "--out", ref] + (["--quick"] if a.quick else [])
    log("$ " + " ".join(gen_cmd))
    gen_run = pool.submit(subprocess.run, gen_cmd)  # while the machine information is gathered
    log("machine information")
    machine = machine_info(build)
    machine["load_average_at_start"] = load_at_start
    if gen_run.result().returncode != 0:
        raise subprocess.CalledProcessError(gen_run.result().returncode, gen_cmd)

    # Plan: every cell of every harness, for the progress bar.
    log("list the cells")
    hs = harnesses(ref, a.quick, short=not a.quick and not a.full)
    plan = {}
    lists = [pool.submit(subprocess.run, cmd + ["--list"] + (["--only", ",".join(only)] if only else []),
                         capture_output=True, text=True, env=env) for _, cmd, env in hs]  # all at once
    for (name, _, _), lst in zip(hs, lists):
        lst = lst.result()
        if lst.returncode != 0:
            sys.stderr.write(lst.stderr)
            raise SystemExit("bench: the %s harness cannot list its cells" % name)
        plan[name] = [l for l in lst.stdout.splitlines() if l]
    cpp_cells = cpp_list.result()
    pool.shutdown()
    total = len(cpp_cells) + sum(len(v) for v in plan.values())
    log("%d cells: C++ %d, %s" % (total, len(cpp_cells), ", ".join("%s %d" % (k, len(v)) for k, v in plan.items())))
    progress = Progress(total)  # started once the plan is known: listing is not a cell
    status = {}

    # C++: mpk_bench writes its tables into <raw>/cpp/.
    cpp_dir = os.path.join(raw, "cpp")
    if cpp_cells:
        log("C++ (mpk_bench): %d cells" % len(cpp_cells))
        args = [exe, "--out", cpp_dir] + (["--quick"] if a.quick else ["--full"] if a.full else [])
        flt = cpp_filter(only)
        if flt:
            args.append("--benchmark_filter=" + flt)
        # mpk_bench prints one line per repetition, the repetitions of a case's
        # implementations interleaved: each line is a fraction of a cell. Its name ends in
        # "/iterations:N" (the calibrated count, suite::register_benchmarks), which the
        # listing's names have not.
        reps = 1 if a.quick else 5
        lines = 0
        with open(os.path.join(raw, "cpp.log"), "w") as logf:
            p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for line in p.stdout:
                logf.write(line)
                m = re.match(r"^(w\d+/[^ ]+?)(/iterations:\d+)?(/repeats:\d+)?(_mean|_median|_stddev|_cv)?\s", line)
                if m and m.group(1) in cpp_cells and not m.group(4) and lines < len(cpp_cells) * reps:
                    lines += 1
                    progress.step("C++ " + m.group(1), 1.0 / reps)
            status["C++ (mpk_bench)"] = p.wait()
        progress.done = float(len(cpp_cells))  # filtered or failed benchmarks: keep the count right
    counts = {}
    # Instruction counts: in the default and full modes, or asked for (--instructions); a quick
    # run stays a quick smoke test (callgrind needs ~1 min even for one workload's cells).
    if cpp_cells and (a.instructions or not a.quick) and not a.no_instructions:
        log("C++: instructions per unit (callgrind, --quick data): %d cells" % len(cpp_cells))
        t0 = time.monotonic()
        counts, code = instruction_counts(exe, only, os.path.join(raw, "callgrind"))
        if code is None:
            machine["instructions"] = "not counted: valgrind is not installed"
        else:
            status["C++ instructions (callgrind)"] = code
            machine["instructions"] = ("callgrind (valgrind), mpk_bench --instructions --quick: one pass per "
                                       "cell on the quick data; %d cells in %.0f s" % (len(counts),
                                                                                     time.monotonic() - t0))

    for name, cmd, env in hs:
        if not plan[name]:
            continue
        out_csv = os.path.join(raw, name + ".csv")
        log("%s: %d cells" % (name, len(plan[name])))
        args = cmd + ["--out", out_csv, "--bytes-dir", bytes_dir] + (["--only", ",".join(only)] if only else [])
        with open(os.path.join(raw, name + ".log"), "w") as logf:
            p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
            for line in p.stdout:
                logf.write(line)
                if line.startswith("CELL "):
                    progress.step(name + " " + line.split()[1])
            status[name] = p.wait()
    progress.finish()

    # Merge into one CSV per workload, in the shared format.
    log("merge the harnesses' results")
    machine["cpp_versions"] = cpp_versions({r["implementation"] for r in cpp_rows(cpp_dir, machine)})
    rows = cpp_rows(cpp_dir, machine)
    for r in rows:
        c = counts.get("%s/%s/%s" % (r["workload"], r["case"], r["implementation"]))
        r["instructions_per_unit"] = "%.1f" % c if c is not None else ""
    for name, _, _ in hs:
        path = os.path.join(raw, name + ".csv")
        if os.path.exists(path):
            rows += [cell_stats(r) for r in read_rows(path)]
    if a.matrix:
        matrix_rows, matrix_status = run_matrix(a, raw, machine)
        rows += matrix_rows
        status.update(matrix_status)
    log("explain the different bytes")
    explain.fill_reasons(rows, ref, bytes_dir)
    apply_known_defects(rows)
    by_workload = {}
    for r in rows:
        by_workload.setdefault(r["workload"], []).append(r)
    for w, rs in by_workload.items():
        write_rows(os.path.join(out_dir, w + ".csv"), rs)
    machine["harness_exit_status"] = status
    if not shutil.which("dotnet"):
        machine["not_run"] = {"C#": NOT_RUN_NO_DOTNET}
    machine["mode"] = "quick" if a.quick else "full" if a.full else "default"
    machine["raw_dir"] = raw
    machine["only"] = only
    if a.note:
        machine["note"] = a.note
    with open(os.path.join(out_dir, "machine.json"), "w") as f:
        json.dump(machine, f, indent=2)
    log("write the report")
    report.write_reports(out_dir)

    if not a.keep_bytes:  # the encodings are large and can be regenerated: keep the digests
        log("remove the encodings")
        for d in (bytes_dir,):
            shutil.rmtree(d, ignore_errors=True)
        for entry in os.listdir(ref):
            if os.path.isdir(os.path.join(ref, entry)):
                shutil.rmtree(os.path.join(ref, entry))

    plan["C++ (mpk_bench)"] = [cpp_cell_id(c) for c in cpp_cells]
    problems = check_run(rows, plan, status, raw)
    log("report: %s" % os.path.join(out_dir, "report.md"))
    for p in problems:
        sys.stderr.write("FAILED " + p + "\n")
    return 1 if problems else 0


def known_defect(row, defects):
    for d in defects:
        if (row["implementation"] == d["implementation"] and row["workload"] == d["workload"]
                and row["case"] in d["cases"] and row["verdict"] == "wrong_values"
                and row["verification"].startswith("its own bytes do not decode")):
            return d
    return None


def apply_known_defects(rows):
    """Marks the wrong values that known_defects.json explains (a peer's own bug)."""
    with open(os.path.join(HERE, "known_defects.json")) as f:
        defects = json.load(f)["defects"]
    for r in rows:
        d = known_defect(r, defects)
        if d:
            r["verification"] = "known defect of %s %s: %s" % (d["implementation"], d["version"], d["reason"])


def check_run(rows, plan, status, raw="raw"):
    """Why the run failed, if it did: a harness that crashed or left cells out, a wrong value
    or an error that no known defect explains."""
    problems = []
    got = {"%s/%s/%s" % (r["workload"], r["case"], r["implementation"]) for r in rows}
    # mpk_bench's benchmark prefixes (w1, json...) need not name the table's workload: its
    # cells are matched by case and implementation among the C/C++ rows.
    got_cpp = {"%s/%s" % (r["case"], r["implementation"]) for r in rows if r["language"] in ("C++", "C")}
    for name, cells in plan.items():
        if name.startswith("C++"):
            missing = [c for c in cells if c.split("/", 1)[1] not in got_cpp]
        else:
            missing = [c for c in cells if c not in got]
        if missing:
            problems.append("harness %s produced no result for %d planned cells (first: %s; its log: %s/%s.log)"
                            % (name, len(missing), missing[0], raw, "cpp" if name.startswith("C++") else name))
    for name, code in status.items():
        if code not in (0, 1) or ((name.startswith("C++") or name.startswith("matrix")) and code != 0):
            problems.append("harness %s exited with %s (its log: %s/%s.log)" % (name, code, raw, name))
    for r in rows:
        if r["verdict"] == "error" or (r["verdict"] == "wrong_values" and not r["verification"].startswith("known defect")):
            problems.append("%s/%s/%s: %s: %s" % (r["workload"], r["case"], r["implementation"], r["verdict"],
                                                  r["verification"]))
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small sizes, short timings: a smoke test")
    ap.add_argument("--full", action="store_true",
                    help="the reference mode: longer repetitions (C++ 0.5 s, harnesses 0.25 s batches)")
    ap.add_argument("--no-instructions", action="store_true",
                    help="do not count the C/C++ cells' instructions with callgrind")
    ap.add_argument("--instructions", action="store_true",
                    help="count the C/C++ cells' instructions with callgrind in a --quick run too")
    ap.add_argument("--raw-dir", help="where the logs, reference encodings and harness CSVs go "
                                      "(default build/bench-raw/<result folder name>/)")
    ap.add_argument("--only", help="comma-separated words; a cell runs when its workload/case/implementation contains one")
    ap.add_argument("--out", help="result folder (default results/<host>-<date>/); with --compare, the output file")
    ap.add_argument("--compare", nargs=2, metavar=("DIR_A", "DIR_B"), help="compare two result folders")
    ap.add_argument("--matrix", action="store_true",
                    help="also W8: mpk_bench's mpk cells of W1-W4 built with GCC and Clang, -O2 and -O3 -march=native "
                         "(and -m32 when a 32-bit toolchain is installed)")
    ap.add_argument("--report", metavar="DIR", help="only regenerate report.md and report.html of a result folder")
    ap.add_argument("--no-setup", action="store_true", help="do not install packages or run npm ci")
    ap.add_argument("--no-build", action="store_true", help="use the binaries already in --build-dir")
    ap.add_argument("--build-dir", default=BUILD_DIR_DEFAULT)
    ap.add_argument("--note", help="a sentence printed at the top of the report (e.g. the machine was busy)")
    ap.add_argument("--keep-bytes", action="store_true", help="keep <raw>/ref and <raw>/bytes (the encodings)")
    a = ap.parse_args()
    if a.report:
        refresh_cpp_rows(a.report)
        report.write_reports(a.report)
        return 0
    if a.compare:
        return report.compare(a.compare[0], a.compare[1], a.out)
    return main_run(a)


if __name__ == "__main__":
    sys.exit(main())
