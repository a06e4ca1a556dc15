// bench/main.cpp - mpk_bench: every workload, every implementation, one run.
//
//     mpk_bench [--quick | --full] [--instructions] [--out DIR] [--values N] [Google Benchmark
//     flags...]
//
// Verifies every implementation before timing (a wrong value stops the run with exit code
// 1), runs the benchmarks through Google Benchmark, then prints one Markdown table per
// workload and writes DIR/<workload>.csv and DIR/<workload>.md (DIR: --out, else the
// environment variable MPK_RESULTS_DIR as scripts/bench sets it, else results/latest).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "support/alloc_count.hpp"
#include "support/suite.hpp"
#include "workloads.hpp"

namespace {

void usage() {
  std::printf(
      "usage: mpk_bench [--quick | --full] [--instructions] [--out DIR] [--values N]\n"
      "                 [Google Benchmark flags...]\n"
      "\n"
      "  (default)      full data, 5 repetitions of ~0.055 s per cell (1.1 x 0.05 s)\n"
      "  --quick        100,000 values per workload, 1 repetition, 0.05 s minimum time\n"
      "  --full         full data, 5 repetitions of ~0.55 s per cell (reference runs)\n"
      "  --instructions one pass per cell, counted by callgrind: run it under\n"
      "                 valgrind --tool=callgrind --instr-atstart=no (with --quick data)\n"
      "  --out DIR      where to write <workload>.csv and <workload>.md (default:\n"
      "                 $MPK_RESULTS_DIR if set, else results/latest)\n"
      "  --values N     values per workload instead of the default (W1: 1,000,000)\n"
      "\n"
      "Other flags go to Google Benchmark, e.g. --benchmark_filter=w1/read,\n"
      "--benchmark_repetitions=9 (default 5; 1 with --quick), --benchmark_min_time=1.\n"
      "The repetitions of one case's implementations run interleaved (A B, B A, ...).\n"
      "--benchmark_out=run.json --benchmark_out_format=json. Benchmarks are named\n"
      "<workload>/<case>/<implementation>, e.g. w1/read_typed/mpk. See docs/benchmarks.md.\n");
}

bool starts_with(const char* s, const char* prefix) {
  return std::strncmp(s, prefix, std::strlen(prefix)) == 0;
}

/// Registers every workload in the order of docs/workloads.md (each verifies its cells first).
/// False when a workload found wrong values: the run stops.
bool register_all(mpk_bench::suite& suite, const mpk_bench::run_config& cfg) {
  using namespace mpk_bench;
  for (auto* add :
       {register_small_fields, register_strings_binary, register_flat_maps, register_deep_nesting,
        register_typed_objects, register_lua_bench, register_documents, register_json_conversion}) {
    if (!add(suite, cfg)) return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  mpk_bench::run_config cfg;
  if (const char* env = std::getenv("MPK_RESULTS_DIR"); env != nullptr && *env != '\0')
    cfg.out_dir = env;
  std::vector<std::string> pass_on{argv[0]};
  bool user_repetitions = false;
  bool user_min_time = false;
  bool full = false;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (std::strcmp(a, "--quick") == 0) {
      cfg.quick = true;
    } else if (std::strcmp(a, "--full") == 0) {
      full = true;
    } else if (std::strcmp(a, "--instructions") == 0) {
      cfg.instructions = true;
    } else if (std::strcmp(a, "--out") == 0 && i + 1 < argc) {
      cfg.out_dir = argv[++i];
    } else if (starts_with(a, "--out=")) {
      cfg.out_dir = a + 6;
    } else if (std::strcmp(a, "--values") == 0 && i + 1 < argc) {
      cfg.values = static_cast<std::size_t>(std::strtoull(argv[++i], nullptr, 10));
    } else if (starts_with(a, "--values=")) {
      cfg.values = static_cast<std::size_t>(std::strtoull(a + 9, nullptr, 10));
    } else if (std::strcmp(a, "--help") == 0 || std::strcmp(a, "-h") == 0) {
      usage();
      return 0;
    } else if (starts_with(a, "--benchmark_display_aggregates_only") ||
               starts_with(a, "--benchmark_report_aggregates_only")) {
      // The tables need every repetition: the reporter would not see them.
      std::fprintf(stderr, "mpk_bench: %s is not supported (the tables need every repetition)\n",
                   a);
      return 2;
    } else {
      if (starts_with(a, "--benchmark_repetitions=")) {
        // Ours: suite::register_benchmarks registers each repetition (interleaved).
        user_repetitions = true;
        cfg.repetitions = std::atoi(a + std::strlen("--benchmark_repetitions="));
        continue;
      }
      if (starts_with(a, "--benchmark_filter=")) {
        // Ours too: Google Benchmark would match it against names with "/iterations:N"
        // appended (suite::register_benchmarks).
        cfg.filter = a + std::strlen("--benchmark_filter=");
        continue;
      }
      if (starts_with(a, "--benchmark_min_time")) {
        user_min_time = true;
        if (starts_with(a, "--benchmark_min_time="))
          cfg.min_time = std::strtod(a + std::strlen("--benchmark_min_time="), nullptr);
      }
      if (std::strcmp(a, "--benchmark_list_tests") == 0 ||
          std::strcmp(a, "--benchmark_list_tests=true") == 0)
        cfg.list_only = true;
      pass_on.emplace_back(a);
    }
  }
  if (!user_repetitions) cfg.repetitions = cfg.quick ? 1 : 5;
  pass_on.emplace_back("--benchmark_repetitions=1");  // per registration
  if (cfg.repetitions < 1) cfg.repetitions = 1;
  if (!mpk_bench::filter_is_valid(cfg.filter)) return 2;  // before the data and verification
  // --benchmark_list_tests lists each cell once, or, with --benchmark_repetitions=N, every
  // registration in the order they would run (tests/bench checks the interleaving so).
  if (cfg.list_only && !user_repetitions) cfg.repetitions = 1;
  // 0.05 s per repetition (quick and default modes); --full keeps Google Benchmark's own
  // default, 0.5 s.
  if (!user_min_time && !full) pass_on.emplace_back("--benchmark_min_time=0.05");
  if (!user_min_time && full) cfg.min_time = 0.5;

  std::vector<char*> args;
  for (auto& s : pass_on)
    args.push_back(s.data());
  int n = static_cast<int>(args.size());
  args.push_back(nullptr);
  // One line at a time even into a pipe: the runner's progress bar counts the lines as they
  // come (block buffering held them back for minutes).
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 2;

  if (cfg.list_only) {
    // Only the names of the benchmarks: no verification, no timing, no result files.
    mpk_bench::suite suite;
    if (!register_all(suite, cfg)) return 1;
    if (!suite.register_benchmarks(cfg)) return 2;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
  }

  std::printf("mpk_bench: %s run, %d repetition%s, results to %s/\n",
              cfg.instructions ? "INSTRUCTIONS"
              : cfg.quick      ? "QUICK"
              : full           ? "full"
                               : "default",
              cfg.instructions ? 1 : cfg.repetitions, cfg.repetitions == 1 ? "" : "s",
              cfg.out_dir.c_str());
  const bool counting = mpk_bench::alloc_count::active();
  std::printf("heap allocation counting: %s\n\n", counting ? "on" : "OFF (not measured)");

  mpk_bench::suite suite;
  if (!register_all(suite, cfg)) return 1;
  if (!suite.register_benchmarks(cfg)) return 2;
  std::printf("\n");
  std::fflush(stdout);

  mpk_bench::collecting_reporter reporter(suite);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  mpk_bench::add_deep_nesting_per_level(suite);
  mpk_bench::add_strings_binary_rates(suite);
  mpk_bench::add_json_rates(suite);

  const bool written = mpk_bench::write_reports(suite, cfg, reporter.machine());
  if (reporter.errors() != 0) {
    std::fprintf(stderr, "mpk_bench: %d benchmark run(s) failed their check (see above)\n",
                 reporter.errors());
    return 1;
  }
  return written ? 0 : 1;
}
