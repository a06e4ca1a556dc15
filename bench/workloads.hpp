// bench/workloads.hpp - the workloads of the benchmark binary.
//
// Each one generates its data (docs/workloads.md), verifies every implementation before anything
// is timed (printing its verdicts), adds its table to the suite and registers its
// benchmarks. It returns false when an implementation produced wrong values: the run stops.
#pragma once

#include "support/suite.hpp"

namespace mpk_bench {

/// W1 small_fields: 1,000,000 small top-level values in records of 8.
bool register_small_fields(suite& s, const run_config& cfg);

/// Adds W4's nanoseconds per level to its facts, once the benchmarks have run.
void add_deep_nesting_per_level(suite& s);

/// Adds W2's GB/s per cell to its facts, once the benchmarks have run.
void add_strings_binary_rates(suite& s);

/// W4 deep_nesting: arrays nested 1 to 128 levels deep (bench/w4_deep_nesting.cpp).
bool register_deep_nesting(suite& s, const run_config& cfg);

/// W2 strings_binary: strings and binaries of 8 B to 1 MiB (bench/w2_strings_binary.cpp).
bool register_strings_binary(suite& s, const run_config& cfg);

/// W3 flat_maps: 100,000 top-level maps of 16 entries (bench/w3_flat_maps.cpp).
bool register_flat_maps(suite& s, const run_config& cfg);

/// json: mpk::to_json / mpk::from_json throughput on W1 and W7 large (bench/json_conversion.cpp).
bool register_json_conversion(suite& s, const run_config& cfg);
/// Adds the json table's MB/s medians to its facts, once the benchmarks have run.
void add_json_rates(suite& s);

/// W5 typed_objects: int/double arrays and beer structs, map and array mode (bench/w5_typed_objects.cpp).
bool register_typed_objects(suite& s, const run_config& cfg);
/// W6 lua_bench: pack then unpack of each dataset as one operation (bench/w6_lua_bench.cpp).
bool register_lua_bench(suite& s, const run_config& cfg);
/// W7 documents: tiny..example, stream, records (bench/w7_documents.cpp).
bool register_documents(suite& s, const run_config& cfg);

}  // namespace mpk_bench
