// bench/json_conversion.cpp - the `json` table: mpk's MessagePack -> JSON (to_json) and
// JSON -> MessagePack (from_json) throughput on W1 small_fields and the W7 `large` document.
//
// Units: nanoseconds per byte in the table and the CSV (the runner's format), and MB/s
// (10^6 bytes per second) in the facts above the table once the run is over. The bytes are
// those of the input of each direction: the MessagePack bytes for to_json, the JSON text
// for from_json.
//
// Verification before timing (docs/workloads.md rule 2):
// - W1 to_json: the text equals one written here independently from the records (integers
//   in decimal, doubles as the shortest round-trip text with ".0" added to integral ones,
//   strings quoted), and from_json of it gives back W1's exact bytes.
// - W7 large to_json (plain): from_json of the text gives the document back value for
//   value, every binary as the string of its base64 (the plain mapping), compared in
//   lockstep with the original bytes.
// - from_json: its bytes equal those the checks above established.
// The timed loops check the digest of their last output.
#include <mpk/buffer.hpp>
#include <mpk/json.hpp>
#include <mpk/reader.hpp>
#include <mpk/writer.hpp>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "data/small_fields.hpp"
#include "data/w7_documents.hpp"
#include "support/digest.hpp"
#include "support/peers/verify.hpp"
#include "support/suite.hpp"
#include "workloads.hpp"

