// bench/support/suite.hpp - what a workload registers, and how results become tables.
//
// A workload (W1 small_fields, later W2..W7) adds its cases and implementations to a
// `workload_table`, records a verification verdict for every cell before anything is timed,
// and adds one cell per implementation and case, named "<id>/<case>/<implementation>"
// (e.g. "w1/write_implicit/mpk"). `suite::register_benchmarks` then registers them with Google
// Benchmark, the repetitions of one case's implementations interleaved (see there). After the
// run, `collecting_reporter` has every repetition of every cell; `write_reports` prints the
// Markdown table and writes <name>.csv and <name>.md.
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "alloc_count.hpp"

namespace mpk_bench {

/// Options of one run of the benchmark binary.
struct run_config {
  bool quick = false;                      ///< fewer values, one repetition, short min time
  std::size_t values = 0;                  ///< override of a workload's value count (0: default)
  std::string out_dir = "results/latest";  ///< where the CSV and Markdown files go
  int repetitions = 5;                     ///< repetitions of every cell
  bool list_only = false;  ///< --benchmark_list_tests: register, verify nothing, write nothing
  /// --instructions: one timed pass per cell, its instructions counted by callgrind (the
  /// binary runs under `valgrind --tool=callgrind --instr-atstart=no`; see time_passes).
  bool instructions = false;
  /// Seconds per repetition (--benchmark_min_time; 0.05 by default and with --quick, Google
  /// Benchmark's 0.5 with --full): what register_benchmarks calibrates the iterations for.
  double min_time = 0.05;
  /// --benchmark_filter, applied by register_benchmarks to the cell names "<id>/<case>/<impl>"
  /// (Google Benchmark's own filter would see "/iterations:N" appended to them).
  std::string filter;
};

/// A library under test, e.g. {"msgpack-cxx", "msgpack-cxx 4.1.3", "packer + sbuffer, ..."}.
struct implementation_info {
  std::string name;         ///< column key and last part of benchmark names (no '/')
  std::string title;        ///< column heading, with the version
  std::string description;  ///< what API it is used through
};

/// A row of the table.
struct case_info {
  std::string name;         ///< middle part of benchmark names, e.g. "write_implicit"
  std::string title;        ///< row heading, e.g. "write implicit"
  std::string description;  ///< what is measured
};

/// One cell: its verification verdict, a note on how it was done, and its measurements.
struct cell {
  std::string verification;  ///< "same bytes", "different bytes: ...", "same values", ...
  std::string note;          ///< e.g. "sbuffer(64), doubling"
  bool registered = false;
  std::function<void(benchmark::State&)> run;  ///< the timed function, registered later
  double min_time = 0;                         ///< seconds per repetition; 0: the default
  /// The cell reports its own time (SetIterationTime), e.g. the CPU time of a child process.
  /// mpk_bench's callgrind does not count children: such a cell counts them with
  /// detail::count_children.
  bool manual_time = false;
  int iterations = 0;  ///< a fixed number of iterations per repetition; 0: Google Benchmark's
  /// Iterations per repetition found by suite::register_benchmarks' calibration (0: none).
  std::int64_t calibrated_iterations = 0;
  /// A run of this cell has checked its timed loop's last pass (time_passes) and passed: the
  /// later runs skip the check (suite::register_benchmarks).
  bool checked = false;
  std::vector<double> ns_per_unit;  ///< one per repetition
  double alloc_bytes = -1;          ///< per iteration (one pass over the workload)
  double allocs = -1;
  std::string error;  ///< set when Google Benchmark reported an error
};

/// The table of one workload: rows are cases, columns are implementations.
class workload_table {
 public:
  workload_table(std::string id, std::string name, std::string title, std::string unit)
      : id_(std::move(id)),
        name_(std::move(name)),
        title_(std::move(title)),
        unit_(std::move(unit)) {}

  const std::string& id() const noexcept { return id_; }
  const std::string& name() const noexcept { return name_; }
  const std::string& title() const noexcept { return title_; }
  const std::string& unit() const noexcept { return unit_; }

