// bench/w4_deep_nesting.cpp - workload W4 deep_nesting: nest(N) = [1, 2, 3, nest(N - 1)],
// N = 1 ... 128, for mpk, msgpack-cxx, msgpack-c and nlohmann::json.
//
// Cases, each for every N: build (encode), examine (walk and read every integer; checked),
// examine unchecked (mpk's unchecked_reader), field_size of the whole value, parse into a DOM.
// Times are per structure; the facts under the table give them per level. Before timing,
// every writer's bytes are compared with mpk's and every reader walks mpk's bytes, its visits
// hashed in order against the definition (a wrong value stops the run).
#include <mpk/reader.hpp>
#include <mpk/value.hpp>
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
#include <utility>
#include <vector>

#include "data/deep_nesting.hpp"
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

// --- consumers ---------------------------------------------------------------------------

/// The timed loops: each array adds its depth and count, each integer its value.
struct level_sum {
  std::uint64_t acc = 0;
  void array(std::size_t depth, std::size_t n) noexcept { acc += depth + n; }
  void i(std::int64_t v) noexcept { acc += static_cast<std::uint64_t>(v); }
};

/// The verification: an order-sensitive hash of every visit (FNV-1a over the events).
struct level_hash {
  std::uint64_t h = 0xcbf29ce484222325ull;
  void mix(std::uint64_t x) noexcept {
    h ^= x;
    h *= 0x100000001b3ull;
  }
  void array(std::size_t depth, std::size_t n) noexcept {
    mix(0xa0000 + depth);
    mix(n);
  }
  void i(std::int64_t v) noexcept { mix(0x10000 + static_cast<std::uint64_t>(v)); }
};

// --- build -------------------------------------------------------------------------------

bool mpk_build(mpk::buffer& out, std::size_t n, std::size_t copies) {
  mpk::writer w(out);
  for (std::size_t c = 0; c < copies; ++c) {
    for (std::size_t depth = 1; depth <= n; ++depth) {
      w.begin_array(depth == n ? 3 : 4);
      w.write(1);
      w.write(2);
      w.write(3);
    }
  }
  return w.ok();
}

void cxx_build(msgpack::sbuffer& out, std::size_t n, std::size_t copies) {
  msgpack::packer<msgpack::sbuffer> pk(out);
  for (std::size_t c = 0; c < copies; ++c) {
    for (std::size_t depth = 1; depth <= n; ++depth) {
      pk.pack_array(depth == n ? 3 : 4);
      pk.pack(1);
      pk.pack(2);
      pk.pack(3);
    }
  }
}

bool c_build(mc::output& out, std::size_t n, std::size_t copies) {
  msgpack_packer* pk = out.packer();
  int e = 0;
  for (std::size_t c = 0; c < copies; ++c) {
    for (std::size_t depth = 1; depth <= n; ++depth) {
      e |= msgpack_pack_array(pk, depth == n ? 3 : 4);
      e |= msgpack_pack_int(pk, 1);
      e |= msgpack_pack_int(pk, 2);
      e |= msgpack_pack_int(pk, 3);
    }
  }
  return e == 0;
}

/// nlohmann encodes json values: the nested json array is built (from the inside out), then
/// to_msgpack'd, per copy.
void nl_build(std::vector<std::uint8_t>& out, std::size_t n, std::size_t copies) {
  for (std::size_t c = 0; c < copies; ++c) {
    nl::json j = nl::json::array({1, 2, 3});
    for (std::size_t depth = 2; depth <= n; ++depth)
      j = nl::json::array({1, 2, 3, std::move(j)});
    nl::append(j, out);
  }
}

// --- examine -----------------------------------------------------------------------------
// Each walks `copies` structures of `in` and hands every array and integer to the consumer;
// false on an error, another shape or trailing bytes.

/// mpk: read_array_header, then read<int64_t>() per integer, into the last element while it
/// is an array. Reader: mpk::reader (checked) or mpk::unchecked_reader.
template <class Reader, class C>
bool mpk_examine(bytes_view in, std::size_t copies, C& c) {
  Reader r(in);
  for (std::size_t k = 0; k < copies; ++k) {
    for (std::size_t depth = 1;; ++depth) {
      const std::size_t n = r.read_array_header();
      c.array(depth, n);
      if (n != 3 && n != 4) return false;
      c.i(r.template read<std::int64_t>());
      c.i(r.template read<std::int64_t>());
      c.i(r.template read<std::int64_t>());
      if (n == 3) break;
    }
  }
  return r.ok() && r.at_end();
}

