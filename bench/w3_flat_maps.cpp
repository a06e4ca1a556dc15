// bench/w3_flat_maps.cpp - workload W3 flat_maps: 100,000 top-level maps of 16 entries, for
// mpk, msgpack-cxx, msgpack-c and nlohmann::json.
//
// Cases: write (a typed struct to MessagePack), read typed (MessagePack into the struct), read
// dynamic (into the library's dynamic map type / DOM, then every entry visited). Every read
// case reads mpk's encoding. Before timing, every implementation's bytes are compared with
// mpk's, and every decoder reads mpk's bytes and its own back to the data (a wrong value
// stops the run). The read routines are templates over a consumer, as in W1: the timed loop
// sums the values, the verification rebuilds the maps from them and compares.
#include <mpk/codec.hpp>
#include <mpk/reader.hpp>
#include <mpk/value.hpp>
#include <mpk/writer.hpp>

#include <msgpack.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <exception>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "data/flat_maps.hpp"
#include "support/digest.hpp"
#include "support/peers/msgpack_c.hpp"
#include "support/peers/nlohmann.hpp"
#include "support/peers/verify.hpp"
#include "support/suite.hpp"
#include "workloads.hpp"

namespace mpk_bench::flat_maps {

// The struct described for each library: mpk's MPK_MAP and nlohmann's macro are written
// outside it; msgpack-cxx's MSGPACK_DEFINE_MAP must be inside, hence a derived struct.
MPK_MAP(record, k00, k01, k02, k03, k04, k05, k06, k07, k08, k09, k10, k11, k12, k13, k14, k15);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(record, k00, k01, k02, k03, k04, k05, k06, k07, k08, k09, k10,
                                   k11, k12, k13, k14, k15)

struct cxx_record : record {
  MSGPACK_DEFINE_MAP(k00, k01, k02, k03, k04, k05, k06, k07, k08, k09, k10, k11, k12, k13, k14, k15)
};

/// The same struct with no description: mpk reflects it (the "mpk-reflected" cells), the
/// same bytes as record's MPK_MAP.
using plain_record = record_of<1>;

}  // namespace mpk_bench::flat_maps

namespace mpk_bench {
namespace {

using flat_maps::cxx_record;
using flat_maps::plain_record;
using flat_maps::record;
using verify::bytes_view;
namespace mc = peers::msgpack_c;
namespace nl = peers::nlohmann_msgpack;

// --- consumers ---------------------------------------------------------------------------

/// The timed loops of the dynamic reads: every entry adds its key's length and its value.
struct entry_sum {
  std::uint64_t acc = 0;
  void i(std::string_view k, std::int64_t v) noexcept {
    acc += k.size() + static_cast<std::uint64_t>(v);
  }
  void f(std::string_view k, double v) noexcept {
    acc += k.size() + std::bit_cast<std::uint64_t>(v);
  }
  void s(std::string_view k, std::string_view v) noexcept {
    acc += k.size() + v.size();
    if (!v.empty()) acc += static_cast<unsigned char>(v.back());
  }
  void b(std::string_view k, bool v) noexcept { acc += k.size() + (v ? 1 : 0); }
  void other(std::string_view k) noexcept { acc += k.size() + 0x9e3779b97f4a7c15ull; }
};

/// The verification of the dynamic reads: puts every entry into the struct member its key
/// names, and notes any entry that has no member of its type.
struct entry_builder {
  record r;
  int entries = 0;
  std::string error;

