// bench/support/suite.cpp - cells, the collecting reporter, and the CSV / Markdown output.
#include "suite.hpp"

#include <msgpack/version_master.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <regex>
#include <sstream>

#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

// Instruction counts (mpk_bench --instructions under callgrind): the client requests of
// valgrind's callgrind.h (Debian package valgrind); without the header the counts are empty.
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define MPK_BENCH_CALLGRIND 1
#else
#define MPK_BENCH_CALLGRIND 0
#endif

#ifndef MPK_BENCH_MPK_VERSION
#define MPK_BENCH_MPK_VERSION "unknown"
#endif

namespace mpk_bench {

// --- cells -------------------------------------------------------------------------------

cell& workload_table::add(const std::string& case_name, const std::string& impl,
                          std::string verification, std::string note,
                          std::function<void(benchmark::State&)> fn) {
  const std::pair<std::string, std::string> key{case_name, impl};
  cell& c = cells_[key];
  if (!c.registered) order_.push_back(key);
  c.verification = std::move(verification);
  c.note = std::move(note);
  c.registered = true;
  c.run = std::move(fn);
  return c;
}

cell* workload_table::find(const std::string& case_name, const std::string& impl) {
  auto it = cells_.find({case_name, impl});
  return it == cells_.end() ? nullptr : &it->second;
}

cell* suite::find(const std::string& benchmark_name) {
  const auto a = benchmark_name.find('/');
  if (a == std::string::npos) return nullptr;
  const auto b = benchmark_name.find('/', a + 1);
  if (b == std::string::npos) return nullptr;
  const std::string id = benchmark_name.substr(0, a);
  const std::string case_name = benchmark_name.substr(a + 1, b - a - 1);
  const std::string impl = benchmark_name.substr(b + 1);
  for (auto& t : tables_)
    if (t->id() == id) return t->find(case_name, impl);
  return nullptr;
}

namespace {

/// Reports to no one: keeps the iterations and the time Google Benchmark decided on by the
/// last run of each calibration registration.
class calibration_reporter : public benchmark::BenchmarkReporter {
 public:
  struct result {
    std::int64_t iterations = 0;
    double seconds = 0;  ///< what Google Benchmark compares with the minimum time
  };
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration || run.error_occurred) continue;
      // The seconds Google Benchmark's ramp-up looks at: CPU time, or the manual time (which
      // Google Benchmark reports as the real time) of a cell that sets its own.
      const bool manual = run.run_name.time_type == "manual_time";
      results[run.run_name.function_name] = {
          static_cast<std::int64_t>(run.iterations),
          manual ? run.real_accumulated_time : run.cpu_accumulated_time};
    }
  }
  std::map<std::string, result> results;
};

/// The count of every repetition after a calibration run of `iterations` that lasted
/// `seconds` (over a tenth of `min_time`): 1.1 x min_time at that pace, and at least one
/// more than before. A run that already lasted min_time is the final count.
///
/// Google Benchmark 1.7 predicts 1.4 x min_time (benchmark_runner.cc, PredictNumItersNeeded):
/// its margin makes the next ramp-up run reach min_time in one step, and a run that falls
/// short is simply followed by a longer one. Here nothing follows: the count is final, so the
/// margin only makes every repetition longer (0.07 s instead of 0.05 s, a quarter of the
/// default mode's timed loops) without a better figure. The margin left absorbs the pace
/// measured in one run of a tenth of min_time: in the reference run 1620Z the repetitions
/// lasted 0.97-1.24x the calibrated length (quartiles; 0.66-2.1x at the 1st and 99th
/// percentiles, the VM's speed changing between calibration and repetition): with 1.1, 85% of
/// those 2,265 repetitions of more than one iteration would have lasted min_time or more (97%
/// with 1.4, 79% with 1.05), the shortest 0.73 x min_time.
std::int64_t predicted_iterations(std::int64_t iterations, double seconds, double min_time) {
  constexpr std::int64_t max_iterations = 1000000000;  // Google Benchmark's kMaxIterations
  constexpr double margin = 1.1;
  if (iterations <= 0 || !(seconds > 0)) return 0;
  if (seconds >= min_time) return iterations;
  const double n = std::max(min_time * margin / seconds * static_cast<double>(iterations),
                            static_cast<double>(iterations) + 1.0);
  return std::min(static_cast<std::int64_t>(std::llround(n)), max_iterations);
}

