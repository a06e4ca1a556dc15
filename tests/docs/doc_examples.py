#!/usr/bin/env python3
"""Docs that are tests: compiles and runs the C++ examples of README.md and docs/*.md, and runs
the shell sessions of docs/cli.md.

C++ (every block fenced ```cpp; a block fenced ```cpp synopsis lists declarations for reading
and is only highlighted):

- All blocks are compiled together, in as few translation units as --units says, with GCC,
  -std=c++20, the project's warnings as errors (less -Wunused-variable and
  -Wunused-but-set-variable: a fragment may declare a variable just to show its type; a
  dropped [[nodiscard]] result is still an error), the library's include path, and linked
  with libmpk. `#line` directives make every diagnostic name the Markdown file and line.
- The blocks of one file share a namespace (declarations of an earlier block are seen by the
  later ones, as a reader of the page expects); each block's statements get their own
  function. A block's `#include` lines go to the top of the unit (after
  <mpk/mpk.hpp> and the standard headers, which every block may use without including).
- A block with `int main(` is a whole program: it is run, and must return 0.
- Otherwise its top-level declarations (struct, class, enum, union, template, namespace,
  using X =, MPK_* macros, function definitions) stay at namespace scope and its other
  top-level lines become the body of a function that is run. The body may `return;` or
  `return <an mpk::error>;` (an example's error path); a returned error is not a failure.
- A block with an explicit specialization (`template <>`) is put at global scope, where
  `template <> struct mpk::codec<T>` must be.
- Names an example may use without defining (the prelude, namespace mpk_doc_prelude below):
  `bytes`, a std::span<const std::byte> over a small valid message (a map with "id", "name",
  "server": {"port": 8080}, "tags": ["a", "b"], "env": {"k": "v"}); and the stand-ins
  `handle(...)`, `use(...)`, `send(...)`, `log(...)`, `write(...)`, which accept anything
  and return true;
  `recv_some(...)`, which returns 0 (no more input); `sock` and `fd`, an invalid descriptor.

Stated outputs: a comment ending in `=> EXPECTED` on a line that is one whole statement:

    w.write(42);                        // => 2a
    auto n = r.read<int>();             // => 42
    std::size_t size = r.field_size();  // the whole array, nothing consumed => 11
    auto e = mpk::document::parse(b);   // => "offset 4: duplicate map key"

  - If the line declares a variable (`T name = ...;`, `auto name = ...;`) or assigns one
    (`name = ...;`), EXPECTED is that variable's text: integers in decimal, floating point
    shortest, bool as true/false, strings quoted ("...", a std::u16string as u"..."),
    mpk::buffer and std::span of bytes as hex bytes ("92 d4 72"), mpk::error as the quoted
    "offset N: message"; a result<T> holding an error as that error, else as its value (ok
    when T has no text form, e.g. a document, and for result<void>).
  - Otherwise EXPECTED is the hex bytes the line appended to the block's buffer (the first
    `mpk::buffer NAME` the block declares).
  - EXPECTED ending in `...` (or `...\"` inside a string) states a prefix.
  Every stated output must be reached when the block runs; a check never reached fails.

Shell sessions (```console blocks of docs/cli.md): each block runs in a fresh scratch folder
with `mpk` (--mpk) first on PATH; a line starting with `$ ` is a command run by bash (files
made by earlier commands of the block stay); the lines after it, up to the next `$ `, are its
exact expected output (stdout then stderr; the exit status is not compared: show it with
`; echo $?` where it matters). Standard input is empty. ```sh blocks are not run.

Every failure names the file and the line where the block (or the check) is, and the test
fails when any block fails. ctest runs it (tests/docs/register.cmake: tests doc_examples and
doc_console, label docs); by hand, from the repository, after building build/dev:

    python3 tests/docs/doc_examples.py --root . --work /tmp/doc --include include \
        --lib build/dev/libmpk.a --lib=-lsimdjson --mpk build/dev/tools/mpk/mpk
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

# ---- extraction ---------------------------------------------------------------------------


class Block:
    def __init__(self, path, line, lang, lines):
        self.path = path  # relative to the repository
        self.line = line  # line of the first code line (after the fence)
        self.lang = lang
        self.lines = lines

    def where(self, offset=0):
        return f"{self.path}:{self.line + offset}"


def extract(root, rel, langs):
    blocks = []
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        text = f.read().split("\n")
    i = 0
    while i < len(text):
        m = re.match(r"^(`{3,})\s*([\w+-]*)(.*)$", text[i])
        if not m:
            i += 1
            continue
        fence, lang, rest = m.group(1), m.group(2), m.group(3).strip()
        j = i + 1
        while j < len(text) and not text[j].startswith(fence):
            j += 1
        if lang in langs and rest == "":
            blocks.append(Block(rel, i + 2, lang, text[i + 1 : j]))
        i = j + 1
    return blocks


# ---- C++ ----------------------------------------------------------------------------------

DECL_START = re.compile(
    r"^(struct|class|enum|union|template|namespace|typedef|static_assert|MPK_[A-Z_]+\s*\(|"
    r"using\s+\w+\s*=)"
)
# A function definition's first line: a return type, a name, parameters, no '=' or ';'.
FUNC_DEF = re.compile(r"^(?!(return|if|for|while|switch|else|do|case|delete|new)\b)"
                      r"[\w:<>,\s\*&]+[\s\*&]([\w:~]+|operator\S+)\s*\([^;=]*\)\s*"
                      r"(const\s*)?(noexcept\s*)?(->\s*[\w:<>]+\s*)?\{?\s*$")
VAR_DECL = re.compile(r"^\s*(?:const\s+)?(?:[\w:<>,\*&]+\s+)+[\*&]*(\w+)\s*(?:=|\{|\()")
ASSIGN = re.compile(r"^\s*(\w+)\s*=[^=]")
BUFFER_DECL = re.compile(r"\bmpk::buffer\s+(\w+)\s*[;({]")
KEYWORDS = {"return", "if", "for", "while", "switch", "else", "do", "case", "delete", "new",
            "throw", "co_return", "goto", "break", "continue"}


def scan(line):
    """(the code of a line with string and character literals emptied, where its // comment
    starts or None): one pass that knows quotes, so that "//" or "{" in a string count not."""
    out, i, q = [], 0, None
    while i < len(line):
        c = line[i]
        if q:
            if c == "\\":
                i += 2
                continue
            if c == q:
                q = None
                out.append(c)
        elif c in "\"'":
            q = c
            out.append(c)
        elif line.startswith("//", i):
            return "".join(out), i
        else:
            out.append(c)
        i += 1
    return "".join(out), None


def code_part(line):
    """The line without its // comment and the contents of its literals (brace counting)."""
    return scan(line)[0]


