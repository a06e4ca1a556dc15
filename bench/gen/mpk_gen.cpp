// bench/gen/mpk_gen.cpp - writes mpk's reference encodings of the cross-language workloads.
//
//     mpk_gen --out DIR [--quick]
//
// The harnesses of the other languages (bench/harness/) generate the same data themselves,
// encode it with their libraries and compare their bytes with these files (docs/workloads.md
// rule 2); they also decode these files and compare the values with their own data. So the
// reference is always mpk's writer, not a copy kept in the tree.
//
// Writes DIR/<workload>/<case>.msgpack for every case below and DIR/digests.csv
// (workload,case,bytes,fnv1a64). Data definitions: docs/workloads.md; the W7
// documents that docs/workloads.md only names (medium, large, example) are reconstructed here
// and in every harness the same way: see docs/benchmark-suite.md, "Reconstructed data".
#include <mpk/buffer.hpp>
#include <mpk/ext/records.hpp>
#include <mpk/value.hpp>
#include <mpk/writer.hpp>

#include <algorithm>
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

// --- W2 strings_binary ----------------------------------------------------------------------

/// Bytes each W2 case writes in total (docs/workloads.md: ~32 MB), as a stream of top-level values
/// of one size: max(1, min(1,000,000, total / size)) values. Every harness uses the same
/// counts. The cap (8 MB of 8-byte strings, like W1's million values) keeps the slowest
/// per-call peers (msgpack-lite: ~6 us per top-level value) to seconds per repetition.
constexpr std::size_t w2_full_total = std::size_t{32} << 20;
constexpr std::size_t w2_quick_total = std::size_t{256} << 10;
constexpr std::size_t w2_max_values = 1'000'000;

/// "héllo wörld ✓ " repeated and cut at the last whole character at or below n bytes.
std::string utf8_text(std::size_t n) {
  static constexpr std::string_view unit = "h\xc3\xa9llo w\xc3\xb6rld \xe2\x9c\x93 ";
  std::string s;
  while (s.size() < n + unit.size())
    s += unit;
  // Back up from byte n to the start of the character it falls in (or n itself).
  std::size_t k = n;
  while (k > 0 && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80)
    --k;
  s.resize(k);
  return s;
}

void strings_binary(output& out, bool quick) {
  using mpk_bench::documents::alphabet;
  using mpk_bench::documents::pattern_bin;
  struct data_case {
    const char* name;
    std::string payload;
    bool binary;
  };
  const data_case cases[] = {
      {"ascii_8", alphabet(8), false},       {"ascii_1k", alphabet(1024), false},
      {"ascii_64k", alphabet(65536), false}, {"utf8_1k", utf8_text(1024), false},
      {"bin_1k", pattern_bin(1024), true},   {"bin_1m", pattern_bin(std::size_t{1} << 20), true},
  };
  const std::size_t total = quick ? w2_quick_total : w2_full_total;
  for (const auto& c : cases) {
    const std::size_t count =
        std::max<std::size_t>(1, std::min(w2_max_values, total / c.payload.size()));
    mpk::buffer b;
    mpk_writer w(b);
    for (std::size_t k = 0; k < count; ++k) {
      if (c.binary)
        w.write(mpk::as_bytes(c.payload));
      else
        w.write(std::string_view(c.payload));
    }
    out.save("strings_binary", c.name, b, w);
  }
}

// --- W4 deep_nesting ------------------------------------------------------------------------

void deep_nesting(output& out) {
  for (std::size_t n : {1, 2, 4, 8, 16, 32, 64, 128}) {
    mpk::buffer b;
    mpk_writer w(b);
    // nest(1) = [1, 2, 3]; nest(k) = [1, 2, 3, nest(k - 1)]: written from the outside in.
    for (std::size_t level = n; level > 0; --level) {
      w.begin_array(level > 1 ? 4 : 3);
      w.write(1);
      w.write(2);
      w.write(3);
    }
    out.save("deep_nesting", "nest_" + std::to_string(n), b, w);
  }
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

/// W7 stream: `messages` copies of ["tag", [[1440949922, {"message": "hi there"}]]], one
/// after the other (top-level values).
void document_stream(output& out, std::size_t messages) {
  mpk::buffer b;
  mpk_writer w(b);
  for (std::size_t k = 0; k < messages; ++k)
    mpk_bench::documents::write_stream_message(w);
  out.save("documents", "stream", b, w);
}

/// W7 records: beer_list = W5's beer_list in map mode; map_list = 32 objects {"key": "a"*i,
/// "value": "a"*i, "index": i}, the medium document's `map` entries as a list of same-shaped
/// objects. Each as plain maps (<list>_maps) and through mpk's msgpackr record encoder
/// (<list>_records: per-message definitions, as msgpackr's `new Packr({useRecords: true})`).
void document_records(output& out) {
  auto save_both = [&](const std::string& name, const mpk::buffer& b, const mpk_writer& w) {
    out.save("documents", name + "_maps", b, w);
    auto doc = mpk::document::parse(std::span<const std::byte>(b.data(), b.size()));
    mpk::buffer records;
    mpk::records_encoder enc;
    if (!doc || !enc.encode(doc->root(), records)) {
      std::cerr << "mpk_gen: records encoding of " << name << " failed\n";
      out.ok = false;
      return;
    }
    mpk_writer unused(records);
    out.save("documents", name + "_records", records, unused);
  };
  {
    mpk::buffer b;
    mpk_writer w(b);
    const auto list = mpk_bench::typed_objects::beer_list();
    w.begin_array(list.size());
    for (const auto& beer : list)
      mpk_bench::typed_objects::write_beer(w, beer, true);
    save_both("beer_list", b, w);
  }
  mpk::buffer b;
  mpk_writer w(b);
  mpk_bench::documents::write_map_list(w);
  save_both("map_list", b, w);
}

}  // namespace

// --quick sizes of the streams. Smaller than mpk_bench's --quick (which times C++ only): the
// dynamic languages of bench/harness/ are 100 times slower per value, and the quick suite
// must stay a few minutes long. Every harness uses the same counts.
constexpr std::size_t quick_values = 20'000;
constexpr std::size_t quick_maps = 2'000;
constexpr std::size_t quick_messages = 20'000;

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
  strings_binary(out, quick);
  deep_nesting(out);
  typed_objects(out);
  lua_bench(out);
  documents(out);
  document_stream(out, quick ? quick_messages : mpk_bench::documents::stream_messages);
  document_records(out);
  out.digests.close();
  if (!out.digests) out.ok = false;
  return out.ok ? 0 : 1;
}