/// --benchmark_filter as Google Benchmark 1.7 reads it (re.h: POSIX extended syntax, searched
/// anywhere in the name; "all" or nothing: every name; a leading '-': the names it does not
/// match). Sets `negative`; nullopt, with the reason on stderr, when it is not a regular
/// expression.
std::optional<std::regex> parse_filter(const std::string& filter, bool& negative) {
  std::string spec = filter;
  negative = !spec.empty() && spec[0] == '-';
  if (negative) spec.erase(0, 1);
  if (spec.empty() || spec == "all") spec = ".";
  try {
    return std::regex(spec, std::regex::extended | std::regex::nosubs);
  } catch (const std::regex_error& e) {
    std::fprintf(stderr, "mpk_bench: --benchmark_filter=%s: %s\n", filter.c_str(), e.what());
    return std::nullopt;
  }
}

}  // namespace

bool filter_is_valid(const std::string& filter) {
  bool negative = false;
  return parse_filter(filter, negative).has_value();
}

bool suite::register_benchmarks(const run_config& cfg) {
  const int reps = cfg.instructions ? 1 : std::max(cfg.repetitions, 1);
  bool negative = false;
  const std::optional<std::regex> filter = parse_filter(cfg.filter, negative);
  if (!filter) return false;
  // Every row's cells, in run order.
  struct row_cells {
    std::string prefix;                                ///< "<id>/<case>/"
    std::vector<std::pair<std::string, cell*>> cells;  ///< implementation order
  };
  std::vector<row_cells> rows;
  for (auto& t : tables_) {
    // Rows in the order of the table's cases, then any case only a cell named.
    std::vector<std::string> names;
    for (const auto& c : t->cases())
      names.push_back(c.name);
    for (const auto& key : t->order_)
      if (std::find(names.begin(), names.end(), key.first) == names.end())
        names.push_back(key.first);
    for (const auto& row : names) {
      row_cells r{t->id() + "/" + row + "/", {}};
      for (const auto& i : t->implementations())
        if (cell* c = t->find(row, i.name); c != nullptr && c->registered)
          r.cells.emplace_back(i.name, c);
      for (const auto& key : t->order_)
        if (key.first == row && std::none_of(r.cells.begin(), r.cells.end(), [&](const auto& rc) {
              return rc.first == key.second;
            }))
          r.cells.emplace_back(key.second, &t->cells_[key]);
      std::erase_if(r.cells, [&](const auto& rc) {
        return std::regex_search(r.prefix + rc.first, *filter) == negative;
      });
      if (!r.cells.empty()) rows.push_back(std::move(r));
    }
  }
  if (rows.empty())
    std::fprintf(stderr, "mpk_bench: no cell matches --benchmark_filter=%s\n", cfg.filter.c_str());

  // The registration of one run of a cell; the cell's name, for the instruction count's dump
  // (Google Benchmark 1.7's State does not tell its benchmark's name).
  // The timed loop's check runs until one run of the cell has passed it (the calibration's
  // first, as a rule): a failed check leaves it due, so the timed repetitions report it.
  auto add = [](const std::string& name, cell& c) {
    benchmark::internal::Benchmark* b = benchmark::RegisterBenchmark(
        name.c_str(), [run = c.run, name, &checked = c.checked](benchmark::State& state) {
          detail::running_cell = name;
          detail::check_due = !checked;
          run(state);
          if (!state.error_occurred()) checked = true;
        });
    if (c.manual_time) b->UseManualTime();
    return b;
  };
  auto min_time_of = [&](const cell& c) { return c.min_time > 0 ? c.min_time : cfg.min_time; };

  if (reps > 1 && !cfg.list_only && !cfg.instructions) {
    // Calibration: one registration per cell, run until it lasts a tenth of its minimum time.
    std::size_t n = 0;
    for (const auto& r : rows)
      for (const auto& [impl, c] : r.cells)
        if (c->iterations == 0) {
          add(r.prefix + impl, *c)->MinTime(min_time_of(*c) / 10);
          ++n;
        }
    if (n > 0) {
      // The process's CPU time so far (data, verification) and the calibration's, in the log:
      // on the shared VM the wall time says more about the neighbours than about the run.
      auto cpu_seconds = [] {
        rusage u{};
        getrusage(RUSAGE_SELF, &u);
        return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
               static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
      };
      const double cpu0 = cpu_seconds();
      std::printf(
          "calibration: %zu cells, the iterations of a %g s repetition (%.1f s of CPU "
          "so far)...\n",
          n, cfg.min_time, cpu0);
      std::fflush(stdout);
      const auto t0 = std::chrono::steady_clock::now();
      calibration_reporter calibration;
      benchmark::RunSpecifiedBenchmarks(&calibration);
      benchmark::ClearRegisteredBenchmarks();
      for (const auto& r : rows)
        for (const auto& [impl, c] : r.cells)
          if (auto it = calibration.results.find(r.prefix + impl);
              c->iterations == 0 && it != calibration.results.end())
            c->calibrated_iterations =
                predicted_iterations(it->second.iterations, it->second.seconds, min_time_of(*c));
      std::printf("calibration: done in %.1f s (%.1f s of CPU)\n",
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
                  cpu_seconds() - cpu0);
    }
  }

  for (const auto& r : rows) {
    const std::size_t n = r.cells.size();
    for (int rep = 0; rep < reps; ++rep) {
      for (std::size_t k = 0; k < n; ++k) {
        const auto& [impl, c] = r.cells[(k + static_cast<std::size_t>(rep)) % n];
        benchmark::internal::Benchmark* b = add(r.prefix + impl, *c);
        if (cfg.instructions)
          b->Iterations(1);
        else if (c->iterations > 0)
          b->Iterations(c->iterations);
        else if (c->calibrated_iterations > 0)
          b->Iterations(c->calibrated_iterations);
        else if (c->min_time > 0)
          b->MinTime(c->min_time);
      }
    }
  }
  return true;
}