/// msgpack-cxx: msgpack::parse with a visitor (SAX; no object, no zone) per structure.
template <class C>
struct cxx_visitor : msgpack::null_visitor {
  C* c = nullptr;
  std::size_t depth = 0;
  bool start_array(std::uint32_t n) {
    c->array(++depth, n);
    return true;
  }
  bool end_array() {
    --depth;
    return true;
  }
  bool visit_positive_integer(std::uint64_t v) {
    c->i(static_cast<std::int64_t>(v));
    return true;
  }
  bool visit_negative_integer(std::int64_t v) {
    c->i(v);
    return true;
  }
};

template <class C>
bool cxx_examine(bytes_view in, std::size_t copies, C& c) {
  const char* data = reinterpret_cast<const char*>(in.data());
  std::size_t off = 0;
  cxx_visitor<C> v;
  v.c = &c;
  for (std::size_t k = 0; k < copies; ++k)
    if (!msgpack::parse(data, in.size(), off, v)) return false;
  return off == in.size();
}

/// Walks a DOM of nest(N) from the outside in: `count(x)`, `at(x, i)`, `integer(x)` read it.
template <class Node, class Count, class At, class Integer, class C>
bool walk_dom(Node x, Count count, At at, Integer integer, C& c) {
  for (std::size_t depth = 1;; ++depth) {
    const std::size_t n = count(x);
    c.array(depth, n);
    if (n != 3 && n != 4) return false;
    for (std::size_t i = 0; i < 3; ++i) {
      std::int64_t v = 0;
      if (!integer(at(x, i), v)) return false;
      c.i(v);
    }
    if (n == 3) return true;
    x = at(x, 3);
  }
}

/// msgpack-c: msgpack_unpack into msgpack_object (its only reader), then the object walked.
template <class C>
bool c_walk(const msgpack_object& root, C& c) {
  return walk_dom(
      &root,
      [](const msgpack_object* x) -> std::size_t {
        return x->type == MSGPACK_OBJECT_ARRAY ? x->via.array.size : 0;
      },
      [](const msgpack_object* x, std::size_t i) { return &x->via.array.ptr[i]; },
      [](const msgpack_object* x, std::int64_t& v) {
        if (x->type != MSGPACK_OBJECT_POSITIVE_INTEGER) return false;
        v = static_cast<std::int64_t>(x->via.u64);
        return true;
      },
      c);
}

template <class C>
bool c_examine(bytes_view in, std::size_t copies, C& c) {
  mc::unpacker u;
  std::size_t off = 0;
  for (std::size_t k = 0; k < copies; ++k) {
    const msgpack_object* o = u.next(in, off);
    if (o == nullptr || !c_walk(*o, c)) return false;
  }
  return off == in.size();
}

/// nlohmann: json::sax_parse (MessagePack) per structure with a SAX handler.
template <class C>
struct nl_sax {
  C* c = nullptr;
  std::size_t depth = 0;
  bool null() { return false; }
  bool boolean(bool) { return false; }
  bool number_integer(nl::json::number_integer_t v) {
    c->i(v);
    return true;
  }
  bool number_unsigned(nl::json::number_unsigned_t v) {
    c->i(static_cast<std::int64_t>(v));
    return true;
  }
  bool number_float(nl::json::number_float_t, const nl::json::string_t&) { return false; }
  bool string(nl::json::string_t&) { return false; }
  bool binary(nl::json::binary_t&) { return false; }
  bool start_object(std::size_t) { return false; }
  bool key(nl::json::string_t&) { return false; }
  bool end_object() { return false; }
  bool start_array(std::size_t n) {
    c->array(++depth, n);
    return true;
  }
  bool end_array() {
    --depth;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) {
    return false;
  }
};

template <class C>
bool nl_examine(bytes_view in, std::size_t copies, C& c) {
  std::size_t off = 0;
  nl_sax<C> sax;
  sax.c = &c;
  for (std::size_t k = 0; k < copies; ++k)
    if (!nl::sax_next(in, off, sax)) return false;
  return off == in.size();
}