  void add_case(case_info c) { cases_.push_back(std::move(c)); }
  void add_implementation(implementation_info i) { impls_.push_back(std::move(i)); }
  /// Free text printed above the table (data size, encoded size, digests...).
  void add_fact(std::string line) { facts_.push_back(std::move(line)); }

  /// Adds the cell "<id>/<case>/<impl>" with its timed function; suite::register_benchmarks
  /// registers it with Google Benchmark. Returns the cell (e.g. to set a shorter `min_time`
  /// for --quick).
  cell& add(const std::string& case_name, const std::string& impl, std::string verification,
            std::string note, std::function<void(benchmark::State&)> fn);

  cell* find(const std::string& case_name, const std::string& impl);
  const std::vector<case_info>& cases() const noexcept { return cases_; }
  const std::vector<implementation_info>& implementations() const noexcept { return impls_; }
  const std::vector<std::string>& facts() const noexcept { return facts_; }

 private:
  std::string id_, name_, title_, unit_;
  std::vector<case_info> cases_;
  std::vector<implementation_info> impls_;
  std::vector<std::string> facts_;
  std::map<std::pair<std::string, std::string>, cell> cells_;
  std::vector<std::pair<std::string, std::string>> order_;  ///< cells in the order added
  friend class suite;
};

/// Every workload of this run.
class suite {
 public:
  workload_table& add_workload(std::string id, std::string name, std::string title,
                               std::string unit) {
    tables_.push_back(std::make_unique<workload_table>(std::move(id), std::move(name),
                                                       std::move(title), std::move(unit)));
    return *tables_.back();
  }
  /// The cell a benchmark name "<id>/<case>/<impl>" belongs to, or nullptr.
  cell* find(const std::string& benchmark_name);
  /// Registers every cell with Google Benchmark, one registration per repetition, in this
  /// order: workload by workload, case by case (the rows), and within a case repetition k of
  /// every implementation before repetition k + 1 of any (A B C, B C A, C A B...: the first
  /// implementation rotates). A burst of load from the neighbours then hits the
  /// implementations of a row alike, and a cell's spread measures minutes, not the whole run.
  /// With `cfg.instructions`, one registration of one iteration per cell.
  ///
  /// With 2 repetitions or more, it first calibrates (Google Benchmark runs, reported to no
  /// one): each cell runs until one run lasts a tenth of its minimum time, as Google
  /// Benchmark's own ramp-up does before it predicts its final count, and every repetition
  /// then runs the count predicted from that run for 1.1 x the minimum time
  /// (predicted_iterations). Left to Google Benchmark, every registration ramped up anew (1, 10,
  /// 100... iterations, each run with its own warm-up pass and set-up), which cost more than a
  /// third of the run. Only the cells `cfg.filter` matches are registered. Returns false when that
  /// filter is not a valid regular expression.
  bool register_benchmarks(const run_config& cfg);
  std::vector<std::unique_ptr<workload_table>>& tables() noexcept { return tables_; }