namespace detail {
std::string running_cell;
bool check_due = true;

#if MPK_BENCH_CALLGRIND
void start_counting() noexcept {
  if (RUNNING_ON_VALGRIND == 0) return;
  // Instrumentation starts with the first timed loop and stays on: the verification before
  // it runs uninstrumented (fast), and turning it off and on again for every cell would
  // retranslate the code each time (seconds per cell).
  static bool instrumenting = false;
  if (!instrumenting) {
    CALLGRIND_START_INSTRUMENTATION;
    instrumenting = true;
  }
  CALLGRIND_ZERO_STATS;
}

void stop_counting(const benchmark::State& state, std::size_t units) {
  if (RUNNING_ON_VALGRIND == 0) return;
  const std::string name = running_cell + " units=" +
                           std::to_string(static_cast<unsigned long long>(state.iterations()) *
                                          static_cast<unsigned long long>(units));
  CALLGRIND_DUMP_STATS_AT(name.c_str());
}

bool count_children(benchmark::State& state, const std::string& command, std::size_t units,
                    const std::string& dump_root) {
  if (RUNNING_ON_VALGRIND == 0) return false;
  // The children start with instrumentation on: mpk_bench's callgrind runs with
  // --instr-atstart=no, which a traced child would inherit (and count nothing), so they get a
  // callgrind of their own. mpk_bench's callgrind does not trace children: that valgrind runs
  // natively.
  std::string leaf = running_cell;
  std::replace(leaf.begin(), leaf.end(), '/', '_');
  const std::filesystem::path dir =
      std::filesystem::absolute(std::filesystem::path(dump_root) / "callgrind-children" / leaf);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);  // an earlier run's dumps would be counted too
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    state.SkipWithError(("cannot create " + dir.string() + ": " + ec.message()).c_str());
    return true;
  }
  const std::string out_file = "--callgrind-out-file=" + (dir / "callgrind.out.%p").string();
  // The command as the timing runs it (std::system: /bin/sh -c), so the shell is counted too.
  const char* const argv[] = {"valgrind",
                              "--tool=callgrind",
                              "--trace-children=yes",
                              "--dump-line=no",
                              "-q",
                              out_file.c_str(),
                              "/bin/sh",
                              "-c",
                              command.c_str(),
                              nullptr};
  for (auto _ : state) {
    pid_t pid = 0;
    int status = 0;
    const bool ran = posix_spawnp(&pid, "valgrind", nullptr, nullptr,
                                  const_cast<char* const*>(argv), environ) == 0 &&
                     waitpid(pid, &status, 0) == pid;
    if (!ran || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      state.SkipWithError("the command failed under callgrind");
      return true;
    }
    // No iteration time: this pass counts, it does not time.
  }
  const std::string name = running_cell + " units=" +
                           std::to_string(static_cast<unsigned long long>(state.iterations()) *
                                          static_cast<unsigned long long>(units)) +
                           " children=" + dir.string();
  CALLGRIND_DUMP_STATS_AT(name.c_str());
  return true;
}
#else
void start_counting() noexcept {}
void stop_counting(const benchmark::State&, std::size_t) {}
bool count_children(benchmark::State&, const std::string&, std::size_t, const std::string&) {
  return false;
}
#endif