// --- field_size --------------------------------------------------------------------------
// Each returns the sum of the sizes of the `copies` structures (0 on an error).

std::size_t mpk_field_sizes(bytes_view in, std::size_t copies) {
  std::size_t off = 0;
  for (std::size_t k = 0; k < copies; ++k) {
    mpk::reader r(in.subspan(off));
    const std::size_t n = r.field_size();
    if (n == 0) return 0;
    off += n;
  }
  return off;
}

/// msgpack-cxx has no size function: msgpack::parse with its null_visitor (a skip), the
/// offset it reaches.
std::size_t cxx_field_sizes(bytes_view in, std::size_t copies) {
  const char* data = reinterpret_cast<const char*>(in.data());
  std::size_t off = 0;
  msgpack::null_visitor v;
  for (std::size_t k = 0; k < copies; ++k)
    if (!msgpack::parse(data, in.size(), off, v)) return 0;
  return off;
}

// --- DOM -----------------------------------------------------------------------------------
// Parse each structure into the library's DOM; Walk: also examine it (the verification).
// The timed loops parse only and add the node counts (or the bytes consumed).

template <bool Walk, class C>
bool mpk_dom(bytes_view in, std::size_t copies, C& c) {
  mpk::document doc;
  std::size_t off = 0;
  for (std::size_t k = 0; k < copies; ++k) {
    if (!doc.parse_into(in.subspan(off), {.read = {.allow_trailing = true}})) return false;
    off += doc.consumed();
    if constexpr (Walk) {
      const bool ok = walk_dom(
          doc.root(), [](const mpk::element& x) { return x.is_array() ? x.size() : 0; },
          [](const mpk::element& x, std::size_t i) { return x[i]; },
          [](const mpk::element& x, std::int64_t& v) {
            const auto r = x.as<std::int64_t>();
            v = r.value_or(0);
            return r.has_value();
          },
          c);
      if (!ok) return false;
    } else {
      c.i(static_cast<std::int64_t>(doc.node_count()));
    }
  }
  return off == in.size();
}

template <bool Walk, class C>
bool cxx_dom(bytes_view in, std::size_t copies, C& c) {
  const char* data = reinterpret_cast<const char*>(in.data());
  std::size_t off = 0;
  msgpack::zone zone;
  try {
    for (std::size_t k = 0; k < copies; ++k) {
      zone.clear();
      bool referenced = false;
      const msgpack::object o = msgpack::unpack(zone, data, in.size(), off, referenced);
      if constexpr (Walk) {
        const bool ok = walk_dom(
            &o,
            [](const msgpack::object* x) -> std::size_t {
              return x->type == msgpack::type::ARRAY ? x->via.array.size : 0;
            },
            [](const msgpack::object* x, std::size_t i) { return &x->via.array.ptr[i]; },
            [](const msgpack::object* x, std::int64_t& v) {
              if (x->type != msgpack::type::POSITIVE_INTEGER) return false;
              v = static_cast<std::int64_t>(x->via.u64);
              return true;
            },
            c);
        if (!ok) return false;
      } else {
        c.i(static_cast<std::int64_t>(o.via.array.size));
      }
    }
  } catch (const std::exception&) {
    return false;
  }
  return off == in.size();
}

template <bool Walk, class C>
bool c_dom(bytes_view in, std::size_t copies, C& c) {
  mc::unpacker u;
  std::size_t off = 0;
  for (std::size_t k = 0; k < copies; ++k) {
    const msgpack_object* o = u.next(in, off);
    if (o == nullptr) return false;
    if constexpr (Walk) {
      if (!c_walk(*o, c)) return false;
    } else {
      c.i(static_cast<std::int64_t>(o->via.array.size));
    }
  }
  return off == in.size();
}