def split_comment(line):
    """(code, comment) of a line; comment without the // (None if there is none)."""
    at = scan(line)[1]
    return (line, None) if at is None else (line[:at], line[at + 2 :])


def parse_expected(text):
    """(expected text, is_prefix) of what follows `=>`."""
    e = text.strip()
    if e.endswith("..."):
        return e[:-3].rstrip() if not e.endswith('..."') else e[:-4], True
    if e.endswith("…"):
        return e[:-1].rstrip(), True
    if e.endswith('...\"'):
        return e[:-4], True
    if e.endswith('…"'):
        return e[:-2], True
    return e, False


def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


class CppBlock:
    """One ```cpp block turned into C++ for a translation unit."""

    def __init__(self, block, index, file_index):
        self.b = block
        self.ns = f"mpk_doc_file{file_index}"  # shared by the blocks of one file
        self.run = f"run_{index}"
        self.includes = []
        self.checks = []  # (line offset, expected, prefix)
        self.error = None
        self.is_main = any(re.search(r"\bint\s+main\s*\(", code_part(l)) for l in block.lines)
        self.is_global = any(re.match(r"^\s*template\s*<\s*>", l) for l in block.lines)
        bufs = [BUFFER_DECL.search(code_part(l)) for l in block.lines]
        bufs = [m.group(1) for m in bufs if m]
        self.buffer = bufs[0] if bufs else None

    def line_directive(self, k):
        return f'#line {self.b.line + k} "{self.b.path}"'

    def items(self):
        """Top-level items: (kind, [(offset, line)]), kind 'decl' or 'stmt'."""
        items, cur, depth, kind = [], [], 0, None
        for k, line in enumerate(self.b.lines):
            stripped = line.strip()
            if depth == 0 and not cur:
                if stripped.startswith("#include"):
                    self.includes.append(stripped)
                    continue
                if stripped == "" or stripped.startswith("//"):
                    items.append(("blank", [(k, line)]))
                    continue
                kind = "decl" if (self.is_main or DECL_START.match(stripped)
                                  or FUNC_DEF.match(stripped)) else "stmt"
            cur.append((k, line))
            c = code_part(line)
            depth += c.count("{") + c.count("(") - c.count("}") - c.count(")")
            if depth <= 0:
                depth = 0
                s = c.strip()
                # a declaration ends with ';' or a '}' not followed by more (struct ...{...};)
                if kind == "stmt" or s.endswith(";") or (s.endswith("}") and
                                                        not DECL_START.match(cur[0][1].strip())):
                    items.append((kind, cur))
                    cur = []
        if cur:
            items.append((kind, cur))
        return items

    def checked_line(self, k, line):
        """The line, with the code that checks its stated output, if it states one."""
        code, comment = split_comment(line)
        if comment is None or "=>" not in comment:
            return [self.line_directive(k), line]
        expected, prefix = parse_expected(comment.rsplit("=>", 1)[1])
        n = len(self.checks)
        self.checks.append((k, expected, prefix))
        call = (f"mpk_doc::check({n}, {{}}, {c_string(expected)}, {str(prefix).lower()}, "
                f'"{self.b.where(k)}")')
        m = VAR_DECL.match(code)
        if m and m.group(1) not in KEYWORDS:
            var = m.group(1)
        else:
            m = ASSIGN.match(code)
            var = m.group(1) if m else None
        if var:
            return [self.line_directive(k), line, call.replace("{}", var, 1) + ";"]
        if not self.buffer:
            self.error = (f"{self.b.where(k)}: a stated output (=>) on a line that declares "
                          "nothing is the bytes the line appends to the block's mpk::buffer, "
                          "and this block declares none")
            return [self.line_directive(k), line]
        mark = f"mpk_doc_mark_{n}"
        return [f"const std::size_t {mark} = {self.buffer}.size();", self.line_directive(k),
                line,
                call.replace("{}", f"mpk_doc::appended({self.buffer}, {mark})", 1) + ";"]

    def render(self):
        decls, body = [], []
        returns_error = any(re.search(r"\breturn\s+[^;\s]", code_part(l))
                            for l in self.b.lines) and not self.is_main
        for kind, lines in self.items():
            if kind == "blank":
                continue
            out = decls if kind == "decl" else body
            if kind == "decl":
                out.append(self.line_directive(lines[0][0]))
                out.extend(l for _, l in lines)
            else:
                for k, l in lines:
                    out.extend(self.checked_line(k, l))
        ret = "mpk::error" if returns_error and self.body_returns(body) else "void"
        src = []
        if self.is_global:
            src.append(f"// {self.b.where()} (global scope: it specializes a template)")
            src.extend(decls)
            src.append(f"namespace {self.ns} {{")
            src.append("using namespace mpk_doc_prelude;")
        else:
            src.append(f"namespace {self.ns} {{  // {self.b.where()}")
            src.append("using namespace mpk_doc_prelude;")
            src.extend(decls)
        if self.is_main:
            src.append(f"int {self.run}() {{ return {self.ns}::main(); }}")
        else:
            src.append(f"{ret} {self.run}_body() {{")
            src.extend(body)
            src.append('#line 1 "<generated>"')
            if ret != "void":
                src.append("return {};")
            src.append("}")
            src.append(f"int {self.run}() {{ {self.run}_body(); return 0; }}")
        wheres = ", ".join(f'"{self.b.where(k)}"' for k, _, _ in self.checks) or "nullptr"
        src.append(f"inline const char* const {self.run}_checks[] = {{{wheres}}};")
        src.append(f"}}  // namespace {self.ns}")
        return "\n".join(src)

    def body_returns(self, body):
        """Whether the body returns a value itself (a `return` not in a lambda's line)."""
        return any(re.search(r"\breturn\s+[^;\s]", code_part(l)) and "](" not in code_part(l)
                   for l in body if not l.startswith("#line"))