std::chrono::nanoseconds warm_up_time() noexcept {
#if MPK_BENCH_CALLGRIND
  if (RUNNING_ON_VALGRIND != 0) return std::chrono::nanoseconds(0);  // counts: one pass
#endif
  return std::chrono::milliseconds(5);
}
}  // namespace detail

// --- reporter ----------------------------------------------------------------------------

namespace {
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) {
        auto start = line.find_first_not_of(' ', colon + 1);
        return start == std::string::npos ? std::string() : line.substr(start);
      }
    }
  }
  return "unknown CPU";
}

std::string compiler() {
#if defined(__clang__)
  return std::string("Clang ") + __clang_version__;
#elif defined(__GNUC__)
  return std::string("GCC ") + __VERSION__;
#else
  return "unknown compiler";
#endif
}
}  // namespace

bool collecting_reporter::ReportContext(const Context& context) {
  std::ostringstream m;
  const auto& cpu = context.cpu_info;
  m << cpu_model() << ", " << cpu.num_cpus << " CPUs @ "
    << static_cast<long long>(std::llround(cpu.cycles_per_second / 1e6)) << " MHz";
  if (!cpu.caches.empty()) {
    m << ", caches";
    for (const auto& c : cpu.caches) {
      m << " L" << c.level
        << (c.type == "Instruction" ? "i"
            : c.type == "Data"      ? "d"
                                    : "")
        << " " << c.size / 1024 << " KiB";
    }
  }
  m << "; " << compiler() << "; mpk " << MPK_BENCH_MPK_VERSION << ", msgpack-cxx "
    << MSGPACK_VERSION_MAJOR << "." << MSGPACK_VERSION_MINOR << "." << MSGPACK_VERSION_REVISION
    << ", Google Benchmark (Debian libbenchmark-dev)";
#ifdef NDEBUG
  m << "; NDEBUG";
#else
  m << "; assertions ON (not a release build)";
#endif
  machine_ = m.str();
  return ConsoleReporter::ReportContext(context);
}

