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

std::span<const std::byte> as_bytes(const std::string& s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

std::string repeat(char c, std::size_t n) {
  return std::string(n, c);
}

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

// --- W5 typed_objects -----------------------------------------------------------------------

void write_beer(mpk_writer& w, std::string_view brand, double alcohol, bool map_mode) {
  static constexpr std::string_view sorts[] = {"pale", "amber", "dark", "stout", "porter"};
  if (map_mode)
    w.begin_map(4);
  else
    w.begin_array(4);
  if (map_mode) w.write("brand");
  w.write(brand);
  if (map_mode) w.write("alcohol");
  w.write(alcohol);
  if (map_mode) w.write("brewery");
  w.write("Brew Co");
  if (map_mode) w.write("sort");
  w.begin_array(std::size(sorts));
  for (auto s : sorts)
    w.write(s);
}

void typed_objects(output& out) {
  {
    mpk::buffer b;
    mpk_writer w(b);
    w.begin_array(100);
    for (std::int64_t k = 0; k < 100; ++k)
      w.write((k * 7919) % 65536 - 1000);
    out.save("typed_objects", "int_array", b, w);
  }
  {
    mpk::buffer b;
    mpk_writer w(b);
    w.begin_array(100);
    for (int k = 0; k < 100; ++k)
      w.write(static_cast<double>(k) * 1.1 + 0.5);
    out.save("typed_objects", "double_array", b, w);
  }
  for (bool map_mode : {true, false}) {
    const std::string mode = map_mode ? "_map" : "_array";
    mpk::buffer b;
    mpk_writer w(b);
    write_beer(w, "Ale Brewery Lager", 4.5, map_mode);
    out.save("typed_objects", "beer" + mode, b, w);
    mpk::buffer bl;
    mpk_writer wl(bl);
    wl.begin_array(10);
    for (int k = 0; k < 10; ++k)
      write_beer(wl, "Ale " + std::to_string(k), 4.5 + static_cast<double>(k) / 4, map_mode);
    out.save("typed_objects", "beer_list" + mode, bl, wl);
  }
}

// --- W6 lua_bench ---------------------------------------------------------------------------

void lua_bench(output& out) {
  auto save = [&](const std::string& name, auto&& fill) {
    mpk::buffer b;
    mpk_writer w(b);
    fill(w);
    out.save("lua_bench", name, b, w);
  };
  save("empty", [](mpk_writer& w) { w.begin_array(0); });
  save("iary1", [](mpk_writer& w) {
    w.begin_array(1);
    w.write(1);
  });
  save("iary10", [](mpk_writer& w) {
    w.begin_array(10);
    for (int v = -5; v <= 4; ++v)
      w.write(v);
  });
  for (std::int64_t n : {100, 1000, 10000})
    save("iary" + std::to_string(n), [n](mpk_writer& w) {
      w.begin_array(static_cast<std::size_t>(n));
      for (std::int64_t i = 1; i <= n; ++i)
        w.write(i - n / 2);  // floor(i - N/2): N is even
    });
  save("dary1", [](mpk_writer& w) {
    w.begin_array(1);
    w.write_float64(1.5e35);
  });
  for (int n : {10, 100, 1000})
    save("dary" + std::to_string(n), [n](mpk_writer& w) {
      w.begin_array(static_cast<std::size_t>(n));
      for (int i = 1; i <= n; ++i)
        w.write_float64(1.5e35 * i);
    });
  save("str1", [](mpk_writer& w) {
    w.begin_array(1);
    w.write("a");
  });
  for (std::size_t n : {10, 100, 1000, 10000, 20000, 30000, 40000, 80000})
    save("str" + std::to_string(n), [n](mpk_writer& w) { w.write(repeat('a', n - 1) + "b"); });
}

// --- W7 documents ---------------------------------------------------------------------------

/// The 62-character alphabet A-Z a-z 0-9 repeated and cut to n bytes (BENCHMARKS.md W2).
std::string alphabet(std::size_t n) {
  static constexpr std::string_view abc =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::string s;
  s.reserve(n);
  for (std::size_t k = 0; k < n; ++k)
    s.push_back(abc[k % abc.size()]);
  return s;
}

/// Binary of n bytes, byte k = (k * 31 + 7) & 0xff (BENCHMARKS.md W2).
std::string pattern_bin(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t k = 0; k < n; ++k)
    s[k] = static_cast<char>((k * 31 + 7) & 0xff);
  return s;
}