PRELUDE = r"""
// ---- generated by tests/docs/doc_examples.py from README.md and docs/*.md; do not edit ----
#include <mpk/mpk.hpp>

#include <array>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>
%INCLUDES%

namespace mpk_doc {
inline int failures = 0;
inline std::vector<int> reached;

inline std::string quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') { out += "\\n"; continue; }
    out += c;
  }
  return out + '"';
}
inline std::string hex(std::span<const std::byte> b) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (std::byte x : b) {
    if (!out.empty()) out += ' ';
    out += digits[std::to_integer<int>(x) >> 4];
    out += digits[std::to_integer<int>(x) & 15];
  }
  return out;
}
template <class T> struct is_result : std::false_type {};
template <class T> struct is_result<mpk::result<T>> : std::true_type { using type = T; };
template <class> inline constexpr bool no_text = false;
// The types show() gives a text; a result<T> of another T (a document, ...) shows as "ok".
template <class U>
inline constexpr bool textual =
    std::is_arithmetic_v<U> || std::is_convertible_v<const U&, std::string_view> ||
    std::is_same_v<U, std::u16string> || std::is_same_v<U, mpk::buffer> ||
    std::is_convertible_v<const U&, std::span<const std::byte>> || std::is_same_v<U, mpk::error>;

template <class T>
std::string show(const T& v) {
  using U = std::remove_cvref_t<T>;
  if constexpr (std::is_same_v<U, bool>) {
    return v ? "true" : "false";
  } else if constexpr (std::is_integral_v<U> && !std::is_same_v<U, char>) {
    return std::to_string(v);
  } else if constexpr (std::is_floating_point_v<U>) {
    char buf[64];
    return std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
  } else if constexpr (std::is_convertible_v<const U&, std::string_view>) {
    return quote(std::string_view(v));
  } else if constexpr (std::is_same_v<U, std::u16string>) {
    auto s = mpk::to_utf8(v);
    return s ? "u" + quote(*s) : "<invalid UTF-16>";
  } else if constexpr (std::is_same_v<U, mpk::buffer>) {
    return hex({v.data(), v.size()});
  } else if constexpr (std::is_convertible_v<const U&, std::span<const std::byte>>) {
    return hex(std::span<const std::byte>(v));
  } else if constexpr (std::is_same_v<U, mpk::error>) {
    return quote(v.to_string());
  } else if constexpr (std::is_same_v<U, mpk::result<void>>) {
    return v ? std::string("ok") : quote(v.error().to_string());
  } else if constexpr (is_result<U>::value) {
    if (!v) return quote(v.error().to_string());
    if constexpr (textual<typename is_result<U>::type>) return show(*v); else return "ok";
  } else {
    static_assert(no_text<U>, "mpk_doc::show: a stated output (=>) of a type without a text form");
    return {};
  }
}
inline std::string appended(const mpk::buffer& b, std::size_t from) {
  return hex(std::span<const std::byte>(b.data(), b.size()).subspan(from));
}
inline std::string appended_text(const std::string& s) { return s; }

template <class T>
void check(int n, const T& v, const char* expected, bool prefix, const char* where) {
  reached.push_back(n);
  const std::string got = [&] {
    if constexpr (std::is_same_v<T, std::string>) return v; else return show(v);
  }();
  const std::string_view e(expected);
  const bool ok = prefix ? std::string_view(got).starts_with(e) : got == e;
  if (!ok) {
    std::fprintf(stderr, "%s: stated output %s%s, but it is %s\n", where, expected,
                 prefix ? "..." : "", got.c_str());
    ++failures;
  }
}
}  // namespace mpk_doc

namespace mpk_doc_prelude {
// {"id": 7, "name": "mpk", "server": {"port": 8080}, "tags": ["a", "b"], "env": {"k": "v"}}
inline constexpr unsigned char message[] = {
    0x85, 0xa2, 'i', 'd', 0x07, 0xa4, 'n', 'a', 'm', 'e', 0xa3, 'm', 'p', 'k',
    0xa6, 's', 'e', 'r', 'v', 'e', 'r', 0x81, 0xa4, 'p', 'o', 'r', 't', 0xcd, 0x1f, 0x90,
    0xa4, 't', 'a', 'g', 's', 0x92, 0xa1, 'a', 0xa1, 'b', 0xa3, 'e', 'n', 'v', 0x81, 0xa1, 'k', 0xa1, 'v'};
inline const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(message),
                                              sizeof message);
template <class... T> bool handle(T&&...) { return true; }
template <class... T> bool use(T&&...) { return true; }
template <class... T> bool send(T&&...) { return true; }
template <class... T> bool log(T&&...) { return true; }
template <class... T> bool write(T&&...) { return true; }
template <class... T> std::size_t recv_some(T&&...) { return 0; }  // no more input
inline int sock = -1;
inline int fd = -1;  // reads fail with errc::io_error, writes too
}  // namespace mpk_doc_prelude
"""