void collecting_reporter::ReportRuns(const std::vector<Run>& runs) {
  for (const Run& run : runs) {
    if (run.run_type != Run::RT_Iteration) continue;
    cell* c = suite_.find(run.run_name.function_name);
    if (run.error_occurred) {
      ++errors_;
      if (c != nullptr) c->error = run.error_message;
      continue;
    }
    if (c == nullptr) continue;
    for (const auto& [name, counter] : run.counters) {
      if (name.rfind("ns_per_", 0) == 0) c->ns_per_unit.push_back(counter.value);
      if (name == "bytes_alloc") c->alloc_bytes = counter.value;
      if (name == "allocs") c->allocs = counter.value;
    }
  }
  // ns_per_<unit> is already a number of nanoseconds; without its rate flags the console
  // prints it as such (with them it would append "s").
  std::vector<Run> shown = runs;
  for (Run& run : shown)
    for (auto& [name, counter] : run.counters)
      if (name.rfind("ns_per_", 0) == 0) counter.flags = benchmark::Counter::kDefaults;
  ConsoleReporter::ReportRuns(shown);
}

// --- tables ------------------------------------------------------------------------------

namespace {

struct stats {
  double median = 0;
  double spread_pct = 0;  ///< robust: median absolute deviation / median, in %
  double range_pct = 0;   ///< (max - min) / median, in % (the spread of earlier runs)
  std::size_t n = 0;
};

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t mid = v.size() / 2;
  return v.size() % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

// The same statistics as the runner's (bench/runner/resultformat.py, which recomputes them
// from the repetitions in the CSV): docs/benchmark-suite.md, "Statistics".
stats summarize(std::vector<double> v) {
  stats s;
  s.n = v.size();
  if (v.empty()) return s;
  s.median = median_of(v);
  if (v.size() < 2 || s.median <= 0) return s;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  s.range_pct = (*hi - *lo) / s.median * 100.0;
  std::vector<double> dev;
  for (double x : v)
    dev.push_back(x > s.median ? x - s.median : s.median - x);
  s.spread_pct = median_of(dev) / s.median * 100.0;
  return s;
}

constexpr double noisy_pct = 5.0;

/// Three significant figures: 0.853, 1.10, 41.3, 123.
std::string format_ns(double ns) {
  char text[32];
  if (ns < 1)
    std::snprintf(text, sizeof text, "%.3f", ns);
  else if (ns < 10)
    std::snprintf(text, sizeof text, "%.2f", ns);
  else if (ns < 100)
    std::snprintf(text, sizeof text, "%.1f", ns);
  else
    std::snprintf(text, sizeof text, "%.0f", ns);
  return text;
}

std::string format_bytes(double b) {
  char text[32];
  if (b < 0) return "not measured";
  if (b < 1000)
    std::snprintf(text, sizeof text, "%.0f B", b);
  else if (b < 1000 * 1024)
    std::snprintf(text, sizeof text, "%.1f KiB", b / 1024);
  else if (b < 1000.0 * 1024 * 1024)
    std::snprintf(text, sizeof text, "%.1f MiB", b / (1024 * 1024));
  else
    std::snprintf(text, sizeof text, "%.1f GiB", b / (1024.0 * 1024 * 1024));
  return text;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char ch : s) {
    if (ch == '"') q += '"';
    q += ch;
  }
  return q + "\"";
}

std::string md_escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '|') out += '\\';
    out += ch;
  }
  return out;
}

