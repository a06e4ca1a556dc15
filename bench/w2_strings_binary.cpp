// bench/w2_strings_binary.cpp - workload W2 strings_binary: strings (ASCII 8 B / 1 KiB /
// 64 KiB, UTF-8 1 KiB, UTF-16 1 KiB) and binaries (1 KiB, 1 MiB), each case a stream of ~32 MB
// of one value repeated, for mpk, msgpack-cxx, msgpack-c and nlohmann::json.
//
// Cases per data: write; read as a view into the input (zero-copy) and as a copy (a new
// std::string / byte vector per value), each with and without UTF-8 validation where the
// implementation offers it. UTF-16 (C++ only, mpk only: no peer takes UTF-16): write from a
// std::u16string_view (transcoded) and read into a std::u16string. Every read case reads
// mpk's bytes; before timing, every writer's bytes are compared with mpk's and every reader
// reads mpk's bytes back to the data (a wrong value stops the run).
#include <mpk/reader.hpp>
#include <mpk/writer.hpp>

#include <msgpack.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "data/strings_binary.hpp"
#include "support/digest.hpp"
#include "support/peers/msgpack_c.hpp"
#include "support/peers/nlohmann.hpp"
#include "support/peers/verify.hpp"
#include "support/suite.hpp"
#include "workloads.hpp"