template <bool Walk, class C>
bool nl_dom(bytes_view in, std::size_t copies, C& c) {
  std::size_t off = 0;
  nl::json j;
  for (std::size_t k = 0; k < copies; ++k) {
    if (!nl::read_next(in, off, j)) return false;
    if constexpr (Walk) {
      const bool ok = walk_dom(
          static_cast<const nl::json*>(&j),
          [](const nl::json* x) -> std::size_t { return x->is_array() ? x->size() : 0; },
          [](const nl::json* x, std::size_t i) { return &(*x)[i]; },
          [](const nl::json* x, std::int64_t& v) {
            if (!x->is_number_integer()) return false;
            v = x->get<std::int64_t>();
            return true;
          },
          c);
      if (!ok) return false;
    } else {
      c.i(static_cast<std::int64_t>(j.size()));
    }
  }
  return off == in.size();
}

// --- the workload ------------------------------------------------------------------------

struct w4_depth {
  std::size_t n = 0;
  std::size_t copies = 0;
  mpk::buffer ref;  ///< mpk's encoding of `copies` x nest(n): the input of every read case
  std::uint64_t ref_digest = 0;
  std::uint64_t sum = 0;   ///< level_sum over the stream
  std::uint64_t hash = 0;  ///< level_hash over the stream
};

/// N of every case name ("examine_128" -> 128), for the per-level facts after the run.
std::map<std::string, std::size_t>& case_depths() {
  static std::map<std::string, std::size_t> depths;
  return depths;
}

}  // namespace