 private:
  std::vector<std::unique_ptr<workload_table>> tables_;
};

/// Whether `filter` (--benchmark_filter) is a regular expression; prints why not.
bool filter_is_valid(const std::string& filter);

namespace detail {
/// The name of the cell running ("w1/read_typed/mpk"), set by suite::register_benchmarks.
extern std::string running_cell;
/// Whether this run of the cell checks its last pass (time_passes' `check`): true until a run
/// of the cell has passed its check, set by suite::register_benchmarks.
extern bool check_due;
/// Under callgrind (mpk_bench --instructions): instrumentation on (from the first cell on)
/// and the counters zeroed, so that only the timed loop is counted (not the data set-up, the
/// verification or the warm-up pass). Nothing otherwise.
void start_counting() noexcept;
/// Under callgrind: a dump named "<benchmark> units=<units x iterations>" (the runner reads
/// the instructions per unit from it). Nothing otherwise.
void stop_counting(const benchmark::State& state, std::size_t units);
/// For a cell that times `/bin/sh -c command` (a child process and its own children), under
/// callgrind: runs it once per iteration under a callgrind of its own that follows every
/// process (`valgrind --tool=callgrind --trace-children=yes`), one dump per process in
/// `<dump_root>/callgrind-children/<benchmark, '/' as '_'>/`, then dumps
/// "<benchmark> units=<units x iterations> children=<that directory>": the runner counts the
/// children's dumps, not mpk_bench's. Returns false, having run nothing, when mpk_bench is not
/// under valgrind.
bool count_children(benchmark::State& state, const std::string& command, std::size_t units,
                    const std::string& dump_root);
/// How long a cell's warm-up lasts at least (time_passes): 5 ms, a single pass under
/// callgrind (the counts need only the timed pass).
std::chrono::nanoseconds warm_up_time() noexcept;
}  // namespace detail

/// Runs untimed passes for at least detail::warm_up_time() (the warm-up), then times one pass
/// over a workload per iteration and sets the counters every cell reports:
/// items (units) processed, "ns_per_<unit>", "bytes_alloc" and "allocs" per iteration.
/// `pass()` runs one pass and returns something to keep alive; `check(last)` runs after the
/// timing loop of a cell's runs until one has passed (detail::check_due) and returns an error
/// message (empty when the last pass was right).
template <class Pass, class Check>
void time_passes(benchmark::State& state, std::size_t units, const std::string& unit, Pass&& pass,
                 Check&& check) {
  // Warm-up (docs/workloads.md rule 3): untimed passes, at least one. Google Benchmark calls a
  // cell anew for each repetition, and a cell's first pass pays for what it set up (page
  // faults of a fresh output buffer, a buffer grown to size, cold caches); a repetition of a
  // few passes would otherwise count that as the implementation's time. At least 5 ms: with
  // a calibrated iteration count a repetition no longer follows Google Benchmark's ramp-up
  // runs of the same cell, and after a single 1 ms pass the W1 cells of a run on the idle VM
  // had spreads of 4-11% (0.3% before the calibration). Allocations are counted after.
  const auto warm_until = std::chrono::steady_clock::now() + detail::warm_up_time();
  decltype(pass()) last = pass();
  while (std::chrono::steady_clock::now() < warm_until)
    last = pass();
  benchmark::DoNotOptimize(last);
  const alloc_count::snapshot before = alloc_count::now();
  detail::start_counting();
  for (auto _ : state) {
    last = pass();
    benchmark::DoNotOptimize(last);
    benchmark::ClobberMemory();
  }
  detail::stop_counting(state, units);
  const alloc_count::snapshot after = alloc_count::now();
  const auto iterations = static_cast<double>(state.iterations());
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(units));
  // A rate over `units * 1e-9` per iteration, inverted: nanoseconds per unit.
  state.counters["ns_per_" + unit] = benchmark::Counter(
      static_cast<double>(units) * 1e-9,
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  if (iterations > 0) {
    state.counters["bytes_alloc"] =
        benchmark::Counter(static_cast<double>(after.bytes - before.bytes) / iterations);
    state.counters["allocs"] =
        benchmark::Counter(static_cast<double>(after.calls - before.calls) / iterations);
  }
  // Once per cell: the repetitions run the same passes over the same data, and a check can
  // cost as much as the timed loop (the digest of W2's 32 MiB writes).
  if (!detail::check_due) return;
  if (std::string message = check(last); !message.empty()) state.SkipWithError(message.c_str());
}

/// A console reporter that also keeps every repetition for the tables.
class collecting_reporter : public benchmark::ConsoleReporter {
 public:
  explicit collecting_reporter(suite& s) : ConsoleReporter(OO_Tabular), suite_(s) {}
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  /// Number of runs that reported an error (a failed check counts).
  int errors() const noexcept { return errors_; }
  /// "AMD EPYC ..., 2 CPUs @ 4192 MHz, caches ...".
  const std::string& machine() const noexcept { return machine_; }

 private:
  suite& suite_;
  int errors_ = 0;
  std::string machine_;
};

/// Prints the table of every workload to stdout and writes <out_dir>/<name>.csv and .md.
/// Returns false when a file could not be written.
bool write_reports(suite& s, const run_config& cfg, const std::string& machine);

}  // namespace mpk_bench