namespace mpk_bench {
namespace {

using verify::bytes_view;
namespace mc = peers::msgpack_c;
namespace nl = peers::nlohmann_msgpack;

enum class kind { str, u16, bin };

/// One data case: a value and how many times the stream repeats it.
struct w2_case {
  std::string id;     ///< e.g. "ascii_1k" (first part of the case names)
  std::string title;  ///< e.g. "ASCII 1 KiB"
  kind k = kind::str;
  std::string payload;  ///< the string (UTF-8) or the binary's bytes
  std::u16string u16;   ///< kind::u16: the text as UTF-16
  std::size_t count = 0;
  mpk::buffer ref;  ///< mpk's encoding: the input of every read case
  std::uint64_t ref_digest = 0;
  std::uint64_t sum = 0;  ///< what value_sum reaches over the stream
};

std::string_view as_text(std::span<const std::byte> b) noexcept {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

// --- consumers ---------------------------------------------------------------------------

/// The timed loops: each value adds its size and its last unit (so its end is touched).
struct value_sum {
  std::uint64_t acc = 0;
  void operator()(std::string_view v) noexcept {
    acc += v.size();
    if (!v.empty()) acc += static_cast<unsigned char>(v.back());
  }
  void operator()(std::u16string_view v) noexcept {
    acc += v.size();
    if (!v.empty()) acc += v.back();
  }
};

/// The verification: every value equals the case's data.
struct value_check {
  const w2_case* c = nullptr;
  std::size_t count = 0;
  std::string error;
  template <class View>
  void put(View v, View want) {
    if (error.empty() && v != want)
      error = "value " + std::to_string(count) + " differs from the data (" +
              std::to_string(v.size()) + " units, expected " + std::to_string(want.size()) + ")";
    ++count;
  }
  void operator()(std::string_view v) { put(v, std::string_view(c->payload)); }
  void operator()(std::u16string_view v) { put(v, std::u16string_view(c->u16)); }
};

// --- writes ------------------------------------------------------------------------------

bool mpk_write(mpk::buffer& out, const w2_case& c) {
  mpk::writer w(out);
  for (std::size_t i = 0; i < c.count; ++i) {
    if (c.k == kind::str)
      w.write_str(c.payload);
    else if (c.k == kind::u16)
      w.write_str(std::u16string_view(c.u16));
    else
      w.write_bin(mpk::as_bytes(c.payload));
  }
  return w.ok();
}

void cxx_write(msgpack::sbuffer& out, const w2_case& c) {
  msgpack::packer<msgpack::sbuffer> pk(out);
  const auto n = static_cast<std::uint32_t>(c.payload.size());
  for (std::size_t i = 0; i < c.count; ++i) {
    if (c.k == kind::str) {
      pk.pack_str(n);
      pk.pack_str_body(c.payload.data(), n);
    } else {
      pk.pack_bin(n);
      pk.pack_bin_body(c.payload.data(), n);
    }
  }
}

bool c_write(mc::output& out, const w2_case& c) {
  int e = 0;
  for (std::size_t i = 0; i < c.count; ++i)
    e |= c.k == kind::str ? mc::pack_str(out.packer(), c.payload)
                          : mc::pack_bin(out.packer(), mpk::as_bytes(c.payload));
  return e == 0;
}

/// nlohmann writes json values: each string or binary becomes one (a copy), then to_msgpack.
void nl_write(std::vector<std::uint8_t>& out, const w2_case& c) {
  for (std::size_t i = 0; i < c.count; ++i) {
    if (c.k == kind::str) {
      nl::append(nl::json(c.payload), out);
    } else {
      const auto* p = reinterpret_cast<const std::uint8_t*>(c.payload.data());
      nl::append(nl::json::binary(std::vector<std::uint8_t>(p, p + c.payload.size())), out);
    }
  }
}

// --- reads -------------------------------------------------------------------------------
// Each reads `n` values of `in` and hands each to the consumer; false on an error, a value
// of another type or trailing bytes.

/// mpk: read<T>() with the reader's UTF-8 policy U. T = std::string_view (a view),
/// std::string (a copy), std::u16string (transcoded, always checked).
template <class T, mpk::utf8_check U, class C>
bool mpk_read_str(bytes_view in, std::size_t n, C& c) {
  mpk::reader r(in, {.utf8 = U});
  for (std::size_t i = 0; i < n; ++i) {
    const T v = r.template read<T>();
    c(std::basic_string_view<typename T::value_type>(v));
  }
  return r.ok() && r.at_end();
}

/// mpk: read<std::span<const std::byte>>() (a view), copied into a byte vector when Copy.
template <bool Copy, class C>
bool mpk_read_bin(bytes_view in, std::size_t n, C& c) {
  mpk::reader r(in);
  for (std::size_t i = 0; i < n; ++i) {
    const auto v = r.read<std::span<const std::byte>>();
    if constexpr (Copy) {
      const std::vector<std::byte> copy(v.begin(), v.end());
      c(as_text(copy));
    } else {
      c(as_text(v));
    }
  }
  return r.ok() && r.at_end();
}

/// msgpack-cxx's zero-copy switch: an unpack_reference_func that keeps every str and bin
/// as a pointer into the input.
bool reference_all(msgpack::type::object_type, std::size_t, void*) {
  return true;
}

/// msgpack-cxx: msgpack::unpack into a zone (cleared per value) with reference_all, so the
/// object's str / bin point into the input; Copy: then as<std::string>() /
/// as<std::vector<char>>().
template <bool Copy, class C>
bool cxx_read(bytes_view in, std::size_t n, bool bin, C& c) {
  const char* data = reinterpret_cast<const char*>(in.data());
  std::size_t off = 0;
  msgpack::zone zone;
  try {
    for (std::size_t i = 0; i < n; ++i) {
      zone.clear();
      bool referenced = false;
      const msgpack::object o =
          msgpack::unpack(zone, data, in.size(), off, referenced, reference_all);
      if (o.type != (bin ? msgpack::type::BIN : msgpack::type::STR)) return false;
      if constexpr (Copy) {
        if (bin) {
          const auto v = o.as<std::vector<char>>();
          c(std::string_view(v.data(), v.size()));
        } else {
          const auto v = o.as<std::string>();
          c(std::string_view(v));
        }
      } else {
        c(bin ? std::string_view(o.via.bin.ptr, o.via.bin.size)
              : std::string_view(o.via.str.ptr, o.via.str.size));
      }
    }
  } catch (const std::exception&) {
    return false;
  }
  return off == in.size();
}

/// msgpack-c: msgpack_unpack into a reused zone (str / bin point into the input); Copy:
/// then a std::string / byte vector of it.
template <bool Copy, class C>
bool c_read(bytes_view in, std::size_t n, bool bin, C& c) {
  mc::unpacker u;
  std::size_t off = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const msgpack_object* o = u.next(in, off);
    if (o == nullptr || o->type != (bin ? MSGPACK_OBJECT_BIN : MSGPACK_OBJECT_STR)) return false;
    const std::string_view v = bin ? as_text(mc::bin(*o)) : mc::str(*o);
    if constexpr (Copy) {
      if (bin) {
        const std::vector<std::byte> copy(mpk::as_bytes(v).begin(), mpk::as_bytes(v).end());
        c(as_text(copy));
      } else {
        const std::string copy(v);
        c(std::string_view(copy));
      }
    } else {
      c(v);
    }
  }
  return off == in.size();
}

/// nlohmann: from_msgpack of each value into a json string / binary (always a copy).
template <class C>
bool nl_read(bytes_view in, std::size_t n, bool bin, C& c) {
  std::size_t off = 0;
  nl::json j;
  for (std::size_t i = 0; i < n; ++i) {
    if (!nl::read_next(in, off, j)) return false;
    if (bin) {
      if (!j.is_binary()) return false;
      const auto& v = j.get_binary();
      c(std::string_view(reinterpret_cast<const char*>(v.data()), v.size()));
    } else {
      if (!j.is_string()) return false;
      c(std::string_view(j.get_ref<const std::string&>()));
    }
  }
  return off == in.size();
}

// --- the workload ------------------------------------------------------------------------

/// Payload bytes per value of every case name ("ascii_1k_read_view" -> 1024), for the GB/s
/// facts added after the run.
std::map<std::string, std::size_t>& payload_sizes() {
  static std::map<std::string, std::size_t> sizes;
  return sizes;
}

std::string size_text(std::size_t n) {
  if (n >= (1u << 20) && n % (1u << 20) == 0) return std::to_string(n >> 20) + " MiB";
  if (n >= 1024 && n % 1024 == 0) return std::to_string(n >> 10) + " KiB";
  return std::to_string(n) + " B";
}

}  // namespace

bool register_strings_binary(suite& s, const run_config& cfg) {
  namespace sb = strings_binary;
  // Instruction counts (callgrind, ~50x slower): a quarter of the quick payload.
  const std::size_t total = cfg.instructions ? sb::quick_total / 4
                            : cfg.quick      ? sb::quick_total
                                             : sb::full_total;
  const bool say = !cfg.list_only;
  std::vector<std::shared_ptr<w2_case>> cases;
  auto add_data = [&](std::string id, std::string title, kind k, std::string payload,
                      std::u16string u16 = {}) {
    auto c = std::make_shared<w2_case>();
    c->id = std::move(id);
    c->title = std::move(title);
    c->k = k;
    c->payload = std::move(payload);
    c->u16 = std::move(u16);
    c->count = cfg.values != 0 ? cfg.values : sb::value_count(c->payload.size(), total);
    cases.push_back(c);
  };
  add_data("ascii_8", "ASCII 8 B", kind::str, sb::ascii(8));
  add_data("ascii_1k", "ASCII 1 KiB", kind::str, sb::ascii(1024));
  add_data("ascii_64k", "ASCII 64 KiB", kind::str, sb::ascii(64 * 1024));
  add_data("utf8_1k", "UTF-8 1 KiB", kind::str, sb::utf8(1024));
  add_data("utf16_1k", "UTF-16 1 KiB", kind::u16, sb::utf8(1024), sb::utf16(1024));
  add_data("bin_1k", "bin 1 KiB", kind::bin, sb::binary(1024));
  add_data("bin_1m", "bin 1 MiB", kind::bin, sb::binary(1024 * 1024));

  workload_table& t = s.add_workload(
      "w2", "strings_binary",
      "W2 strings_binary — strings and binaries, ~" + size_text(total) + " per case", "value");
  const std::string cxx_version = std::to_string(MSGPACK_VERSION_MAJOR) + "." +
                                  std::to_string(MSGPACK_VERSION_MINOR) + "." +
                                  std::to_string(MSGPACK_VERSION_REVISION);
  t.add_implementation({"mpk", "mpk " MPK_BENCH_MPK_VERSION,
                        "this project: mpk::writer (write_str, write_bin, write_str from "
                        "std::u16string_view), mpk::reader read<std::string_view / std::string "
                        "/ std::u16string / std::span<const std::byte>> with its utf8_check "
                        "policy"});
  t.add_implementation({"msgpack-cxx", "msgpack-cxx " + cxx_version,
                        "Debian libmsgpack-cxx-dev, MSGPACK_NO_BOOST: pack_str / pack_bin + "
                        "body; msgpack::unpack into a reused zone with a reference function "
                        "that keeps str / bin in the input (zero-copy), as<std::string>() to "
                        "copy; no UTF-8 validation, no UTF-16"});
  t.add_implementation({"msgpack-c", mc::version(),
                        "Debian libmsgpack-dev (C): msgpack_pack_str / _bin + body; "
                        "msgpack_unpack into a reused zone (str / bin point into the input), "
                        "copied into std::string / a byte vector for the copying reads; no "
                        "UTF-8 validation, no UTF-16"});
  t.add_implementation({"nlohmann", nl::version(),
                        "Debian nlohmann-json3-dev: each value as a json string / "
                        "json::binary, to_msgpack / from_msgpack; its reads always copy into "
                        "the json value and never validate UTF-8; no UTF-16"});
  for (const auto& c : cases)
    t.add_fact(c->title + ": " + verify::with_commas(c->count) + " values of " +
               verify::with_commas(c->payload.size()) + " bytes" +
               (c->k == kind::u16
                    ? " (as UTF-8; " + std::to_string(c->u16.size()) + " UTF-16 code units)"
                    : ""));
  t.add_fact(
      "GB/s = payload bytes per nanosecond (1 GB/s = 1e9 bytes/s); the table gives ns "
      "per value: for 1 KiB, 10 GB/s is 102 ns");

  if (say)
    std::printf("W2 strings_binary: ~%s per case\nverification (docs/workloads.md rule 2):\n",
                size_text(total).c_str());
  bool ok = true;
  const std::string unit = "value";
  const auto add = verify::quick_adder(t, cfg);  // --quick: 0.01 s per cell

  for (const auto& cp : cases) {
    w2_case& c = *cp;
    const std::string id = c.id;
    const bool written = mpk_write(c.ref, c);
    ok &= written;
    c.ref_digest = fnv1a64(c.ref.bytes());
    {
      value_sum sum;
      for (std::size_t i = 0; i < c.count; ++i) {
        if (c.k == kind::u16)
          sum(std::u16string_view(c.u16));
        else
          sum(std::string_view(c.payload));
      }
      c.sum = sum.acc;
    }
    const bytes_view A = c.ref.bytes();
    const bool bin = c.k == kind::bin;
    const bool str = c.k == kind::str;
    auto row = [&](const std::string& suffix, const std::string& what, const std::string& how) {
      t.add_case({id + "_" + suffix, c.title + ", " + what, how});
      payload_sizes()[id + "_" + suffix] = c.payload.size();
    };

    // Writes: every writer's bytes against mpk's.
    row("write", "write",
        std::string("the value written ") + verify::with_commas(c.count) +
            " times into one preallocated buffer" +
            (c.k == kind::u16 ? " (UTF-16 transcoded to UTF-8 by the writer)" : ""));
    if (say)
      verify::report(written, "mpk writes " + c.title,
                     verify::with_commas(A.size()) + " bytes, fnv1a64 " + hex64(c.ref_digest));
    auto write_cell = [cp, unit](auto make_buffer, auto write, auto bytes_of, std::uint64_t want) {
      return [=](benchmark::State& st) {
        auto buf = make_buffer(cp->ref.size() + 64);
        time_passes(
            st, cp->count, unit,
            [&] {
              buf->clear();
              return write(*buf, *cp) ? std::size_t{1} : std::size_t{0};
            },
            [&](std::size_t last) {
              if (last == 0) return std::string("the writer failed");
              return verify::check_digest(bytes_of(*buf), want);
            });
      };
    };
    add(id + "_write", "mpk", "reference bytes",
        c.k == kind::u16 ? "writer.write(std::u16string_view) per value"
        : bin            ? "writer.write_bin(span) per value"
                         : "writer.write_str(string_view) per value",
        write_cell([](std::size_t cap) { return std::make_unique<mpk::buffer>(cap); },
                   [](mpk::buffer& b, const w2_case& x) { return mpk_write(b, x); },
                   [](const mpk::buffer& b) { return b.bytes(); }, c.ref_digest));
    if (c.k != kind::u16) {
      // Every peer writes; mpk's checked reader reads their bytes back to the data.
      auto mpk_reads_back = [&](const std::string& who, bytes_view b) {
        value_check chk{&c, 0, {}};
        const bool done = bin ? mpk_read_bin<false>(b, c.count, chk)
                              : mpk_read_str<std::string, mpk::utf8_check::all>(b, c.count, chk);
        std::string e = chk.error;
        if (e.empty() && !done) e = "mpk cannot read them";
        if (say) ok &= verify::report(e.empty(), "mpk reads " + who + "'s " + c.title, e);
      };
      msgpack::sbuffer cxx_bytes(A.size() + 64);
      cxx_write(cxx_bytes, c);
      mc::output c_bytes(A.size() + 64);
      ok &= c_write(c_bytes, c);
      std::vector<std::uint8_t> nl_bytes;
      nl_bytes.reserve(A.size() + 64);
      nl_write(nl_bytes, c);
      const std::string cxx_v = verify::bytes_verdict(mpk::as_bytes(cxx_bytes), A);
      const std::string c_v = verify::bytes_verdict(c_bytes.bytes(), A);
      const std::string nl_v = verify::bytes_verdict(mpk::as_bytes(nl_bytes), A);
      if (say) {
        std::printf("  %s: msgpack-cxx %s; msgpack-c %s; nlohmann %s\n", c.title.c_str(),
                    cxx_v.c_str(), c_v.c_str(), nl_v.c_str());
        mpk_reads_back("msgpack-cxx", mpk::as_bytes(cxx_bytes));
        mpk_reads_back("msgpack-c", c_bytes.bytes());
        mpk_reads_back("nlohmann", mpk::as_bytes(nl_bytes));
      }
      const std::uint64_t d_cxx = fnv1a64(mpk::as_bytes(cxx_bytes));
      const std::uint64_t d_c = fnv1a64(c_bytes.bytes());
      const std::uint64_t d_nl = fnv1a64(mpk::as_bytes(nl_bytes));
      add(id + "_write", "msgpack-cxx", cxx_v,
          bin ? "pack_bin(n) + pack_bin_body per value" : "pack_str(n) + pack_str_body per value",
          write_cell([](std::size_t cap) { return std::make_unique<msgpack::sbuffer>(cap); },
                     [](msgpack::sbuffer& b, const w2_case& x) {
                       cxx_write(b, x);
                       return true;
                     },
                     [](const msgpack::sbuffer& b) { return mpk::as_bytes(b); }, d_cxx));
      add(id + "_write", "msgpack-c", c_v,
          bin ? "msgpack_pack_bin + msgpack_pack_bin_body per value"
              : "msgpack_pack_str + msgpack_pack_str_body per value",
          write_cell([](std::size_t cap) { return std::make_unique<mc::output>(cap); },
                     [](mc::output& b, const w2_case& x) { return c_write(b, x); },
                     [](const mc::output& b) { return b.bytes(); }, d_c));
      add(id + "_write", "nlohmann", nl_v,
          bin ? "json::binary(byte vector copy), then json::to_msgpack, per value"
              : "json(std::string copy), then json::to_msgpack, per value",
          write_cell(
              [](std::size_t cap) {
                auto v = std::make_unique<std::vector<std::uint8_t>>();
                v->reserve(cap);
                return v;
              },
              [](std::vector<std::uint8_t>& b, const w2_case& x) {
                nl_write(b, x);
                return true;
              },
              [](const std::vector<std::uint8_t>& b) { return mpk::as_bytes(b); }, d_nl));
    }

    // Reads of mpk's bytes: verified with value_check, timed with value_sum.
    auto add_read = [&](const std::string& suffix, const std::string& impl, const std::string& note,
                        auto read) {
      std::string verdict = "same values (every value of mpk's bytes equals the data)";
      if (say) {
        value_check chk{&c, 0, {}};
        const bool done = read(A, c.count, chk);
        std::string e = chk.error;
        if (e.empty() && chk.count != c.count)
          e = "read " + std::to_string(chk.count) + " values of " + std::to_string(c.count);
        if (e.empty() && !done) e = "the decoder reported an error";
        ok &= verify::report(e.empty(), impl + " " + id + "_" + suffix + " reads mpk's bytes", e);
        if (!e.empty()) verdict = "wrong values: " + e;
      }
      add(id + "_" + suffix, impl, verdict, note, [cp, unit, read](benchmark::State& st) {
        const bytes_view in = cp->ref.bytes();
        time_passes(
            st, cp->count, unit,
            [&] {
              value_sum sum;
              return read(in, cp->count, sum) ? sum.acc : 0;
            },
            [&](std::uint64_t last) { return verify::check_sum(last, cp->sum); });
      });
    };
    using mpk::utf8_check;
    if (c.k == kind::u16) {
      row("read", "read into std::u16string",
          "each str transcoded from UTF-8 into a new std::u16string (validated)");
      add_read("read", "mpk", "reader.read<std::u16string>() per value",
               [](bytes_view in, std::size_t n, auto& k) {
                 return mpk_read_str<std::u16string, utf8_check::owned>(in, n, k);
               });
      continue;
    }
    row("read_view", "read view (zero-copy)",
        str ? "each str as a view into the input, no UTF-8 validation"
            : "each bin as a view into the input");
    if (str) {
      row("read_view_utf8", "read view, UTF-8 validated",
          "each str as a view into the input, validated as UTF-8 (msgpack-cxx, msgpack-c and "
          "nlohmann do not validate: n/a)");
    }
    row("read_copy", "read copy",
        str ? "each str copied into a new std::string, no UTF-8 validation"
            : "each bin copied into a new byte vector");
    if (str) {
      row("read_copy_utf8", "read copy, UTF-8 validated",
          "each str validated as UTF-8 and copied into a new std::string (mpk's default for "
          "std::string targets)");
      add_read("read_view", "mpk",
               "mpk::reader(bytes, {}, utf8_check::owned), read<std::string_view>() per value",
               [](bytes_view in, std::size_t n, auto& k) {
                 return mpk_read_str<std::string_view, utf8_check::owned>(in, n, k);
               });
      add_read("read_view_utf8", "mpk",
               "mpk::reader(bytes, {}, utf8_check::all), read<std::string_view>() per value",
               [](bytes_view in, std::size_t n, auto& k) {
                 return mpk_read_str<std::string_view, utf8_check::all>(in, n, k);
               });
      add_read("read_copy", "mpk",
               "mpk::reader(bytes, {}, utf8_check::none), read<std::string>() per value",
               [](bytes_view in, std::size_t n, auto& k) {
                 return mpk_read_str<std::string, utf8_check::none>(in, n, k);
               });
      add_read("read_copy_utf8", "mpk",
               "mpk::reader(bytes) (utf8_check::owned), read<std::string>() per value",
               [](bytes_view in, std::size_t n, auto& k) {
                 return mpk_read_str<std::string, utf8_check::owned>(in, n, k);
               });
    } else {
      add_read("read_view", "mpk", "reader.read<std::span<const std::byte>>() per value",
               [](bytes_view in, std::size_t n, auto& k) { return mpk_read_bin<false>(in, n, k); });
      add_read("read_copy", "mpk",
               "reader.read<std::span<const std::byte>>() then a std::vector<std::byte> of it",
               [](bytes_view in, std::size_t n, auto& k) { return mpk_read_bin<true>(in, n, k); });
    }
    add_read(
        "read_view", "msgpack-cxx",
        "msgpack::unpack(zone, ..., reference function: always) per value, zone.clear() "
        "before each; the object's pointer into the input",
        [bin](bytes_view in, std::size_t n, auto& k) { return cxx_read<false>(in, n, bin, k); });
    add_read(
        "read_copy", "msgpack-cxx",
        bin ? "as read view, then object.as<std::vector<char>>()"
            : "as read view, then object.as<std::string>()",
        [bin](bytes_view in, std::size_t n, auto& k) { return cxx_read<true>(in, n, bin, k); });
    add_read("read_view", "msgpack-c",
             "msgpack_unpack into a reused zone per value; the object's pointer into the input",
             [bin](bytes_view in, std::size_t n, auto& k) { return c_read<false>(in, n, bin, k); });
    add_read("read_copy", "msgpack-c",
             bin ? "as read view, then a std::vector<std::byte> of it"
                 : "as read view, then a std::string of it",
             [bin](bytes_view in, std::size_t n, auto& k) { return c_read<true>(in, n, bin, k); });
    add_read("read_copy", "nlohmann",
             bin ? "json::from_msgpack per value into a json binary (a copy)"
                 : "json::from_msgpack per value into a json string (a copy)",
             [bin](bytes_view in, std::size_t n, auto& k) { return nl_read(in, n, bin, k); });
  }
  if (!ok && say) {
    std::printf("W2 verification FAILED: not timing anything.\n");
    return false;
  }
  return true;
}

void add_strings_binary_rates(suite& s) {
  for (auto& t : s.tables()) {
    if (t->id() != "w2") continue;
    for (const case_info& c : t->cases()) {
      const auto size = payload_sizes().find(c.name);
      // A plain view hands out a pointer, whatever the size: no meaningful rate.
      if (size == payload_sizes().end() || c.name.ends_with("_read_view")) continue;
      std::string line;
      for (const implementation_info& i : t->implementations()) {
        const cell* x = t->find(c.name, i.name);
        if (x == nullptr || !x->error.empty() || x->ns_per_unit.empty()) continue;
        const double median = verify::median(x->ns_per_unit);
        if (median <= 0) continue;
        char text[64];
        std::snprintf(text, sizeof text, "%s%s %.2f", line.empty() ? "" : ", ", i.name.c_str(),
                      static_cast<double>(size->second) / median);
        line += text;
      }
      if (!line.empty()) t->add_fact("GB/s, " + c.title + ": " + line);
    }
  }
}

}  // namespace mpk_bench