UNIT_MAIN = r"""
namespace mpk_doc {
struct entry { int (*run)(); const char* where; const char* const* check_wheres; int checks; };
}
int mpk_doc_unit_%UNIT%(const char* only) {
  static const mpk_doc::entry entries[] = {
%ENTRIES%
  };
  int failed = 0;
  for (const auto& e : entries) {
    if (only && std::strcmp(only, e.where) != 0) continue;
    const int before = mpk_doc::failures;
    mpk_doc::reached.clear();
    const int rc = e.run();
    if (rc != 0) {
      std::fprintf(stderr, "%s: the example's main returned %d\n", e.where, rc);
      ++mpk_doc::failures;
    }
    for (int n = 0; n < e.checks; ++n) {
      bool seen = false;
      for (int r : mpk_doc::reached) seen = seen || r == n;
      if (!seen) {
        std::fprintf(stderr, "%s: the stated output (=>) was never reached (the example of %s)\n",
                     e.check_wheres[n], e.where);
        ++mpk_doc::failures;
      }
    }
    if (mpk_doc::failures != before) ++failed;
  }
  return failed;
}
"""


def build_units(blocks, units):
    per = max(1, -(-len(blocks) // units))
    groups = [blocks[i : i + per] for i in range(0, len(blocks), per)]
    sources = []
    for u, group in enumerate(groups):
        rendered = [cb.render() for cb in group]
        includes = sorted({inc for cb in group for inc in cb.includes})
        entries = ",\n".join(
            f'    {{&{cb.ns}::{cb.run}, "{cb.b.where()}", {cb.ns}::{cb.run}_checks, '
            f'{len(cb.checks)}}}' for cb in group)
        src = PRELUDE.replace("%INCLUDES%", "\n".join(includes))
        src += "\n\n".join(rendered)
        src += UNIT_MAIN.replace("%UNIT%", str(u)).replace("%ENTRIES%", entries)
        sources.append(src)
    main = ["#include <cstdio>", ""]
    main += [f"int mpk_doc_unit_{u}(const char* only);" for u in range(len(sources))]
    main += ["int main(int argc, char** argv) {", "  const char* only = argc > 1 ? argv[1] : nullptr;",
             "  int failed = 0;"]
    main += [f"  failed += mpk_doc_unit_{u}(only);" for u in range(len(sources))]
    main += ['  if (failed) std::fprintf(stderr, "%d example(s) failed\\n", failed);',
             "  return failed ? 1 : 0;", "}"]
    return sources, "\n".join(main) + "\n"


def run_cpp(args, root):
    files = ["README.md"] + sorted(
        os.path.join("docs", f) for f in os.listdir(os.path.join(root, "docs")) if f.endswith(".md"))
    blocks = [(b, n) for n, f in enumerate(files) for b in extract(root, f, {"cpp"})]
    cbs = [CppBlock(b, i, n) for i, (b, n) in enumerate(blocks)]
    work = os.path.join(args.work, "cpp")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    sources, main = build_units(cbs, args.units)
    errors = [cb.error for cb in cbs if cb.error]
    if errors:
        for e in errors:
            print(e, file=sys.stderr)
        return False
    flags = ["-std=c++20", "-Wall", "-Wextra", "-Wpedantic", "-Wshadow", "-Wconversion",
             "-Wno-sign-conversion", "-Werror", "-Wno-unused-variable",
             "-Wno-unused-but-set-variable", "-fdiagnostics-color=never"]
    flags += [f"-I{i}" for i in args.include] + args.cxxflag
    launcher = [args.ccache] if args.ccache else []
    procs, objs = [], []
    started = time.monotonic()
    for u, src in enumerate(sources + [main]):
        path = os.path.join(work, f"unit{u}.cpp")
        with open(path, "w") as f:
            f.write(src)
        obj = path[:-4] + ".o"
        objs.append(obj)
        # -iquote the repository: #line names files relative to it
        procs.append((path, subprocess.Popen(launcher + [args.cxx] + flags + ["-c", path, "-o", obj],
                                             cwd=root, stdout=subprocess.PIPE,
                                             stderr=subprocess.STDOUT, text=True)))
        while sum(p.poll() is None for _, p in procs) >= args.jobs:
            time.sleep(0.05)
    ok = True
    for path, p in procs:
        out, _ = p.communicate()
        if p.returncode != 0:
            ok = False
            print(out, file=sys.stderr)
            print(f"doc examples: compiling {path} failed (the lines above name the Markdown "
                  "file and line)", file=sys.stderr)
    if not ok:
        return False
    exe = os.path.join(work, "doc_examples")
    link = subprocess.run([args.cxx, "-o", exe] + objs + args.lib, cwd=root,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if link.returncode != 0:
        print(link.stdout, file=sys.stderr)
        return False
    print(f"doc examples: {len(cbs)} C++ blocks of {len(files)} files in {len(sources)} units, "
          f"{sum(len(cb.checks) for cb in cbs)} stated outputs; compiled and linked in "
          f"{time.monotonic() - started:.1f} s")
    run = subprocess.run([exe], cwd=work, stdin=subprocess.DEVNULL)
    if run.returncode < 0 or run.returncode > 1:
        # a crash: run the blocks one by one to name the one(s) that crash
        for cb in cbs:
            one = subprocess.run([exe, cb.b.where()], cwd=work, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if one.returncode < 0 or one.returncode > 1:
                print(f"{cb.b.where()}: the example crashed (exit status {one.returncode})",
                      file=sys.stderr)
    return run.returncode == 0


# ---- console sessions ---------------------------------------------------------------------


def run_console(args, root):
    rel = os.path.join("docs", "cli.md")
    if not os.path.exists(os.path.join(root, rel)):
        return True
    blocks = extract(root, rel, {"console"})
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(os.path.abspath(args.mpk)) + os.pathsep + env["PATH"]
    env["LC_ALL"] = "C.UTF-8"
    ok = True
    commands = 0
    for b in blocks:
        steps = []  # (offset, command, expected lines)
        for k, line in enumerate(b.lines):
            if line.startswith("$ "):
                steps.append((k, line[2:], []))
            elif steps:
                steps[-1][2].append(line)
            elif line.strip():
                print(f"{b.where(k)}: output before the first `$ ` command", file=sys.stderr)
                ok = False
        scratch = tempfile.mkdtemp(prefix="mpk-doc-console-", dir=args.work)
        for k, cmd, expected in steps:
            commands += 1
            try:
                r = subprocess.run(["bash", "-c", cmd], cwd=scratch, env=env,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, timeout=60)
            except subprocess.TimeoutExpired:
                ok = False
                print(f"{b.where(k)}: `{cmd}` did not finish in 60 s", file=sys.stderr)
                continue
            got = (r.stdout + r.stderr).decode("utf-8", "replace")
            want = "\n".join(expected).rstrip("\n")
            if got.rstrip("\n") != want:
                ok = False
                print(f"{b.where(k)}: `{cmd}` printed:\n{got.rstrip()}\n"
                      f"-- but the doc shows:\n{want}", file=sys.stderr)
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"doc examples: {len(blocks)} console blocks of {rel}, {commands} commands")
    return ok


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--root", required=True, help="the repository")
    p.add_argument("--work", required=True, help="a scratch folder (emptied)")
    p.add_argument("--cxx", default="g++")
    p.add_argument("--ccache", default="")
    p.add_argument("--include", action="append", default=[])
    p.add_argument("--cxxflag", action="append", default=[])
    p.add_argument("--lib", action="append", default=[], help="libraries to link, in order")
    p.add_argument("--units", type=int, default=2, help="translation units (compiled in parallel)")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--mpk", help="the mpk tool, for docs/cli.md's console blocks")
    p.add_argument("--only", choices=["cpp", "console"])
    args = p.parse_args()
    os.makedirs(args.work, exist_ok=True)
    ok = True
    if args.only in (None, "cpp"):
        ok = run_cpp(args, args.root) and ok
    if args.only in (None, "console") and args.mpk:
        ok = run_console(args, args.root) and ok
    print("doc examples: " + ("ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