/// The Markdown report of one workload.
std::string markdown(workload_table& t, const run_config& cfg, const std::string& machine) {
  std::ostringstream md;
  const auto& impls = t.implementations();
  md << "## " << t.title() << "\n\n";
  md << "Nanoseconds per " << t.unit() << ", median of " << cfg.repetitions
     << (cfg.repetitions == 1 ? " repetition" : " repetitions")
     << " (lower is better; fastest of each row in bold)" << (cfg.quick ? "; QUICK run" : "")
     << ".\n\n";
  md << "Machine: " << machine << ".\n\n";
  for (const auto& f : t.facts())
    md << "- " << f << "\n";
  if (!t.facts().empty()) md << "\n";

  // Main table.
  md << "| case |";
  for (const auto& i : impls)
    md << " " << md_escape(i.title) << " |";
  md << "\n|:--|";
  for (std::size_t k = 0; k < impls.size(); ++k)
    md << "--:|";
  md << "\n";
  bool any_noisy = false;
  for (const auto& c : t.cases()) {
    double best = -1;
    for (const auto& i : impls) {
      const cell* x = t.find(c.name, i.name);
      if (x != nullptr && x->error.empty() && !x->ns_per_unit.empty()) {
        const double m = summarize(x->ns_per_unit).median;
        if (best < 0 || m < best) best = m;
      }
    }
    md << "| " << md_escape(c.title) << " |";
    for (const auto& i : impls) {
      const cell* x = t.find(c.name, i.name);
      std::string text;
      if (x == nullptr || !x->registered) {
        text = "n/a";
      } else if (!x->error.empty()) {
        text = "ERROR";
      } else if (x->ns_per_unit.empty()) {
        text = "not run";
      } else {
        const stats s = summarize(x->ns_per_unit);
        text = format_ns(s.median);
        if (s.median == best) text = "**" + text + "**";
        if (x->verification.rfind("different bytes", 0) == 0) text += " (different bytes)";
        if (s.spread_pct > noisy_pct) {
          char note[48];
          std::snprintf(note, sizeof note, " (noisy: %.1f%%)", s.spread_pct);
          text += note;
          any_noisy = true;
        }
      }
      md << " " << text << " |";
    }
    md << "\n";
  }
  md << "\n";
  if (any_noisy)
    md << "\"noisy\": the spread of the repetitions (median absolute deviation / median) is "
          "over "
       << noisy_pct << "%; rerun before drawing conclusions from that cell.\n\n";
  md << "n/a: the implementation has no equivalent; not run: filtered out of this run; "
        "(different bytes): it writes other bytes than mpk, for the reason given under "
        "Verification (its values still decode right).\n\n";

  // Spread table.
  md << "### Spread of the repetitions: median absolute deviation / median (range / median)"
        "\n\n| case |";
  for (const auto& i : impls)
    md << " " << md_escape(i.name) << " |";
  md << "\n|:--|";
  for (std::size_t k = 0; k < impls.size(); ++k)
    md << "--:|";
  md << "\n";
  for (const auto& c : t.cases()) {
    md << "| " << md_escape(c.title) << " |";
    for (const auto& i : impls) {
      const cell* x = t.find(c.name, i.name);
      if (x == nullptr || !x->registered || x->ns_per_unit.empty()) {
        md << " |";
        continue;
      }
      char text[48];
      const stats s = summarize(x->ns_per_unit);
      std::snprintf(text, sizeof text, "%.1f%% (%.1f%%)", s.spread_pct, s.range_pct);
      md << " " << text << " |";
    }
    md << "\n";
  }
  md << "\n";

  // Allocation table.
  md << "### Heap allocated per pass over the workload (bytes requested, allocation calls)\n\n";
  md << "| case |";
  for (const auto& i : impls)
    md << " " << md_escape(i.name) << " |";
  md << "\n|:--|";
  for (std::size_t k = 0; k < impls.size(); ++k)
    md << "--:|";
  md << "\n";
  for (const auto& c : t.cases()) {
    md << "| " << md_escape(c.title) << " |";
    for (const auto& i : impls) {
      const cell* x = t.find(c.name, i.name);
      if (x == nullptr || !x->registered || x->allocs < 0) {
        md << " |";
        continue;
      }
      char calls[32];
      std::snprintf(calls, sizeof calls, "%.0f", x->allocs);
      md << " " << format_bytes(x->alloc_bytes) << " (" << calls << ") |";
    }
    md << "\n";
  }
  md << "\n";

  // Verification.
  md << "### Verification (before timing, and the checksum / digest of the timed loop "
        "after it)\n\n";
  for (const auto& c : t.cases()) {
    for (const auto& i : impls) {
      const cell* x = t.find(c.name, i.name);
      if (x == nullptr || !x->registered) continue;
      md << "- " << md_escape(c.title) << " / " << i.name << ": " << x->verification;
      if (!x->error.empty()) md << " — ERROR in the timed run: " << x->error;
      md << "\n";
    }
  }
  md << "\n";

  // What each cell runs.
  md << "### What each case measures\n\n";
  for (const auto& c : t.cases()) {
    md << "- **" << c.title << "** (`" << t.id() << "/" << c.name << "/…`): " << c.description
       << "\n";
    for (const auto& i : impls) {
      const cell* x = t.find(c.name, i.name);
      if (x != nullptr && x->registered && !x->note.empty())
        md << "  - " << i.name << ": " << x->note << "\n";
    }
  }
  md << "\n### Implementations\n\n";
  for (const auto& i : impls)
    md << "- **" << i.title << "**: " << i.description << "\n";
  return md.str();
}