bool register_deep_nesting(suite& s, const run_config& cfg) {
  namespace dn = deep_nesting;
  const bool say = !cfg.list_only;
  bool ok = true;
  std::vector<std::shared_ptr<w4_depth>> ds;
  for (const std::size_t n : dn::depths) {
    auto d = std::make_shared<w4_depth>();
    d->n = n;
    d->copies = dn::copies(n, cfg.quick);
    ok &= mpk_build(d->ref, n, d->copies);
    d->ref_digest = fnv1a64(d->ref.bytes());
    level_sum sum;
    level_hash hash;
    for (std::size_t k = 0; k < d->copies; ++k) {
      dn::walk(n, sum);
      dn::walk(n, hash);
    }
    d->sum = sum.acc;
    d->hash = hash.h;
    ds.push_back(d);
  }

  workload_table& t = s.add_workload(
      "w4", "deep_nesting", "W4 deep_nesting — nest(N) = [1, 2, 3, nest(N - 1)], N = 1 … 128",
      "structure");
  const std::string cxx_version = std::to_string(MSGPACK_VERSION_MAJOR) + "." +
                                  std::to_string(MSGPACK_VERSION_MINOR) + "." +
                                  std::to_string(MSGPACK_VERSION_REVISION);
  t.add_implementation({"mpk", "mpk " MPK_BENCH_MPK_VERSION,
                        "this project: mpk::writer; mpk::reader / mpk::unchecked_reader "
                        "(read_array_header, read<int64_t>), field_size(), mpk::document"});
  t.add_implementation({"msgpack-cxx", "msgpack-cxx " + cxx_version,
                        "Debian libmsgpack-cxx-dev, MSGPACK_NO_BOOST: packer; msgpack::parse "
                        "with a visitor (examine) or null_visitor (size); msgpack::unpack into "
                        "a reused zone (DOM)"});
  t.add_implementation({"msgpack-c", mc::version(),
                        "Debian libmsgpack-dev (C): msgpack_pack_array / _int; msgpack_unpack "
                        "into a reused zone (its only reader: examine = unpack + walk)"});
  t.add_implementation({"nlohmann", nl::version(),
                        "Debian nlohmann-json3-dev: nested json arrays + to_msgpack; "
                        "json::sax_parse (examine), from_msgpack (DOM)"});
  for (const auto& d : ds)
    t.add_fact("N = " + std::to_string(d->n) + ": " + verify::with_commas(d->copies) +
               " copies per pass, " + std::to_string(d->ref.size() / d->copies) +
               " bytes each (fnv1a64 of the stream " + hex64(d->ref_digest) + ")");
  t.add_fact(
      "examine reads every array header and integer (the reader is told nothing of "
      "the shape but that the nested array comes last); DOM parses the whole value");
  t.add_fact(
      "field_size: msgpack-c and nlohmann have no size or skip function (n/a); "
      "examine unchecked: only mpk has an unchecked reader");
  if (say) std::printf("W4 deep_nesting\nverification (docs/workloads.md rule 2):\n");

  const std::string unit = "structure";
  const auto add = verify::quick_adder(t, cfg);  // --quick: 0.01 s per cell
  const char* op_names[] = {"build", "examine", "examine_unchecked", "field_size", "dom"};
  const char* op_titles[] = {"build", "examine (checked)", "examine unchecked", "field_size",
                             "parse into a DOM"};
  const char* op_descriptions[] = {
      "encode the copies of nest(N) into one preallocated buffer",
      "walk each structure, reading every array header and integer (bounds and types checked)",
      "the same walk with checks off (trusted input)",
      "the size in bytes of each whole structure, without decoding it",
      "parse each structure into the library's DOM (node tree)"};
  for (std::size_t op = 0; op < 5; ++op) {
    for (const auto& d : ds) {
      const std::string name = std::string(op_names[op]) + "_" + std::to_string(d->n);
      t.add_case({name, std::string(op_titles[op]) + ", N = " + std::to_string(d->n),
                  op_descriptions[op]});
      case_depths()[name] = d->n;
    }
  }

  // msgpack-c's unpacker keeps its containers on a fixed stack (MSGPACK_EMBED_STACK_SIZE,
  // 32 in the Debian build): deeper values are a parse error. Probed here, not assumed.
  std::size_t c_max_depth = 0;
  for (const auto& d : ds) {
    mc::unpacker u;
    std::size_t off = 0;
    if (u.next(d->ref.bytes(), off) != nullptr) c_max_depth = d->n;
  }
  if (c_max_depth < dn::depths.back())
    t.add_fact("msgpack-c (n/a for N > " + std::to_string(c_max_depth) +
               "): msgpack_unpack fails on deeper values (its parse stack is a fixed array, "
               "MSGPACK_EMBED_STACK_SIZE = 32, compiled into the library)");
  if (say)
    std::printf("  msgpack-c reads nest(N) up to N = %zu; deeper: parse error (n/a)\n",
                c_max_depth);

  for (const auto& dp : ds) {
    const w4_depth& d = *dp;
    const std::string N = std::to_string(d.n);
    const bytes_view A = d.ref.bytes();
    const bool c_can = d.n <= c_max_depth;

    // Builds.
    msgpack::sbuffer cxx_bytes;
    cxx_build(cxx_bytes, d.n, d.copies);
    mc::output c_bytes;
    ok &= c_build(c_bytes, d.n, d.copies);
    std::vector<std::uint8_t> nl_bytes;
    nl_build(nl_bytes, d.n, d.copies);
    const std::string cxx_v = verify::bytes_verdict(mpk::as_bytes(cxx_bytes), A);
    const std::string c_v = verify::bytes_verdict(c_bytes.bytes(), A);
    const std::string nl_v = verify::bytes_verdict(mpk::as_bytes(nl_bytes), A);
    if (say)
      std::printf("  N = %s: msgpack-cxx %s; msgpack-c %s; nlohmann %s\n", N.c_str(), cxx_v.c_str(),
                  c_v.c_str(), nl_v.c_str());
    const std::uint64_t wants[] = {d.ref_digest, fnv1a64(mpk::as_bytes(cxx_bytes)),
                                   fnv1a64(c_bytes.bytes()), fnv1a64(mpk::as_bytes(nl_bytes))};
    auto build_cell = [dp, unit](auto make_buffer, auto build, auto bytes_of, std::uint64_t want) {
      return [=](benchmark::State& st) {
        auto buf = make_buffer(dp->ref.size() + 64);
        time_passes(
            st, dp->copies, unit,
            [&] {
              buf->clear();
              return build(*buf, dp->n, dp->copies) ? std::size_t{1} : std::size_t{0};
            },
            [&](std::size_t last) {
              if (last == 0) return std::string("the writer failed");
              return verify::check_digest(bytes_of(*buf), want);
            });
      };
    };
    add("build_" + N, "mpk", "reference bytes", "writer.begin_array(4 or 3), write(1..3) per level",
        build_cell([](std::size_t cap) { return std::make_unique<mpk::buffer>(cap); },
                   [](mpk::buffer& b, std::size_t n, std::size_t c) { return mpk_build(b, n, c); },
                   [](const mpk::buffer& b) { return b.bytes(); }, wants[0]));
    add("build_" + N, "msgpack-cxx", cxx_v, "packer.pack_array, pack(1..3) per level",
        build_cell([](std::size_t cap) { return std::make_unique<msgpack::sbuffer>(cap); },
                   [](msgpack::sbuffer& b, std::size_t n, std::size_t c) {
                     cxx_build(b, n, c);
                     return true;
                   },
                   [](const msgpack::sbuffer& b) { return mpk::as_bytes(b); }, wants[1]));
    add("build_" + N, "msgpack-c", c_v, "msgpack_pack_array, msgpack_pack_int(1..3) per level",
        build_cell([](std::size_t cap) { return std::make_unique<mc::output>(cap); },
                   [](mc::output& b, std::size_t n, std::size_t c) { return c_build(b, n, c); },
                   [](const mc::output& b) { return b.bytes(); }, wants[2]));
    add("build_" + N, "nlohmann", nl_v,
        "the nested json arrays built from the inside out, then json::to_msgpack",
        build_cell(
            [](std::size_t cap) {
              auto v = std::make_unique<std::vector<std::uint8_t>>();
              v->reserve(cap);
              return v;
            },
            [](std::vector<std::uint8_t>& b, std::size_t n, std::size_t c) {
              nl_build(b, n, c);
              return true;
            },
            [](const std::vector<std::uint8_t>& b) { return mpk::as_bytes(b); }, wants[3]));

    // Examines: verified by hash, timed by sum.
    auto add_walk = [&](const std::string& case_name, const std::string& impl,
                        const std::string& note, auto read) {
      std::string verdict = "same values (every array and integer of mpk's bytes, in order)";
      if (say) {
        level_hash h;
        const bool done = read(A, d.copies, h);
        std::string e;
        if (!done)
          e = "the decoder reported an error";
        else if (h.h != d.hash)
          e = "visited other arrays or integers than nest(" + N + ") holds";
        ok &= verify::report(e.empty(), impl + " " + case_name + " reads mpk's bytes", e);
        if (!e.empty()) verdict = "wrong values: " + e;
      }
      add(case_name, impl, verdict, note, [dp, unit, read](benchmark::State& st) {
        const bytes_view in = dp->ref.bytes();
        time_passes(
            st, dp->copies, unit,
            [&] {
              level_sum sum;
              return read(in, dp->copies, sum) ? sum.acc : 0;
            },
            [&](std::uint64_t last) { return verify::check_sum(last, dp->sum); });
      });
    };
    add_walk(
        "examine_" + N, "mpk", "mpk::reader: read_array_header(), read<int64_t>() x 3",
        [](bytes_view in, std::size_t c, auto& k) { return mpk_examine<mpk::reader>(in, c, k); });
    add_walk("examine_" + N, "msgpack-cxx",
             "msgpack::parse(data, size, offset, visitor) per structure: start_array / "
             "visit_positive_integer callbacks",
             [](bytes_view in, std::size_t c, auto& k) { return cxx_examine(in, c, k); });
    if (c_can)
      add_walk("examine_" + N, "msgpack-c",
               "msgpack_unpack into a reused zone, then the msgpack_object walked",
               [](bytes_view in, std::size_t c, auto& k) { return c_examine(in, c, k); });
    add_walk("examine_" + N, "nlohmann",
             "json::sax_parse(…, input_format_t::msgpack) per structure with a SAX handler",
             [](bytes_view in, std::size_t c, auto& k) { return nl_examine(in, c, k); });
    add_walk("examine_unchecked_" + N, "mpk",
             "mpk::unchecked_reader: read_array_header(), read<int64_t>() x 3",
             [](bytes_view in, std::size_t c, auto& k) {
               return mpk_examine<mpk::unchecked_reader>(in, c, k);
             });

    // field_size: the sizes must add up to the stream.
    auto add_size = [&](const std::string& impl, const std::string& note, auto sizes) {
      const bool right = sizes(A, d.copies) == A.size();
      if (say) ok &= verify::report(right, impl + " field_size_" + N + " on mpk's bytes");
      add("field_size_" + N, impl,
          right ? "the sizes add up to the stream exactly" : "wrong values: sizes do not add up",
          note, [dp, unit, sizes](benchmark::State& st) {
            const bytes_view in = dp->ref.bytes();
            time_passes(
                st, dp->copies, unit, [&] { return sizes(in, dp->copies); },
                [&](std::size_t last) {
                  return last == in.size() ? std::string()
                                           : "timed loop: sizes add up to " + std::to_string(last) +
                                                 ", not " + std::to_string(in.size());
                });
          });
    };
    add_size("mpk", "mpk::reader(bytes at the structure).field_size()", mpk_field_sizes);
    add_size("msgpack-cxx",
             "no size function: msgpack::parse with msgpack::null_visitor (a skip), the offset "
             "reached",
             cxx_field_sizes);

    // DOM: verified by walking it; timed parsing only (plus one add per structure).
    auto add_dom = [&](const std::string& impl, const std::string& note, auto parse, auto walk) {
      std::string verdict = "same values (the DOM walked: every array and integer, in order)";
      if (say) {
        level_hash h;
        std::string e;
        if (!walk(A, d.copies, h))
          e = "the parser reported an error";
        else if (h.h != d.hash)
          e = "the DOM holds other arrays or integers than nest(" + N + ")";
        ok &= verify::report(e.empty(), impl + " dom_" + N + " reads mpk's bytes", e);
        if (!e.empty()) verdict = "wrong values: " + e;
      }
      level_sum first;
      const bool parsed = parse(A, d.copies, first);
      const std::uint64_t want = parsed ? first.acc : ~std::uint64_t{0};
      add("dom_" + N, impl, verdict, note, [dp, unit, parse, want](benchmark::State& st) {
        const bytes_view in = dp->ref.bytes();
        time_passes(
            st, dp->copies, unit,
            [&] {
              level_sum sum;
              return parse(in, dp->copies, sum) ? sum.acc : 0;
            },
            [&](std::uint64_t last) { return verify::check_sum(last, want); });
      });
    };
    add_dom(
        "mpk", "mpk::document::parse_into (arena reused)",
        [](bytes_view in, std::size_t c, level_sum& k) { return mpk_dom<false>(in, c, k); },
        [](bytes_view in, std::size_t c, level_hash& k) { return mpk_dom<true>(in, c, k); });
    add_dom(
        "msgpack-cxx", "msgpack::unpack into a reused zone (msgpack::object tree)",
        [](bytes_view in, std::size_t c, level_sum& k) { return cxx_dom<false>(in, c, k); },
        [](bytes_view in, std::size_t c, level_hash& k) { return cxx_dom<true>(in, c, k); });
    if (c_can)
      add_dom(
          "msgpack-c", "msgpack_unpack into a reused zone (msgpack_object tree)",
          [](bytes_view in, std::size_t c, level_sum& k) { return c_dom<false>(in, c, k); },
          [](bytes_view in, std::size_t c, level_hash& k) { return c_dom<true>(in, c, k); });
    add_dom(
        "nlohmann", "json::from_msgpack (nested json arrays)",
        [](bytes_view in, std::size_t c, level_sum& k) { return nl_dom<false>(in, c, k); },
        [](bytes_view in, std::size_t c, level_hash& k) { return nl_dom<true>(in, c, k); });
  }
  if (!ok && say) {
    std::printf("W4 verification FAILED: not timing anything.\n");
    return false;
  }
  return true;
}

void add_deep_nesting_per_level(suite& s) {
  for (auto& t : s.tables()) {
    if (t->id() != "w4") continue;
    const char* ops[] = {"build", "examine", "examine_unchecked", "field_size", "dom"};
    for (const char* op : ops) {
      for (const implementation_info& i : t->implementations()) {
        std::string line;
        for (const case_info& c : t->cases()) {
          const auto n = case_depths().find(c.name);
          if (n == case_depths().end() ||
              c.name != std::string(op) + "_" + std::to_string(n->second))
            continue;
          const cell* x = t->find(c.name, i.name);
          if (x == nullptr || !x->error.empty() || x->ns_per_unit.empty()) continue;
          const double median = verify::median(x->ns_per_unit);
          char text[48];
          std::snprintf(text, sizeof text, "%sN=%zu: %.2f", line.empty() ? "" : ", ", n->second,
                        median / static_cast<double>(n->second));
          line += text;
        }
        if (!line.empty())
          t->add_fact("ns per level, " + std::string(op) + ", " + i.name + ": " + line);
      }
    }
  }
}

}  // namespace mpk_bench