void document_medium_or_large(mpk_writer& w, bool large) {
  const std::size_t entries = large ? 1024 : 32;
  w.begin_map(large ? 9 : 8);
  w.write("unsigned");
  w.begin_array(53);
  for (int k = 0; k <= 52; ++k)
    w.write(std::uint64_t{1} << k);
  w.write("signed");
  w.begin_array(53);
  for (int k = 0; k <= 52; ++k)
    w.write(-static_cast<std::int64_t>(std::uint64_t{1} << k));
  if (large) {
    w.write("bin");
    w.begin_array(3);
    for (std::size_t n : {std::size_t{256}, std::size_t{65536}, std::size_t{1} << 20})
      w.write(std::span<const std::byte>(as_bytes(pattern_bin(n))));
  }
  w.write("str");
  w.begin_array(3);
  w.write("abc");
  w.write(repeat('g', 32));
  w.write(repeat('h', 256));
  w.write("array");
  w.begin_array(4);
  w.begin_array(0);
  w.begin_array(3);
  w.write(1);
  w.write(2);
  w.write(3);
  w.begin_array(3);
  w.write("a");
  w.write("b");
  w.write("c");
  w.begin_array(3);
  for (int v = 1; v <= 3; ++v) {
    w.begin_array(1);
    w.write(v);
  }
  w.write("map");
  // Keys "a"*i -> "a"*i, then "b"*i -> bin of i bytes 'b'; i = 0 writes "" twice, and the
  // later binary replaces the string in place: "" -> empty binary, first.
  w.begin_map(2 * entries - 1);
  w.write("");
  w.write(std::span<const std::byte>());
  for (std::size_t i = 1; i < entries; ++i) {
    const std::string a = repeat('a', i), bb = repeat('b', i);
    w.write(a);
    w.write(a);
    w.write(bb);
    w.write(as_bytes(bb));
  }
  w.write("nil");
  w.write_nil();
  w.write("bool");
  w.begin_map(3);
  w.write("true");
  w.write(true);
  w.write("false");
  w.write(false);
  w.write("both");
  w.begin_array(2);
  w.write(true);
  w.write(false);
  w.write("undefined");
  w.begin_array(5);
  w.write_nil();
  w.write(true);
  w.write(false);
  w.write_nil();
  w.write_nil();
}

void documents(output& out) {
  auto save = [&](const std::string& name, auto&& fill) {
    mpk::buffer b;
    mpk_writer w(b);
    fill(w);
    out.save("documents", name, b, w);
  };
  save("tiny", [](mpk_writer& w) {
    w.begin_map(2);
    w.write("foo");
    w.write(1);
    w.write("bar");
    w.write("abc");
  });
  save("small", [](mpk_writer& w) {
    static constexpr std::byte five[] = {std::byte{1}, std::byte{2}, std::byte{3}, std::byte{4},
                                         std::byte{5}};
    w.begin_map(3);
    w.write("foo");
    w.write(1);
    w.write("bar");
    w.begin_array(6);
    for (int v = 1; v <= 4; ++v)
      w.write(v);
    w.write("abc");
    w.write("def");
    w.write("foobar");
    w.begin_map(3);
    w.write("foo");
    w.write(true);
    w.write("bar");
    w.write(std::int64_t{-2147483649});
    w.write("foobar");
    w.begin_map(3);
    w.write("foo");
    w.write(std::span<const std::byte>(five));
    w.write("bar");
    w.write(1.5);
    w.write("foobar");
    w.begin_array(3);
    w.write(true);
    w.write(false);
    w.write("abcdefghijkmonpqrstuvwxyz");
  });
  save("medium", [](mpk_writer& w) { document_medium_or_large(w, false); });
  save("large", [](mpk_writer& w) { document_medium_or_large(w, true); });
  save("example", [](mpk_writer& w) {
    w.begin_map(24);
    const std::pair<const char*, std::int64_t> ints[] = {
        {"int0", 0},    {"int1", 1},      {"int1-", -1},    {"int8", 255},     {"int8-", -255},
        {"int16", 256}, {"int16-", -256}, {"int32", 65536}, {"int32-", -65536}};
    for (auto [k, v] : ints) {
      w.write(k);
      w.write(v);
    }
    w.write("nil");
    w.write_nil();
    w.write("true");
    w.write(true);
    w.write("false");
    w.write(false);
    w.write("float");
    w.write(0.5);
    w.write("float-");
    w.write(-0.5);
    w.write("string0");
    w.write("");
    w.write("string1");
    w.write("A");
    w.write("string4");
    w.write("foobarbaz");
    w.write("string8");
    w.write("Omnes viae Romam ducunt.");
    w.write("string16");
    w.write(alphabet(641));
    w.write("array0");
    w.begin_array(0);
    w.write("array1");
    w.begin_array(1);
    w.write("foo");
    w.write("array8");
    w.begin_array(21);
    for (int k = 0; k <= 20; ++k)
      w.write(std::int64_t{1} << k);
    w.write("map0");
    w.begin_map(0);
    w.write("map1");
    w.begin_map(1);
    w.write("foo");
    w.write("bar");
  });
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