std::string csv(workload_table& t, const run_config& cfg) {
  std::ostringstream out;
  out << "workload,case,implementation,ns_per_" << t.unit()
      << "_median,spread_pct,repetitions,verification,range_pct,repetition_values\n";
  for (const auto& c : t.cases()) {
    for (const auto& i : t.implementations()) {
      const cell* x = t.find(c.name, i.name);
      if (x == nullptr || !x->registered) continue;
      if (x->ns_per_unit.empty() && x->error.empty()) continue;  // filtered out
      const stats s = summarize(x->ns_per_unit);
      std::string median, spread, range, values;
      if (x->error.empty()) {
        char a[32], b[32], r[32];
        std::snprintf(a, sizeof a, "%.4f", s.median);
        std::snprintf(b, sizeof b, "%.2f", s.spread_pct);
        std::snprintf(r, sizeof r, "%.2f", s.range_pct);
        median = a;
        spread = b;
        range = r;
        // Every repetition, in the order they ran (the runner computes its statistics
        // from these).
        for (double v : x->ns_per_unit) {
          char e[32];
          std::snprintf(e, sizeof e, "%s%.6g", values.empty() ? "" : " ", v);
          values += e;
        }
      }
      std::string verdict = x->verification;
      if (!x->error.empty()) verdict = "ERROR: " + x->error;
      out << t.name() << "," << c.name << "," << i.name << "," << median << "," << spread << ","
          << (x->error.empty() ? s.n : 0) << "," << csv_field(verdict) << "," << range << ","
          << values << "\n";
    }
  }
  (void)cfg;
  return out.str();
}

}  // namespace

bool write_reports(suite& s, const run_config& cfg, const std::string& machine) {
  bool ok = true;
  std::error_code ec;
  std::filesystem::create_directories(cfg.out_dir, ec);
  if (ec) {
    std::cerr << "mpk_bench: cannot create " << cfg.out_dir << ": " << ec.message() << "\n";
    ok = false;
  }
  for (auto& t : s.tables()) {
    const std::string md = markdown(*t, cfg, machine);
    std::cout << "\n" << md << std::flush;
    if (!ok) continue;
    const std::filesystem::path dir(cfg.out_dir);
    std::ofstream m(dir / (t->name() + ".md"));
    m << md;
    std::ofstream c(dir / (t->name() + ".csv"));
    c << csv(*t, cfg);
    if (!m || !c) {
      std::cerr << "mpk_bench: cannot write " << (dir / t->name()).string() << ".{md,csv}\n";
      ok = false;
    } else {
      std::cout << "\nwrote " << (dir / (t->name() + ".csv")).string() << " and "
                << (dir / (t->name() + ".md")).string() << "\n";
    }
  }
  return ok;
}

}  // namespace mpk_bench