  /// The index j of "kNN" (0..15), or -1.
  static int index(std::string_view k) noexcept {
    if (k.size() != 3 || k[0] != 'k' || k[1] < '0' || k[1] > '1' || k[2] < '0' || k[2] > '9')
      return -1;
    const int j = (k[1] - '0') * 10 + (k[2] - '0');
    return j < 16 ? j : -1;
  }
  template <class T>
  T* member(std::string_view k, int kind) {
    ++entries;
    const int j = index(k);
    if (j < 0 || j % 4 != kind) {
      if (error.empty()) error = "unexpected entry \"" + std::string(k) + "\" or type";
      return nullptr;
    }
    if constexpr (std::is_same_v<T, std::int64_t>) {
      std::int64_t* m[] = {&r.k00, &r.k04, &r.k08, &r.k12};
      return m[j / 4];
    } else if constexpr (std::is_same_v<T, double>) {
      double* m[] = {&r.k01, &r.k05, &r.k09, &r.k13};
      return m[j / 4];
    } else if constexpr (std::is_same_v<T, std::string>) {
      std::string* m[] = {&r.k02, &r.k06, &r.k10, &r.k14};
      return m[j / 4];
    } else {
      bool* m[] = {&r.k03, &r.k07, &r.k11, &r.k15};
      return m[j / 4];
    }
  }
  void i(std::string_view k, std::int64_t v) {
    if (auto* m = member<std::int64_t>(k, 0)) *m = v;
  }
  void f(std::string_view k, double v) {
    if (auto* m = member<double>(k, 1)) *m = v;
  }
  void s(std::string_view k, std::string_view v) {
    if (auto* m = member<std::string>(k, 2)) *m = std::string(v);
  }
  void b(std::string_view k, bool v) {
    if (auto* m = member<bool>(k, 3)) *m = v;
  }
  void other(std::string_view k) {
    ++entries;
    if (error.empty()) error = "entry \"" + std::string(k) + "\" of an unexpected type";
  }
};

/// Feeds the 16 entries of `r` to a consumer, in key order: what a dynamic read must see.
template <class C>
void emit(const record& r, C& c) {
  c.i("k00", r.k00), c.f("k01", r.k01), c.s("k02", r.k02), c.b("k03", r.k03);
  c.i("k04", r.k04), c.f("k05", r.k05), c.s("k06", r.k06), c.b("k07", r.k07);
  c.i("k08", r.k08), c.f("k09", r.k09), c.s("k10", r.k10), c.b("k11", r.k11);
  c.i("k12", r.k12), c.f("k13", r.k13), c.s("k14", r.k14), c.b("k15", r.k15);
}

/// What the typed reads add per map: an integer and a string length, after the struct was
/// handed to benchmark::DoNotOptimize (so no member store can be optimized away).
template <class R>  // record or plain_record
std::uint64_t typed_sum(const R& r) noexcept {
  return static_cast<std::uint64_t>(r.k00) + r.k02.size();
}

// --- writes ------------------------------------------------------------------------------

/// mpk: MPK_MAP's codec per map (pre-encoded keys); with plain_record, the reflected codec.
template <class Maps>  // a range of record or of plain_record
bool mpk_write(mpk::buffer& out, const Maps& maps) {
  mpk::writer w(out);
  for (const auto& r : maps)
    (void)mpk::pack(w, r);
  return w.ok();
}

/// msgpack-cxx: packer.pack of the MSGPACK_DEFINE_MAP struct per map.
void cxx_write(msgpack::sbuffer& out, std::span<const cxx_record> maps) {
  msgpack::packer<msgpack::sbuffer> pk(out);
  for (const cxx_record& r : maps)
    pk.pack(r);
}

/// msgpack-c: no mapping, so one msgpack_pack_* call per key and value.
bool c_write(mc::output& out, std::span<const record> maps) {
  msgpack_packer* pk = out.packer();
  int e = 0;
  const auto integer = [&](const char* k, std::int64_t v) {
    e |= mc::pack_str(pk, k);
    e |= msgpack_pack_int64(pk, v);
  };
  const auto real = [&](const char* k, double v) {
    e |= mc::pack_str(pk, k);
    e |= msgpack_pack_double(pk, v);
  };
  const auto text = [&](const char* k, const std::string& v) {
    e |= mc::pack_str(pk, k);
    e |= mc::pack_str(pk, v);
  };
  const auto flag = [&](const char* k, bool v) {
    e |= mc::pack_str(pk, k);
    e |= v ? msgpack_pack_true(pk) : msgpack_pack_false(pk);
  };
  for (const record& r : maps) {
    e |= msgpack_pack_map(pk, 16);
    integer("k00", r.k00), real("k01", r.k01), text("k02", r.k02), flag("k03", r.k03);
    integer("k04", r.k04), real("k05", r.k05), text("k06", r.k06), flag("k07", r.k07);
    integer("k08", r.k08), real("k09", r.k09), text("k10", r.k10), flag("k11", r.k11);
    integer("k12", r.k12), real("k13", r.k13), text("k14", r.k14), flag("k15", r.k15);
  }
  return e == 0;
}

/// nlohmann: the struct to a json object (its macro's to_json), then to_msgpack, per map.
void nl_write(std::vector<std::uint8_t>& out, std::span<const record> maps) {
  for (const record& r : maps)
    nl::append(nl::json(r), out);
}

// --- typed reads -------------------------------------------------------------------------
// Each calls `got(record)` per map and returns false on a decoding error or trailing bytes.

template <class R = record, class Got>
bool mpk_read_typed(bytes_view in, std::size_t maps, Got&& got) {
  mpk::reader r(in);
  R x;
  for (std::size_t i = 0; i < maps; ++i) {
    if (!mpk::unpack(r, x)) return false;
    got(x);
  }
  return r.at_end();
}

/// msgpack-cxx: unpack into a zone (reused across maps), then object.convert(struct).
template <class Got>
bool cxx_read_typed(bytes_view in, std::size_t maps, Got&& got) {
  const char* data = reinterpret_cast<const char*>(in.data());
  std::size_t off = 0;
  msgpack::zone zone;
  cxx_record x;
  try {
    for (std::size_t i = 0; i < maps; ++i) {
      zone.clear();
      bool referenced = false;
      msgpack::unpack(zone, data, in.size(), off, referenced).convert(x);
      got(static_cast<const record&>(x));
    }
  } catch (const std::exception&) {
    return false;
  }
  return off == in.size();
}

/// Visits the entries of a msgpack-c map object with a consumer.
template <class C>
bool c_entries(const msgpack_object& o, C& c) {
  if (o.type != MSGPACK_OBJECT_MAP) return false;
  for (std::uint32_t k = 0; k < o.via.map.size; ++k) {
    const msgpack_object_kv& kv = o.via.map.ptr[k];
    if (kv.key.type != MSGPACK_OBJECT_STR) return false;
    const std::string_view key = mc::str(kv.key);
    const msgpack_object& v = kv.val;
    switch (v.type) {
      case MSGPACK_OBJECT_POSITIVE_INTEGER:
        if (v.via.u64 > INT64_MAX) return false;
        c.i(key, static_cast<std::int64_t>(v.via.u64));
        break;
      case MSGPACK_OBJECT_NEGATIVE_INTEGER:
        c.i(key, v.via.i64);
        break;
      case MSGPACK_OBJECT_FLOAT32:
      case MSGPACK_OBJECT_FLOAT64:
        c.f(key, v.via.f64);
        break;
      case MSGPACK_OBJECT_STR:
        c.s(key, mc::str(v));
        break;
      case MSGPACK_OBJECT_BOOLEAN:
        c.b(key, v.via.boolean);
        break;
      default:
        c.other(key);
        break;
    }
  }
  return true;
}

/// msgpack-c: unpack into msgpack_object (zone reused), then the keys matched by hand into
/// the struct (msgpack-c has no typed mapping: this is what its users write).
template <class Got>
bool c_read_typed(bytes_view in, std::size_t maps, Got&& got) {
  mc::unpacker u;
  std::size_t off = 0;
  entry_builder b;
  for (std::size_t i = 0; i < maps; ++i) {
    const msgpack_object* o = u.next(in, off);
    if (o == nullptr || o->via.map.size != 16) return false;
    b.entries = 0;
    if (!c_entries(*o, b) || !b.error.empty()) return false;
    got(b.r);
  }
  return off == in.size();
}

/// nlohmann: from_msgpack of each map into a json object, then get<record>() (its macro's
/// from_json: one lookup per member).
template <class Got>
bool nl_read_typed(bytes_view in, std::size_t maps, Got&& got) {
  std::size_t off = 0;
  nl::json j;
  record x;
  try {
    for (std::size_t i = 0; i < maps; ++i) {
      if (!nl::read_next(in, off, j)) return false;
      j.get_to(x);
      got(x);
    }
  } catch (const std::exception&) {
    return false;
  }
  return off == in.size();
}

// --- dynamic reads -----------------------------------------------------------------------

/// mpk: mpk::document::parse_into per map (one arena, reused), then its entries.
template <class C>
bool mpk_read_dynamic(bytes_view in, std::size_t maps, C& c) {
  mpk::document doc;
  std::size_t off = 0;
  for (std::size_t i = 0; i < maps; ++i) {
    if (!doc.parse_into(in.subspan(off), {.read = {.allow_trailing = true}})) return false;
    off += doc.consumed();
    const mpk::element root = doc.root();
    if (!root.is_map()) return false;
    for (const mpk::map_entry& e : root.entries()) {
      const std::string_view key = e.key.as<std::string_view>().value_or(std::string_view());
      const mpk::element& v = e.value;
      switch (v.type()) {
        case mpk::type::uint:
        case mpk::type::sint: {
          const auto x = v.as<std::int64_t>();
          if (!x) return false;
          c.i(key, *x);
          break;
        }
        case mpk::type::float32:
        case mpk::type::float64:
          c.f(key, v.as<double>().value_or(0));
          break;
        case mpk::type::str:
          c.s(key, v.as<std::string_view>().value_or(std::string_view()));
          break;
        case mpk::type::boolean:
          c.b(key, v.as<bool>().value_or(false));
          break;
        default:
          c.other(key);
          break;
      }
    }
  }
  return off == in.size();
}

/// msgpack-cxx: unpack into msgpack::object (zone reused), then its map entries.
template <class C>
bool cxx_read_dynamic(bytes_view in, std::size_t maps, C& c) {
  const char* data = reinterpret_cast<const char*>(in.data());
  std::size_t off = 0;
  msgpack::zone zone;
  try {
    for (std::size_t i = 0; i < maps; ++i) {
      zone.clear();
      bool referenced = false;
      const msgpack::object o = msgpack::unpack(zone, data, in.size(), off, referenced);
      if (o.type != msgpack::type::MAP) return false;
      for (const msgpack::object_kv& kv : std::span(o.via.map.ptr, o.via.map.size)) {
        if (kv.key.type != msgpack::type::STR) return false;
        const std::string_view key(kv.key.via.str.ptr, kv.key.via.str.size);
        const msgpack::object& v = kv.val;
        switch (v.type) {
          case msgpack::type::POSITIVE_INTEGER:
          case msgpack::type::NEGATIVE_INTEGER:
            c.i(key, v.as<std::int64_t>());
            break;
          case msgpack::type::FLOAT32:
          case msgpack::type::FLOAT64:
            c.f(key, v.via.f64);
            break;
          case msgpack::type::STR:
            c.s(key, std::string_view(v.via.str.ptr, v.via.str.size));
            break;
          case msgpack::type::BOOLEAN:
            c.b(key, v.via.boolean);
            break;
          default:
            c.other(key);
            break;
        }
      }
    }
  } catch (const std::exception&) {
    return false;
  }
  return off == in.size();
}

/// msgpack-c: unpack into msgpack_object (its DOM; zone reused), then its map entries.
template <class C>
bool c_read_dynamic(bytes_view in, std::size_t maps, C& c) {
  mc::unpacker u;
  std::size_t off = 0;
  for (std::size_t i = 0; i < maps; ++i) {
    const msgpack_object* o = u.next(in, off);
    if (o == nullptr || !c_entries(*o, c)) return false;
  }
  return off == in.size();
}

/// nlohmann: from_msgpack into a json object (a std::map of json values), then its items.
template <class C>
bool nl_read_dynamic(bytes_view in, std::size_t maps, C& c) {
  std::size_t off = 0;
  nl::json j;
  for (std::size_t i = 0; i < maps; ++i) {
    if (!nl::read_next(in, off, j) || !j.is_object()) return false;
    for (auto it = j.cbegin(); it != j.cend(); ++it) {
      const std::string& key = it.key();
      const nl::json& v = it.value();
      if (v.is_number_unsigned())
        c.i(key, static_cast<std::int64_t>(v.get<std::uint64_t>()));
      else if (v.is_number_integer())
        c.i(key, v.get<std::int64_t>());
      else if (v.is_number_float())
        c.f(key, v.get<double>());
      else if (v.is_string())
        c.s(key, v.get_ref<const std::string&>());
      else if (v.is_boolean())
        c.b(key, v.get<bool>());
      else
        c.other(key);
    }
  }
  return off == in.size();
}

// --- the workload ------------------------------------------------------------------------

struct w3_context {
  std::vector<record> maps;
  std::vector<cxx_record> cxx_maps;      // the same data, as msgpack-cxx's struct
  std::vector<plain_record> plain_maps;  // the same data, reflected by mpk
  mpk::buffer ref;                       // mpk's encoding: the input of every read case
  std::uint64_t ref_digest = 0;
  std::uint64_t cxx_digest = 0, c_digest = 0, nl_digest = 0;  // each peer's own bytes
  std::uint64_t typed_sum = 0, dynamic_sum = 0;
};

bool same(const record& a, const record& b) {
  return a == b;
}
bool same(const plain_record& a, const record& b) {
  return flat_maps::copy_as<0>(a) == b;
}

/// Checks a typed read of `in` against the data; prints the verdict.
template <class Read>
bool check_typed(const std::string& what, const w3_context& ctx, bytes_view in, Read&& read) {
  std::size_t i = 0;
  std::string error;
  const bool ok = read(in, ctx.maps.size(), [&](const auto& r) {
    if (error.empty() && (i >= ctx.maps.size() || !same(r, ctx.maps[i])))
      error = "map " + std::to_string(i) + " differs from the data";
    ++i;
  });
  if (error.empty() && !ok) error = "the decoder reported an error";
  return verify::report(error.empty(), what, error);
}

/// Checks a dynamic read of `in` against the data; prints the verdict.
template <class Read>
bool check_dynamic(const std::string& what, const w3_context& ctx, bytes_view in, Read&& read) {
  // The consumer sees the entries of every map in turn: a new builder per 16 entries.
  struct per_map {
    const w3_context* ctx;
    entry_builder cur;
    std::size_t map = 0;
    std::string error;
    void next() {
      if (cur.entries < 16) return;
      if (error.empty() && !cur.error.empty())
        error = "map " + std::to_string(map) + ": " + cur.error;
      if (error.empty() && (map >= ctx->maps.size() || !(cur.r == ctx->maps[map])))
        error = "map " + std::to_string(map) + " differs from the data";
      cur = entry_builder{};
      ++map;
    }
    void i(std::string_view k, std::int64_t v) { cur.i(k, v), next(); }
    void f(std::string_view k, double v) { cur.f(k, v), next(); }
    void s(std::string_view k, std::string_view v) { cur.s(k, v), next(); }
    void b(std::string_view k, bool v) { cur.b(k, v), next(); }
    void other(std::string_view k) { cur.other(k), next(); }
  };
  per_map c{&ctx, {}, 0, {}};
  const bool ok = read(in, ctx.maps.size(), c);
  std::string error = c.error;
  if (error.empty() && c.map != ctx.maps.size())
    error = "decoded " + std::to_string(c.map) + " maps of " + std::to_string(ctx.maps.size());
  if (error.empty() && !ok) error = "the decoder reported an error";
  return verify::report(error.empty(), what, error);
}

}  // namespace

bool register_flat_maps(suite& s, const run_config& cfg) {
  auto ctx = std::make_shared<w3_context>();
  const std::size_t n = cfg.values != 0 ? cfg.values
                        : cfg.quick     ? flat_maps::quick_maps
                                        : flat_maps::full_maps;
  ctx->maps = flat_maps::generate(n);
  ctx->cxx_maps.reserve(n);
  for (const record& r : ctx->maps)
    ctx->cxx_maps.push_back(cxx_record{r});
  for (const record& r : ctx->maps)
    ctx->plain_maps.push_back(flat_maps::copy_as<1>(r));
  for (const record& r : ctx->maps)
    ctx->typed_sum += typed_sum(r);
  {
    entry_sum sum;
    for (const record& r : ctx->maps)
      emit(r, sum);
    ctx->dynamic_sum = sum.acc;
  }
  const std::span<const record> maps = ctx->maps;
  const bool say = !cfg.list_only;
  bool ok = mpk_write(ctx->ref, maps);
  {
    mpk::buffer reflected;
    ok &= mpk_write(reflected, ctx->plain_maps);
    ok &= verify::report(std::ranges::equal(reflected.bytes(), ctx->ref.bytes()),
                         "mpk-reflected writes W3: the same bytes as MPK_MAP", "");
  }
  ctx->ref_digest = fnv1a64(ctx->ref.bytes());
  const bytes_view A = ctx->ref.bytes();

  // Each peer's own bytes, and the verdict against mpk's.
  msgpack::sbuffer cxx_bytes;
  cxx_write(cxx_bytes, ctx->cxx_maps);
  mc::output c_bytes;
  ok &= c_write(c_bytes, maps);
  std::vector<std::uint8_t> nl_bytes;
  nl_write(nl_bytes, maps);
  ctx->cxx_digest = fnv1a64(mpk::as_bytes(cxx_bytes));
  ctx->c_digest = fnv1a64(c_bytes.bytes());
  ctx->nl_digest = fnv1a64(mpk::as_bytes(nl_bytes));
  const std::string cxx_verdict = verify::bytes_verdict(mpk::as_bytes(cxx_bytes), A);
  const std::string c_verdict = verify::bytes_verdict(c_bytes.bytes(), A);
  const std::string nl_verdict = verify::bytes_verdict(
      mpk::as_bytes(nl_bytes), A,
      "writes a double that float32 holds exactly as float32 (every float of W3 here), mpk "
      "writes float64");

  if (say) {
    std::printf("W3 flat_maps: %s maps of 16 entries\n", verify::with_commas(n).c_str());
    std::printf("verification (docs/workloads.md rule 2):\n");
    verify::report(
        ok, "mpk and msgpack-c write W3",
        verify::with_commas(A.size()) + " bytes (mpk), fnv1a64 " + hex64(ctx->ref_digest));
    std::printf("  msgpack-cxx: %s\n  msgpack-c: %s\n  nlohmann: %s\n", cxx_verdict.c_str(),
                c_verdict.c_str(), nl_verdict.c_str());
    struct input {
      const char* name;
      bytes_view bytes;
    };
    const input inputs[] = {{"mpk", A},
                            {"msgpack-cxx", mpk::as_bytes(cxx_bytes)},
                            {"msgpack-c", c_bytes.bytes()},
                            {"nlohmann", mpk::as_bytes(nl_bytes)}};
    for (const input& in : inputs) {
      const std::string of = std::string(" reads ") + in.name + "'s bytes";
      ok &= check_typed(
          "mpk typed" + of, *ctx, in.bytes,
          [](bytes_view b, std::size_t m, auto got) { return mpk_read_typed(b, m, got); });
      ok &= check_typed("mpk-reflected typed" + of, *ctx, in.bytes,
                        [](bytes_view b, std::size_t m, auto got) {
                          return mpk_read_typed<plain_record>(b, m, got);
                        });
      ok &= check_typed(
          "msgpack-cxx typed" + of, *ctx, in.bytes,
          [](bytes_view b, std::size_t m, auto got) { return cxx_read_typed(b, m, got); });
      ok &= check_typed(
          "msgpack-c typed" + of, *ctx, in.bytes,
          [](bytes_view b, std::size_t m, auto got) { return c_read_typed(b, m, got); });
      ok &= check_typed(
          "nlohmann typed" + of, *ctx, in.bytes,
          [](bytes_view b, std::size_t m, auto got) { return nl_read_typed(b, m, got); });
      ok &= check_dynamic(
          "mpk document" + of, *ctx, in.bytes,
          [](bytes_view b, std::size_t m, auto& c) { return mpk_read_dynamic(b, m, c); });
      ok &= check_dynamic(
          "msgpack-cxx object" + of, *ctx, in.bytes,
          [](bytes_view b, std::size_t m, auto& c) { return cxx_read_dynamic(b, m, c); });
      ok &= check_dynamic(
          "msgpack-c object" + of, *ctx, in.bytes,
          [](bytes_view b, std::size_t m, auto& c) { return c_read_dynamic(b, m, c); });
      ok &= check_dynamic(
          "nlohmann json" + of, *ctx, in.bytes,
          [](bytes_view b, std::size_t m, auto& c) { return nl_read_dynamic(b, m, c); });
    }
    if (!ok) {
      std::printf("W3 verification FAILED: not timing anything.\n");
      return false;
    }
  }

  // --- the table -------------------------------------------------------------------------
  workload_table& t = s.add_workload(
      "w3", "flat_maps", "W3 flat_maps — " + verify::with_commas(n) + " maps of 16 entries", "map");
  t.add_fact(verify::with_commas(n) +
             " top-level maps, keys \"k00\"…\"k15\", values: integer, "
             "float64, short string, boolean (repeating); mpk's encoding: " +
             verify::with_commas(A.size()) + " bytes, fnv1a64 " + hex64(ctx->ref_digest));
  t.add_fact(
      "every read case reads mpk's encoding; a typed read fills a struct of 16 members "
      "(4 std::string), a dynamic read builds the library's DOM and visits every entry");
  const std::string cxx_version = std::to_string(MSGPACK_VERSION_MAJOR) + "." +
                                  std::to_string(MSGPACK_VERSION_MINOR) + "." +
                                  std::to_string(MSGPACK_VERSION_REVISION);
  t.add_implementation({"mpk", "mpk " MPK_BENCH_MPK_VERSION,
                        "this project: MPK_MAP struct codec (mpk::pack / mpk::unpack with a "
                        "writer / reader), mpk::document for the dynamic read"});
  t.add_implementation({"mpk-reflected", "mpk " MPK_BENCH_MPK_VERSION,
                        "this project: the same struct without MPK_MAP (compile-time "
                        "reflection); typed cases only"});
  t.add_implementation({"msgpack-cxx", "msgpack-cxx " + cxx_version,
                        "Debian libmsgpack-cxx-dev, MSGPACK_NO_BOOST: MSGPACK_DEFINE_MAP struct, "
                        "packer over sbuffer, unpack into a reused zone then convert()"});
  t.add_implementation({"msgpack-c", mc::version(),
                        "Debian libmsgpack-dev (the C library): msgpack_pack_* over "
                        "msgpack_sbuffer, msgpack_unpack into a reused zone; no typed mapping "
                        "(keys matched by hand)"});
  t.add_implementation({"nlohmann", nl::version(),
                        "Debian nlohmann-json3-dev: json::to_msgpack / from_msgpack through a "
                        "json value (NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE for the struct)"});
  t.add_case({"write", "write", "each struct to MessagePack into one preallocated buffer"});
  t.add_case({"read_typed", "read typed (struct)",
              "each map into the struct (16 members, strings copied into std::string)"});
  t.add_case({"read_dynamic", "read dynamic (DOM)",
              "each map into the library's dynamic type, then every entry visited"});

  const std::string unit = "map";
  const auto add = verify::quick_adder(t, cfg);  // --quick: 0.01 s per cell
  const std::string values_ok =
      "same values (reads mpk's, msgpack-cxx's, msgpack-c's and "
      "nlohmann's bytes back to the data)";
  auto write_cell = [ctx, unit](auto make_buffer, auto write, auto bytes_of, std::uint64_t want) {
    return [=](benchmark::State& st) {
      auto buf = make_buffer(ctx->ref.size() * 2);
      time_passes(
          st, ctx->maps.size(), unit,
          [&] {
            buf->clear();
            return write(*buf) ? std::size_t{1} : std::size_t{0};
          },
          [&](std::size_t last) {
            if (last == 0) return std::string("the writer failed");
            return verify::check_digest(bytes_of(*buf), want);
          });
    };
  };
  add("write", "mpk", "reference bytes",
      "mpk::buffer preallocated, clear() each pass; "
      "mpk::pack(writer, struct) per map",
      write_cell([](std::size_t cap) { return std::make_unique<mpk::buffer>(cap); },
                 [ctx](mpk::buffer& b) { return mpk_write(b, ctx->maps); },
                 [](const mpk::buffer& b) { return b.bytes(); }, ctx->ref_digest));
  add("write", "mpk-reflected", "reference bytes",
      "mpk::buffer preallocated, clear() each pass; "
      "mpk::pack(writer, struct) per map, a plain aggregate without MPK_MAP (reflected)",
      write_cell([](std::size_t cap) { return std::make_unique<mpk::buffer>(cap); },
                 [ctx](mpk::buffer& b) { return mpk_write(b, ctx->plain_maps); },
                 [](const mpk::buffer& b) { return b.bytes(); }, ctx->ref_digest));
  add("write", "msgpack-cxx", cxx_verdict,
      "msgpack::sbuffer preallocated, clear() each pass; packer.pack(struct) per map",
      write_cell([](std::size_t cap) { return std::make_unique<msgpack::sbuffer>(cap); },
                 [ctx](msgpack::sbuffer& b) {
                   cxx_write(b, ctx->cxx_maps);
                   return true;
                 },
                 [](const msgpack::sbuffer& b) { return mpk::as_bytes(b); }, ctx->cxx_digest));
  add("write", "msgpack-c", c_verdict,
      "msgpack_sbuffer preallocated, cleared each pass; msgpack_pack_map, then "
      "msgpack_pack_str + body / _int64 / _double / _true / _false per entry",
      write_cell([](std::size_t cap) { return std::make_unique<mc::output>(cap); },
                 [ctx](mc::output& b) { return c_write(b, ctx->maps); },
                 [](const mc::output& b) { return b.bytes(); }, ctx->c_digest));
  add("write", "nlohmann", nl_verdict,
      "std::vector<uint8_t> preallocated, cleared each pass; json j = struct; "
      "json::to_msgpack(j, vector) per map",
      write_cell(
          [](std::size_t cap) {
            auto v = std::make_unique<std::vector<std::uint8_t>>();
            v->reserve(cap);
            return v;
          },
          [ctx](std::vector<std::uint8_t>& b) {
            nl_write(b, ctx->maps);
            return true;
          },
          [](const std::vector<std::uint8_t>& b) { return mpk::as_bytes(b); }, ctx->nl_digest));

  auto typed_cell = [ctx, unit](auto read) {
    return [=](benchmark::State& st) {
      const bytes_view in = ctx->ref.bytes();
      time_passes(
          st, ctx->maps.size(), unit,
          [&] {
            std::uint64_t acc = 0;
            const bool done = read(in, ctx->maps.size(), [&](const auto& r) {
              benchmark::DoNotOptimize(&r);
              acc += typed_sum(r);
            });
            return done ? acc : 0;
          },
          [&](std::uint64_t last) { return verify::check_sum(last, ctx->typed_sum); });
    };
  };
  add("read_typed", "mpk", values_ok, "mpk::unpack(reader, struct) per map",
      typed_cell([](bytes_view b, std::size_t m, auto got) { return mpk_read_typed(b, m, got); }));
  add("read_typed", "mpk-reflected", values_ok,
      "mpk::unpack(reader, struct) per map, a plain aggregate without MPK_MAP (reflected)",
      typed_cell([](bytes_view b, std::size_t m, auto got) {
        return mpk_read_typed<plain_record>(b, m, got);
      }));
  add("read_typed", "msgpack-cxx", values_ok,
      "msgpack::unpack(zone, ...) per map (zone.clear() before each), then "
      "object.convert(struct)",
      typed_cell([](bytes_view b, std::size_t m, auto got) { return cxx_read_typed(b, m, got); }));
  add("read_typed", "msgpack-c", values_ok,
      "msgpack_unpack into a reused zone per map, then each key matched by its text into "
      "the struct member of its type (hand-written: msgpack-c has no mapping)",
      typed_cell([](bytes_view b, std::size_t m, auto got) { return c_read_typed(b, m, got); }));
  add("read_typed", "nlohmann", values_ok,
      "json::from_msgpack per map (through a byte-counting iterator to find where it ends), "
      "then json.get_to(struct)",
      typed_cell([](bytes_view b, std::size_t m, auto got) { return nl_read_typed(b, m, got); }));

  auto dynamic_cell = [ctx, unit](auto read) {
    return [=](benchmark::State& st) {
      const bytes_view in = ctx->ref.bytes();
      time_passes(
          st, ctx->maps.size(), unit,
          [&] {
            entry_sum sum;
            return read(in, ctx->maps.size(), sum) ? sum.acc : 0;
          },
          [&](std::uint64_t last) { return verify::check_sum(last, ctx->dynamic_sum); });
    };
  };
  add("read_dynamic", "mpk", values_ok,
      "mpk::document::parse_into per map (arena reused, strings zero-copy), then "
      "root().entries() with as<T>() per value",
      dynamic_cell([](bytes_view b, std::size_t m, auto& c) { return mpk_read_dynamic(b, m, c); }));
  add("read_dynamic", "msgpack-cxx", values_ok,
      "msgpack::unpack(zone, ...) per map into msgpack::object (strings copied into the "
      "zone), then its map entries",
      dynamic_cell([](bytes_view b, std::size_t m, auto& c) { return cxx_read_dynamic(b, m, c); }));
  add("read_dynamic", "msgpack-c", values_ok,
      "msgpack_unpack per map into msgpack_object (zone reused, strings zero-copy), then "
      "its map entries",
      dynamic_cell([](bytes_view b, std::size_t m, auto& c) { return c_read_dynamic(b, m, c); }));
  add("read_dynamic", "nlohmann", values_ok,
      "json::from_msgpack per map into a json object (std::map, strings copied), then its "
      "items",
      dynamic_cell([](bytes_view b, std::size_t m, auto& c) { return nl_read_dynamic(b, m, c); }));
  return true;
}

}  // namespace mpk_bench