namespace mpk_bench {
namespace {

using bytes_view = std::span<const std::byte>;

// --- the expected JSON of W1, written without mpk's JSON layer -------------------------------

template <class T>
void put_number(std::string& out, T v) {
  char buf[40];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void put_double(std::string& out, double d) {
  char buf[40];
  const auto r = std::to_chars(buf, buf + sizeof buf, d);
  const std::string_view t(buf, static_cast<std::size_t>(r.ptr - buf));
  out += t;
  if (t.find_first_of(".e") == std::string_view::npos) out += ".0";
}

std::string expected_w1_json(std::span<const small_fields::record> records) {
  std::string out;
  for (const auto& r : records) {
    put_number(out, unsigned{r.f0});
    out += '\n';
    put_number(out, int{r.f1});
    out += '\n';
    put_number(out, unsigned{r.f2});
    out += '\n';
    put_number(out, r.f3);
    out += '\n';
    put_number(out, r.f4);
    out += '\n';
    put_double(out, r.f5);
    out += '\n';
    put_double(out, r.f6);
    out += '\n';
    out += '"';
    out += r.f7();  // "fieldNNN": nothing to escape
    out += "\"\n";
  }
  return out;
}

// --- the plain mapping, checked value by value ----------------------------------------------

/// Compares `original` with `converted` (from_json of plain to_json of `original`) in
/// lockstep: every value equal, except that a binary must have become the string of its
/// base64. Returns an empty string when they agree, else where they first differ.
std::string compare_plain(bytes_view original, bytes_view converted) {
  mpk::reader a(original, {.limits = mpk::limits::trusted()});
  mpk::reader b(converted, {.limits = mpk::limits::trusted()});
  std::string b64;
  std::size_t index = 0;
  auto differ = [&](const char* what) {
    return std::string("value ") + std::to_string(index) + " (offset " +
           std::to_string(a.position()) + "): " + what;
  };
  while (!a.at_end()) {
    if (b.at_end()) return differ("the conversion ends early");
    const mpk::type ta = a.peek();
    const mpk::type tb = b.peek();
    if (ta == mpk::type::bin) {
      b64.clear();
      mpk::append_base64(b64, a.read_bin());
      if (tb != mpk::type::str || b.read_string_view() != b64)
        return differ("binary is not its base64");
    } else if (ta != tb) {
      return differ("another type");
    } else {
      switch (ta) {
        case mpk::type::nil:
          a.read_nil();
          b.read_nil();
          break;
        case mpk::type::boolean:
          if (a.read<bool>() != b.read<bool>()) return differ("another boolean");
          break;
        case mpk::type::uint:
          if (a.read<std::uint64_t>() != b.read<std::uint64_t>()) return differ("another integer");
          break;
        case mpk::type::sint:
          if (a.read<std::int64_t>() != b.read<std::int64_t>()) return differ("another integer");
          break;
        case mpk::type::float64:
          if (std::bit_cast<std::uint64_t>(a.read<double>()) !=
              std::bit_cast<std::uint64_t>(b.read<double>()))
            return differ("another float64");
          break;
        case mpk::type::str:
          if (a.read_string_view() != b.read_string_view()) return differ("another string");
          break;
        case mpk::type::array:
          if (a.read_array_header() != b.read_array_header()) return differ("another array size");
          break;
        case mpk::type::map:
          if (a.read_map_header() != b.read_map_header()) return differ("another map size");
          break;
        default:  // float32, ext: not in the W7 documents
          return differ("a type this check does not expect");
      }
    }
    if (!a.ok() || !b.ok()) return differ("a read failed");
    ++index;
  }
  if (!b.at_end()) return "the conversion has more values than the original";
  return {};
}

// --- conversions, as timed -------------------------------------------------------------------

/// MessagePack -> JSON Lines into `out` (cleared first, capacity kept). False on error.
bool msgpack_to_json(bytes_view in, std::string& out) {
  out.clear();
  mpk::reader r(in);
  return mpk::to_json_lines(r, out).has_value();
}

/// JSON (Lines) -> MessagePack into `out` (cleared first). False on error.
bool json_to_msgpack(std::string_view in, mpk::buffer& out) {
  out.clear();
  return mpk::from_json(in, out).has_value();
}

bool report(bool ok, const std::string& what, const std::string& detail) {
  std::printf("  [%s] %s%s%s\n", ok ? " ok " : "FAIL", what.c_str(), detail.empty() ? "" : ": ",
              detail.c_str());
  return ok;
}

std::string digest_check(bytes_view got, std::uint64_t want) {
  const std::uint64_t d = fnv1a64(got);
  if (d == want) return {};
  return "timed loop wrote other bytes (fnv1a64 " + hex64(d) + ", expected " + hex64(want) + ")";
}

/// One data set: its MessagePack bytes and its (verified) plain JSON text.
struct json_data {
  std::string name;     // "w1", "w7_large"
  mpk::buffer msgpack;  // the input of to_json
  std::string json;     // what to_json writes: the input of from_json
  mpk::buffer back;     // what from_json writes from `json`
  std::uint64_t json_digest = 0;
  std::uint64_t back_digest = 0;
};

/// Throughput cases of one table, read back after the run to print MB/s.
struct rate_row {
  std::string case_name;
  std::string what;
  std::string impl = "mpk";
};

std::vector<rate_row>& rate_rows() {
  static std::vector<rate_row> rows;
  return rows;
}

workload_table*& json_table() {
  static workload_table* t = nullptr;
  return t;
}

// --- the mpk tool on a file: `mpk get` against `mpk to-json | jq` and `mpk to-json` --------

#ifdef MPK_BENCH_TOOL
/// Runs `command` through /bin/sh and returns the CPU time (user + system) that it and its
/// children took, in seconds; -1 when it fails. A pipeline's processes run at the same time,
/// so CPU time, not wall time, is what its stages cost (and what a loaded machine disturbs
/// least).
double run_cpu_seconds(const std::string& command) {
  rusage before{}, after{};
  getrusage(RUSAGE_CHILDREN, &before);
  const int status = std::system(command.c_str());
  getrusage(RUSAGE_CHILDREN, &after);
  if (status != 0) return -1;
  auto seconds = [](const timeval& a, const timeval& b) {
    return static_cast<double>(b.tv_sec - a.tv_sec) +
           static_cast<double>(b.tv_usec - a.tv_usec) * 1e-6;
  };
  return seconds(before.ru_utime, after.ru_utime) + seconds(before.ru_stime, after.ru_stime);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The CLI cells: W7 `medium` documents, one after another in a file, one field selected per
/// document (.bool, near the end of each: the rest is skipped).
bool register_cli_cells(workload_table& t, const run_config& cfg, bool say) {
  const std::string tool = MPK_BENCH_TOOL;
  const std::string jq = "/usr/bin/jq";
  if (!std::ifstream(jq)) {
    std::printf("  [skip] CLI cells: %s is not installed (scripts/setup installs it)\n",
                jq.c_str());
    return true;
  }
  mpk::buffer doc;
  {
    mpk::writer w(doc);
    if (!documents::write_case(w, "medium") || !w.ok())
      return report(false, "mpk writes W7 medium", "");
  }
  const std::size_t target = cfg.quick ? std::size_t{8} << 20 : std::size_t{128} << 20;
  const std::size_t copies = target / doc.size() + 1;
  // The input is scratch, outside the results folder (which holds sources of the report):
  // a folder of the system's temporary directory, removed at exit.
  static const std::string& dir = *new std::string([] {  // kept for the atexit handler
    std::string d =
        (std::filesystem::temp_directory_path() / ("mpk_bench_cli." + std::to_string(::getpid())))
            .string();
    std::filesystem::create_directories(d);
    return d;
  }());
  static const bool cleanup = std::atexit([] { std::filesystem::remove_all(dir); }) == 0;
  (void)cleanup;
  const std::string input = dir + "/cli_w7_medium.msgpack";
  {
    std::ofstream out(input, std::ios::binary);
    for (std::size_t i = 0; i < copies; ++i)
      out.write(reinterpret_cast<const char*>(doc.data()),
                static_cast<std::streamsize>(doc.size()));
    if (!out) return report(false, "writes " + input, "");
  }
  const std::size_t bytes = copies * doc.size();
  const std::string q = "'" + input + "'";
  const std::string get = "'" + tool + "' get .bool " + q;
  const std::string to_json = "'" + tool + "' to-json " + q;
  const std::string via_jq = to_json + " | " + jq + " -c .bool";
  // Verification: the three give the same text (to-json's is checked against jq's parse of
  // the whole document instead: its field is what jq selects).
  const std::string got = dir + "/cli_get.out", want = dir + "/cli_jq.out";
  const bool ran = run_cpu_seconds(get + " > '" + got + "'") >= 0 &&
                   run_cpu_seconds(via_jq + " > '" + want + "'") >= 0;
  const std::string a = ran ? read_file(got) : std::string(),
                    b = ran ? read_file(want) : std::string();
  const bool same = ran && !a.empty() && a == b &&
                    static_cast<std::size_t>(std::count(a.begin(), a.end(), '\n')) == copies;
  if (say)
    report(same,
           "mpk get .bool equals mpk to-json | jq -c .bool on " + std::to_string(copies) +
               " W7 medium documents",
           ran ? "" : "a command failed");
  if (!same) return false;
  std::remove(got.c_str());
  std::remove(want.c_str());

  t.add_fact("CLI: " + std::to_string(copies) + " W7 medium documents (" + std::to_string(bytes) +
             " bytes) in a file; CPU time of the commands and their children (user + system), "
             "output to /dev/null");
  t.add_implementation({"mpk_get", "mpk get .bool", "the mpk tool: `mpk get .bool FILE`"});
  t.add_implementation({"mpk_to_json", "mpk to-json", "the mpk tool: `mpk to-json FILE`"});
  t.add_implementation({"to_json_jq", "mpk to-json | jq", "`mpk to-json FILE | jq -c .bool`"});
  t.add_case({"cli_select_w7_medium", "select one field, W7 medium (CLI)",
              "one field of each document of a file, as JSON Lines; to-json alone converts all"});
  const std::pair<const char*, std::string> cells[] = {
      {"mpk_get", get}, {"mpk_to_json", to_json}, {"to_json_jq", via_jq}};
  for (const auto& [impl, command] : cells) {
    const std::string cmd = command + " > /dev/null";
    cell& c = t.add(
        "cli_select_w7_medium", impl, "same text: mpk get and to-json | jq compared before timing",
        "a child process per pass; manual time: its CPU time",
        [cmd, bytes, count = cfg.instructions, root = cfg.out_dir](benchmark::State& st) {
          if (count && detail::count_children(st, cmd, bytes, root)) return;
          for (auto _ : st) {
            const double sec = run_cpu_seconds(cmd);
            if (sec < 0) {
              st.SkipWithError("the command failed");
              return;
            }
            st.SetIterationTime(sec);
          }
          st.counters["ns_per_byte"] = benchmark::Counter(
              static_cast<double>(bytes) * 1e-9,
              benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
        });
    c.manual_time = true;
    // One pass is a repetition in the quick and default modes: a pass already takes longer
    // than their 0.05 s (mpk get ~0.065 s of CPU, mpk to-json ~0.16 s, to-json | jq ~3 s),
    // and three passes of jq made 30 s of the default mode. --full keeps three.
    c.iterations = cfg.min_time >= 0.5 ? 3 : 1;
    rate_rows().push_back({"cli_select_w7_medium", "W7 medium (MB/s of MessagePack)", impl});
  }
  return true;
}
#endif

}  // namespace

bool register_json_conversion(suite& s, const run_config& cfg) {
  const bool say = !cfg.list_only;
  std::size_t values = cfg.values != 0 ? cfg.values
                       : cfg.quick     ? small_fields::quick_values
                                       : small_fields::full_values;
  values -= values % small_fields::fields_per_record;
  if (values == 0) values = small_fields::fields_per_record;
  const std::vector<small_fields::record> records = small_fields::generate(values);

  auto w1 = std::make_shared<json_data>();
  w1->name = "w1";
  {
    mpk::writer w(w1->msgpack);
    for (const auto& r : records) {
      w.write(r.f0);
      w.write(r.f1);
      w.write(r.f2);
      w.write(r.f3);
      w.write(r.f4);
      w.write(r.f5);
      w.write(r.f6);
      w.write(r.f7());
    }
    if (!w.ok()) return report(false, "mpk writes W1", "");
  }
  auto large = std::make_shared<json_data>();
  large->name = "w7_large";
  {
    mpk::writer w(large->msgpack);
    if (!documents::write_case(w, "large") || !w.ok())
      return report(false, "mpk writes W7 large", "");
  }

  if (say) std::printf("JSON conversion: W1 small_fields (%zu values) and W7 large\n", values);
  if (say) std::printf("verification (docs/workloads.md rule 2):\n");
  bool ok = true;
  if (!cfg.list_only) {
    // W1: the text is exactly what the records say, and reads back to the same bytes.
    const bool w1_to = msgpack_to_json(w1->msgpack.bytes(), w1->json);
    const std::string expected = expected_w1_json(records);
    ok &= report(w1_to && w1->json == expected, "mpk to_json of W1 is the expected JSON text",
                 w1_to ? "" : "to_json failed");
    const bool w1_from = json_to_msgpack(w1->json, w1->back);
    ok &= report(w1_from && fnv1a64(w1->back.bytes()) == fnv1a64(w1->msgpack.bytes()) &&
                     w1->back.size() == w1->msgpack.size(),
                 "mpk from_json of that text gives back W1's exact bytes", "");
    // W7 large: value for value, binaries as base64 strings.
    const bool l_to = msgpack_to_json(large->msgpack.bytes(), large->json);
    const bool l_from = l_to && json_to_msgpack(large->json, large->back);
    const std::string diff = l_from ? compare_plain(large->msgpack.bytes(), large->back.bytes())
                                    : std::string("a conversion failed");
    ok &= report(diff.empty(),
                 "mpk from_json(to_json(W7 large)) has the same values, binaries as base64", diff);
  }
  if (!ok) {
    std::printf("JSON verification FAILED: not timing anything.\n");
    return false;
  }
  for (json_data* d : {w1.get(), large.get()}) {
    d->json_digest = fnv1a64(mpk::as_bytes(d->json));
    d->back_digest = fnv1a64(d->back.bytes());
  }

  workload_table& t = s.add_workload("json", "json_conversion",
                                     "JSON conversion (mpk::to_json, mpk::from_json)", "byte");
  json_table() = &t;
  t.add_fact("W1 small_fields: " + std::to_string(values) + " values, " +
             std::to_string(w1->msgpack.size()) + " bytes of MessagePack, " +
             std::to_string(w1->json.size()) + " bytes of JSON Lines (fnv1a64 " +
             hex64(w1->json_digest) + ")");
  t.add_fact("W7 large: " + std::to_string(large->msgpack.size()) + " bytes of MessagePack, " +
             std::to_string(large->json.size()) + " bytes of JSON (plain: binaries as base64)");
  t.add_fact(
      "ns per byte of the input: the MessagePack bytes for to_json, the JSON text for "
      "from_json; MB/s = 1000 / (ns per byte)");
  t.add_implementation({"mpk", "mpk " MPK_BENCH_MPK_VERSION,
                        "this project: mpk::to_json_lines (plain mode) into a reused "
                        "std::string, one call for all the values; mpk::from_json into a "
                        "reused mpk::buffer, one call for the whole text"});

  t.add_case({"to_json_w1", "to JSON, W1 small_fields",
              "W1's implicit encoding to JSON Lines, one text per value"});
  t.add_case({"to_json_w7_large", "to JSON, W7 large",
              "the W7 large document to one JSON text (binaries as base64)"});
  t.add_case({"from_json_w1", "from JSON, W1 small_fields",
              "the JSON Lines text of W1 (as to_json writes it) to MessagePack"});
  t.add_case({"from_json_w7_large", "from JSON, W7 large",
              "the JSON text of W7 large (as to_json writes it) to MessagePack; the text is "
              "over 1 MiB, so each call allocates simdjson's parser anew"});

  for (const auto& d : {w1, large}) {
    const std::string to_case = "to_json_" + d->name;
    const std::string from_case = "from_json_" + d->name;
    t.add(to_case, "mpk",
          d == w1 ? "same values: the JSON text written independently from the records; "
                    "from_json reads it back to W1's bytes"
                  : "same values: from_json reads it back to the document's values, "
                    "binaries as base64 strings",
          "std::string reserved once; mpk::reader over the bytes; one to_json_lines call",
          [d](benchmark::State& st) {
            std::string out;
            out.reserve(d->json.size());
            const bytes_view in = d->msgpack.bytes();
            msgpack_to_json(in, out);  // warm-up: the first call's page faults are not timed
            time_passes(
                st, in.size(), "byte",
                [&] { return msgpack_to_json(in, out) ? out.data() : nullptr; },
                [&](const char* last) {
                  if (last == nullptr) return std::string("to_json failed");
                  return digest_check(mpk::as_bytes(out), d->json_digest);
                });
          });
    t.add(from_case, "mpk", "same values: the bytes checked in the to_json verification",
          "mpk::buffer reserved once; from_json of the whole text", [d](benchmark::State& st) {
            mpk::buffer out(d->back.size());
            const std::string_view in = d->json;
            json_to_msgpack(in, out);  // warm-up
            time_passes(
                st, in.size(), "byte",
                [&] { return json_to_msgpack(in, out) ? out.data() : nullptr; },
                [&](const std::byte* last) {
                  if (last == nullptr) return std::string("from_json failed");
                  return digest_check(out.bytes(), d->back_digest);
                });
          });
    rate_rows().push_back({to_case, "to JSON, " + d->name + " (MB/s of MessagePack)"});
    rate_rows().push_back({from_case, "from JSON, " + d->name + " (MB/s of JSON text)"});
  }
#ifdef MPK_BENCH_TOOL
  if (!cfg.list_only && !register_cli_cells(t, cfg, say)) return false;
#endif
  return true;
}

void add_json_rates(suite&) {
  workload_table* t = json_table();
  if (t == nullptr) return;
  for (const rate_row& row : rate_rows()) {
    const cell* c = t->find(row.case_name, row.impl);
    if (c == nullptr || c->ns_per_unit.empty() || !c->error.empty()) continue;
    char text[160];
    std::snprintf(text, sizeof text, "%s %s: %.0f MB/s (median of %zu)", row.impl.c_str(),
                  row.what.c_str(), 1000.0 / verify::median(c->ns_per_unit), c->ns_per_unit.size());
    t->add_fact(text);
  }
  // The CLI case's targets are a ratio (issue 16: get at least 5x to-json's rate of the same
  // input) as well as a rate; the ratio of the medians, both measured in this run.
  const cell* get = t->find("cli_select_w7_medium", "mpk_get");
  const cell* whole = t->find("cli_select_w7_medium", "mpk_to_json");
  if (get != nullptr && whole != nullptr && !get->ns_per_unit.empty() &&
      !whole->ns_per_unit.empty() && get->error.empty() && whole->error.empty()) {
    char text[160];
    std::snprintf(text, sizeof text,
                  "mpk get .bool reads W7 medium %.1f times as fast as mpk to-json (ratio of the "
                  "medians' MB/s)",
                  verify::median(whole->ns_per_unit) / verify::median(get->ns_per_unit));
    t->add_fact(text);
  }
}

}  // namespace mpk_bench
