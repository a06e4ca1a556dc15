// bench/gen/mpk_gen.cpp - writes mpk's reference encodings of the cross-language workloads.
//
//     mpk_gen --out DIR [--quick]
//
// The harnesses of the other languages (bench/harness/) generate the same data themselves,
// encode it with their libraries and compare their bytes with these files (BENCHMARKS.md
// rule 2); they also decode these files and compare the values with their own data. So the
// reference is always mpk's writer, not a copy kept in the tree.
//
// Writes DIR/<workload>/<case>.msgpack for every case below and DIR/digests.csv
// (workload,case,bytes,fnv1a64). Data definitions: ../shared/BENCHMARKS.md; the W7
// documents that BENCHMARKS.md only names (medium, large, example) are reconstructed here
// and in every harness the same way: see docs/benchmark-suite.md, "Reconstructed data".
#include <mpk/buffer.hpp>
#include <mpk/writer.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "data/small_fields.hpp"
#include "data/w5_typed_objects.hpp"
#include "data/w6_lua_bench.hpp"
#include "data/w7_documents.hpp"
#include "support/digest.hpp"

namespace {

using mpk_writer = mpk::writer<mpk::buffer>;

struct output {
  std::filesystem::path dir;
  std::ofstream digests;
  bool ok = true;

  void save(const std::string& workload, const std::string& name, const mpk::buffer& b,
            const mpk_writer& w) {
    if (!w.ok()) {
      std::cerr << "mpk_gen: writing " << workload << "/" << name << " failed\n";
      ok = false;
      return;
    }
    std::filesystem::create_directories(dir / workload);
    std::ofstream f(dir / workload / (name + ".msgpack"), std::ios::binary);
    f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
    if (!f) {
      std::cerr << "mpk_gen: cannot write " << (dir / workload / name).string() << "\n";
      ok = false;
    }
    digests << workload << "," << name << "," << b.size() << ","
            << mpk_bench::hex64(mpk_bench::fnv1a64(b.data(), b.size())) << "\n";
  }
};

// --- W1 small_fields ------------------------------------------------------------------------

void small_fields(output& out, std::size_t values) {
  mpk::buffer b;
  mpk_writer w(b);
  for (const auto& r : mpk_bench::small_fields::generate(values)) {
    w.write(r.f0);
    w.write(r.f1);
    w.write(r.f2);
    w.write(r.f3);
    w.write(r.f4);
    w.write(r.f5);
    w.write(r.f6);
    w.write(r.f7());
  }
  out.save("small_fields", "stream", b, w);
}

// --- W3 flat_maps ---------------------------------------------------------------------------

void flat_maps(output& out, std::size_t maps) {
  mpk::buffer b;
  mpk_writer w(b);
  char key[4] = {'k', '0', '0', 0};
  for (std::size_t i = 0; i < maps; ++i) {
    w.begin_map(16);
    for (std::size_t j = 0; j < 16; ++j) {
      key[1] = static_cast<char>('0' + j / 10);
      key[2] = static_cast<char>('0' + j % 10);
      w.write(std::string_view(key, 3));
      switch (j % 4) {
        case 0:
          w.write(static_cast<std::uint64_t>(i * 16 + j));
          break;
        case 1:
          w.write(static_cast<double>(i) + (static_cast<double>(j) + 0.5) / 16);
          break;
        case 2: {
          // Not "v" + std::to_string(...): GCC 12 warns falsely on that (-Wrestrict).
          char text[8];
          const int n = std::snprintf(text, sizeof text, "v%zu", i % 100);
          w.write(std::string_view(text, static_cast<std::size_t>(n)));
          break;
        }
        default:
          w.write((i + j) % 2 == 0);
          break;
      }
    }
  }
  out.save("flat_maps", "stream", b, w);
}

// --- W5 typed_objects, W6 lua_bench, W7 documents: bench/data/w5_*, w6_*, w7_*.hpp ------------

void typed_objects(output& out) {
  for (std::string_view name : mpk_bench::typed_objects::case_names) {
    mpk::buffer b;
    mpk_writer w(b);
    mpk_bench::typed_objects::write_case(w, name);
    out.save("typed_objects", std::string(name), b, w);
  }
}

void lua_bench(output& out) {
  for (const auto& d : mpk_bench::lua_bench::datasets()) {
    mpk::buffer b;
    mpk_writer w(b);
    mpk_bench::lua_bench::write(w, d);
    out.save("lua_bench", d.name, b, w);
  }
}

void documents(output& out) {
  for (std::string_view name : mpk_bench::documents::case_names) {
    mpk::buffer b;
    mpk_writer w(b);
    mpk_bench::documents::write_case(w, name);
    out.save("documents", std::string(name), b, w);
  }
}

}  // namespace

// --quick sizes of the streams. Smaller than mpk_bench's --quick (which times C++ only): the
// dynamic languages of bench/harness/ are 100 times slower per value, and the quick suite
// must stay a few minutes long. Every harness uses the same counts.
constexpr std::size_t quick_values = 20'000;
constexpr std::size_t quick_maps = 2'000;

int main(int argc, char** argv) {
  output out;
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else if (std::strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
      out.dir = argv[++i];
    } else {
      std::fprintf(stderr, "usage: mpk_gen --out DIR [--quick]\n");
      return 2;
    }
  }
  if (out.dir.empty()) {
    std::fprintf(stderr, "usage: mpk_gen --out DIR [--quick]\n");
    return 2;
  }
  std::filesystem::create_directories(out.dir);
  out.digests.open(out.dir / "digests.csv");
  out.digests << "workload,case,bytes,fnv1a64\n";
  small_fields(out, quick ? quick_values : mpk_bench::small_fields::full_values);
  flat_maps(out, quick ? quick_maps : 100'000);
  typed_objects(out);
  lua_bench(out);
  documents(out);
  out.digests.close();
  if (!out.digests) out.ok = false;
  return out.ok ? 0 : 1;
}
