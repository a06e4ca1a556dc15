// bench/w5_typed_objects.cpp - workload W5 typed_objects (the MsgPack.Light workloads).
//
// One operation is one object: serialize it into a reused buffer, deserialize it into a new
// C++ object, or skip it. The objects are C++ types (std::vector<std::int64_t>,
// std::vector<double>, a beer struct in map mode and in array mode, lists of 10 beers) that
// each library maps its own way: mpk through MPK_MAP / MPK_ARRAY, msgpack-cxx through
// MSGPACK_DEFINE_MAP / MSGPACK_DEFINE_ARRAY, msgpack-c and the JSON libraries by hand,
// nlohmann::json through to_json / from_json. Before timing, every serializer's bytes are
// compared with mpk's (and decoded back), and every deserializer reads mpk's bytes (or the
// JSON text) back to objects equal to the data.
#include <mpk/codec.hpp>
#include <mpk/reader.hpp>
#include <mpk/writer.hpp>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <simdjson.h>
#include <msgpack.hpp>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "data/w5_beer_types.hpp"
#include "data/w5_typed_objects.hpp"
#include "data/w5_w7_checks.hpp"
#include "support/peers/nlohmann.hpp"
#include "w5_typed_objects_c.hpp"
#include "workloads.hpp"

namespace mpk_bench {
namespace w5 {

using checks::bytes_view;
using typed_objects::beer;

// --- the C++ types (beer_map, beer_array: bench/data/w5_beer_types.hpp) -------------------

template <class B>
B convert(const beer& b) {
  return {b.brand, b.alcohol, b.brewery, b.sort};
}

template <class B>
constexpr bool is_beer = std::is_same_v<B, beer_map> || std::is_same_v<B, beer_array>;

/// The plain type msgpack-c reads into and writes from (bench/data/w5_typed_objects.hpp).
template <class T>
struct plain_of {
  using type = T;
};
template <class B>
requires is_beer<B>
struct plain_of<B> {
  using type = beer;
};
template <class B>
requires is_beer<B>
struct plain_of<std::vector<B>> {
  using type = std::vector<beer>;
};
template <class T>
using plain_t = typename plain_of<T>::type;

template <class T>
plain_t<T> to_plain(const T& v) {
  if constexpr (std::is_same_v<plain_t<T>, T>) {
    return v;
  } else if constexpr (is_beer<T>) {
    return beer{v.brand, v.alcohol, v.brewery, v.sort};
  } else {
    plain_t<T> out;
    for (const auto& b : v)
      out.push_back(to_plain(b));
    return out;
  }
}

// nlohmann::json: map mode as a JSON object, array mode as a JSON array.
void to_json(nlohmann::json& j, const beer_map& b) {
  j = nlohmann::json{
      {"brand", b.brand}, {"alcohol", b.alcohol}, {"brewery", b.brewery}, {"sort", b.sort}};
}
void from_json(const nlohmann::json& j, beer_map& b) {
  j.at("brand").get_to(b.brand);
  j.at("alcohol").get_to(b.alcohol);
  j.at("brewery").get_to(b.brewery);
  j.at("sort").get_to(b.sort);
}
void to_json(nlohmann::json& j, const beer_array& b) {
  j = nlohmann::json::array({b.brand, b.alcohol, b.brewery, b.sort});
}
void from_json(const nlohmann::json& j, beer_array& b) {
  j.at(0).get_to(b.brand);
  j.at(1).get_to(b.alcohol);
  j.at(2).get_to(b.brewery);
  j.at(3).get_to(b.sort);
}

// --- mpk -------------------------------------------------------------------------------

template <class T>
std::size_t mpk_serialize(const T& v, mpk::buffer& out) {
  out.clear();
  mpk::writer w(out);
  return mpk::pack(w, v) ? out.size() : 0;
}

template <class T>
T mpk_deserialize(bytes_view in) {
  auto r = mpk::unpack<T>(in);
  return r ? std::move(*r) : T{};
}

std::size_t mpk_skip(bytes_view in) {
  mpk::reader r(in);
  r.skip();
  return r.ok() ? r.position() : 0;
}

/// The four keys of a beer, each encoded once (fixstr header and text) before timing.
struct encoded_keys {
  std::string brand, alcohol, brewery, sort;
};

std::string encode_key(std::string_view k) {
  return std::string(1, static_cast<char>(0xa0 | k.size())) + std::string(k);
}

encoded_keys make_keys() {
  return {encode_key("brand"), encode_key("alcohol"), encode_key("brewery"), encode_key("sort")};
}

/// Map mode by hand with pre-encoded keys (writer.write_raw of the key bytes).
void mpk_write_beer_prekeys(mpk::writer<mpk::buffer>& w, const beer_map& b, const encoded_keys& k) {
  w.begin_map(4);
  w.write_raw(mpk::as_bytes(k.brand));
  w.write(std::string_view(b.brand));
  w.write_raw(mpk::as_bytes(k.alcohol));
  w.write(b.alcohol);
  w.write_raw(mpk::as_bytes(k.brewery));
  w.write(std::string_view(b.brewery));
  w.write_raw(mpk::as_bytes(k.sort));
  w.begin_array(b.sort.size());
  for (const std::string& s : b.sort)
    w.write(std::string_view(s));
}

std::size_t mpk_serialize_prekeys(const beer_map& b, const encoded_keys& k, mpk::buffer& out) {
  out.clear();
  mpk::writer w(out);
  mpk_write_beer_prekeys(w, b, k);
  return w.ok() ? out.size() : 0;
}

std::size_t mpk_serialize_prekeys(const std::vector<beer_map>& v, const encoded_keys& k,
                                  mpk::buffer& out) {
  out.clear();
  mpk::writer w(out);
  w.begin_array(v.size());
  for (const beer_map& b : v)
    mpk_write_beer_prekeys(w, b, k);
  return w.ok() ? out.size() : 0;
}

// --- msgpack-cxx -----------------------------------------------------------------------

template <class T>
std::size_t cxx_serialize(const T& v, msgpack::sbuffer& out) {
  out.clear();
  msgpack::pack(out, v);
  return out.size();
}

/// The common way: msgpack::unpack into an object_handle (a zone; strings copied into it),
/// then as<T>(). Errors are exceptions.
template <class T>
T cxx_deserialize(bytes_view in) {
  try {
    msgpack::object_handle oh =
        msgpack::unpack(reinterpret_cast<const char*>(in.data()), in.size());
    return oh.get().as<T>();
  } catch (const std::exception&) {
    return T{};
  }
}

std::size_t cxx_skip(bytes_view in) {
  std::size_t off = 0;
  msgpack::null_visitor v;
  return msgpack::parse(reinterpret_cast<const char*>(in.data()), in.size(), off, v) ? off : 0;
}

void cxx_write_beer_prekeys(msgpack::packer<msgpack::sbuffer>& pk, msgpack::sbuffer& out,
                            const beer_map& b, const encoded_keys& k) {
  pk.pack_map(4);
  out.write(k.brand.data(), k.brand.size());
  pk.pack(b.brand);
  out.write(k.alcohol.data(), k.alcohol.size());
  pk.pack(b.alcohol);
  out.write(k.brewery.data(), k.brewery.size());
  pk.pack(b.brewery);
  out.write(k.sort.data(), k.sort.size());
  pk.pack(b.sort);
}

std::size_t cxx_serialize_prekeys(const beer_map& b, const encoded_keys& k, msgpack::sbuffer& out) {
  out.clear();
  msgpack::packer<msgpack::sbuffer> pk(out);
  cxx_write_beer_prekeys(pk, out, b, k);
  return out.size();
}

std::size_t cxx_serialize_prekeys(const std::vector<beer_map>& v, const encoded_keys& k,
                                  msgpack::sbuffer& out) {
  out.clear();
  msgpack::packer<msgpack::sbuffer> pk(out);
  pk.pack_array(static_cast<std::uint32_t>(v.size()));
  for (const beer_map& b : v)
    cxx_write_beer_prekeys(pk, out, b, k);
  return out.size();
}

// --- nlohmann::json --------------------------------------------------------------------

namespace nl = peers::nlohmann_msgpack;

/// The usual way: the object converted to a json tree (to_json), then json::to_msgpack.
template <class T>
std::size_t nl_serialize(const T& v, std::vector<std::uint8_t>& out) {
  nl::write(nlohmann::json(v), out);
  return out.size();
}

/// json::from_msgpack into a json tree, then get<T>() (from_json).
template <class T>
T nl_deserialize(bytes_view in) {
  nlohmann::json j;
  if (!nl::read(in, j)) return T{};
  try {
    return j.get<T>();
  } catch (const std::exception&) {
    return T{};
  }
}

// --- JSON: RapidJSON (write and parse), simdjson (parse) --------------------------------

using rj_writer = rapidjson::Writer<rapidjson::StringBuffer>;

void rj_write(rj_writer& w, std::int64_t v) {
  w.Int64(v);
}
void rj_write(rj_writer& w, double v) {
  w.Double(v);
}
void rj_write(rj_writer& w, const std::string& s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}
template <class T>
void rj_write(rj_writer& w, const std::vector<T>& v) {
  w.StartArray();
  for (const T& x : v)
    rj_write(w, x);
  w.EndArray();
}
void rj_write(rj_writer& w, const beer_map& b) {
  w.StartObject();
  w.Key("brand");
  rj_write(w, b.brand);
  w.Key("alcohol");
  rj_write(w, b.alcohol);
  w.Key("brewery");
  rj_write(w, b.brewery);
  w.Key("sort");
  rj_write(w, b.sort);
  w.EndObject();
}
void rj_write(rj_writer& w, const beer_array& b) {
  w.StartArray();
  rj_write(w, b.brand);
  rj_write(w, b.alcohol);
  rj_write(w, b.brewery);
  rj_write(w, b.sort);
  w.EndArray();
}

template <class T>
std::size_t rj_serialize(const T& v, rapidjson::StringBuffer& out) {
  out.Clear();
  rj_writer w(out);
  rj_write(w, v);
  return out.GetSize();
}

bool rj_read(const rapidjson::Value& j, std::int64_t& v) {
  if (!j.IsInt64()) return false;
  v = j.GetInt64();
  return true;
}
bool rj_read(const rapidjson::Value& j, double& v) {
  if (!j.IsNumber()) return false;
  v = j.GetDouble();
  return true;
}
bool rj_read(const rapidjson::Value& j, std::string& v) {
  if (!j.IsString()) return false;
  v.assign(j.GetString(), j.GetStringLength());
  return true;
}
template <class T>
bool rj_read(const rapidjson::Value& j, std::vector<T>& v) {
  if (!j.IsArray()) return false;
  v.resize(j.Size());
  for (rapidjson::SizeType i = 0; i < j.Size(); ++i)
    if (!rj_read(j[i], v[i])) return false;
  return true;
}
bool rj_read(const rapidjson::Value& j, beer_map& b) {
  if (!j.IsObject()) return false;
  for (auto it = j.MemberBegin(); it != j.MemberEnd(); ++it) {
    const std::string_view k(it->name.GetString(), it->name.GetStringLength());
    bool ok = true;
    if (k == "brand")
      ok = rj_read(it->value, b.brand);
    else if (k == "alcohol")
      ok = rj_read(it->value, b.alcohol);
    else if (k == "brewery")
      ok = rj_read(it->value, b.brewery);
    else if (k == "sort")
      ok = rj_read(it->value, b.sort);
    if (!ok) return false;
  }
  return true;
}
bool rj_read(const rapidjson::Value& j, beer_array& b) {
  return j.IsArray() && j.Size() == 4 && rj_read(j[0], b.brand) && rj_read(j[1], b.alcohol) &&
         rj_read(j[2], b.brewery) && rj_read(j[3], b.sort);
}

/// rapidjson::Document::Parse (DOM; full-precision doubles), then the DOM into a T.
template <class T>
T rj_deserialize(const std::string& text) {
  rapidjson::Document d;
  d.Parse<rapidjson::kParseFullPrecisionFlag>(text.data(), text.size());
  T v{};
  if (d.HasParseError() || !rj_read(d, v)) return T{};
  return v;
}

// simdjson's DOM API: its On-Demand API is compiled for the build's target (baseline x86-64:
// simdjson's "fallback" kernel), while dom::parser picks the best kernel of the CPU at run time.
namespace sd = simdjson::dom;

bool sj_read(sd::element j, std::int64_t& v) {
  return j.get_int64().get(v) == simdjson::SUCCESS;
}
bool sj_read(sd::element j, double& v) {
  return j.get_double().get(v) == simdjson::SUCCESS;
}
bool sj_read(sd::element j, std::string& v) {
  std::string_view s;
  if (j.get_string().get(s) != simdjson::SUCCESS) return false;
  v.assign(s);
  return true;
}
template <class T>
bool sj_read(sd::element j, std::vector<T>& v) {
  sd::array a;
  if (j.get_array().get(a) != simdjson::SUCCESS) return false;
  v.resize(a.size());
  std::size_t i = 0;
  for (sd::element x : a)
    if (!sj_read(x, v[i++])) return false;
  return true;
}
bool sj_read(sd::element j, beer_map& b) {
  sd::object o;
  if (j.get_object().get(o) != simdjson::SUCCESS) return false;
  for (sd::key_value_pair kv : o) {
    bool ok = true;
    if (kv.key == "brand")
      ok = sj_read(kv.value, b.brand);
    else if (kv.key == "alcohol")
      ok = sj_read(kv.value, b.alcohol);
    else if (kv.key == "brewery")
      ok = sj_read(kv.value, b.brewery);
    else if (kv.key == "sort")
      ok = sj_read(kv.value, b.sort);
    if (!ok) return false;
  }
  return true;
}
bool sj_read(sd::element j, beer_array& b) {
  sd::array a;
  if (j.get_array().get(a) != simdjson::SUCCESS || a.size() != 4) return false;
  sd::element e[4];
  std::size_t i = 0;
  for (sd::element x : a)
    e[i++] = x;
  return sj_read(e[0], b.brand) && sj_read(e[1], b.alcohol) && sj_read(e[2], b.brewery) &&
         sj_read(e[3], b.sort);
}

/// simdjson's DOM parser (reused; the text padded once, before timing), then the DOM into a T.
template <class T>
T sj_deserialize(sd::parser& parser, const simdjson::padded_string& text) {
  sd::element root;
  T v{};
  if (parser.parse(text).get(root) != simdjson::SUCCESS || !sj_read(root, v)) return T{};
  return v;
}

/// The reflected twin of a map-mode object (beer_plain for beer_map), for the
/// "mpk-reflected" cells.
inline beer_plain to_reflected(const beer_map& b) {
  return {b.brand, b.alcohol, b.brewery, b.sort};
}
inline std::vector<beer_plain> to_reflected(const std::vector<beer_map>& v) {
  std::vector<beer_plain> out;
  for (const beer_map& b : v)
    out.push_back(to_reflected(b));
  return out;
}

// --- the cases -------------------------------------------------------------------------

/// One object of the workload and everything its cells need.
template <class T>
struct object_case {
  std::string name;  ///< int_array, double_array, beer_map, ... (mpk_gen's case names)
  T data;
  mpk::buffer ref;   ///< mpk's bytes: the input of every deserialize and skip cell
  std::string json;  ///< RapidJSON's text of the same object
  simdjson::padded_string json_padded;
  encoded_keys keys = make_keys();
  plain_t<T> plain;  ///< the data in the types msgpack-c reads into
};

std::string wrong(const char* what) {
  return std::string("wrong values: ") + what;
}

/// Verifies every implementation on one object, then registers its cells. False when an
/// implementation produced wrong values (the run stops).
template <class T>
bool add_object(workload_table& t, std::shared_ptr<object_case<T>> c, bool list_only) {
  using checks::byte_verdict;
  using checks::report;
  const std::string& name = c->name;
  const bytes_view ref = c->ref.bytes();
  const std::string ser = "serialize_" + name, des = "deserialize_" + name;
  const std::string skip = "skip_" + name, pre = "serialize_" + name + "_prekeys";
  constexpr bool map_mode = std::is_same_v<T, beer_map> || std::is_same_v<T, std::vector<beer_map>>;
  bool ok = true;

  // Serializers: bytes against mpk's; their bytes must decode (by mpk) to the data.
  auto check_encoding = [&](const std::string& who, bytes_view mine, std::string_view reason) {
    if (mpk_deserialize<T>(mine) != c->data) {
      ok = report(false, who + " serializes " + name, wrong("its bytes do not decode to the data"));
      return std::string();
    }
    std::string v = byte_verdict(ref, mine, who, reason);
    if (!list_only) report(true, who + " serializes " + name, v);
    return v;
  };
  auto check_decoded = [&](const std::string& who, const T& got, const char* from) {
    const bool same = got == c->data;
    if (!list_only || !same) ok &= report(same, who + " deserializes " + name + " from " + from);
    return std::string("same values from ") + from;
  };

  mpk::buffer mb;
  const std::size_t mpk_size = mpk_serialize(c->data, mb);
  if (mpk_size == 0 || checks::byte_verdict(ref, mb.bytes(), "mpk::pack").rfind("same", 0) != 0) {
    return report(false, "mpk::pack of " + name + " writes mpk_gen's reference bytes",
                  checks::byte_verdict(ref, mb.bytes(), "mpk::pack"));
  }
  msgpack::sbuffer cb;
  cxx_serialize(c->data, cb);
  const std::string cxx_verdict =
      check_encoding("msgpack-cxx", checks::view(cb.data(), cb.size()),
                     "msgpack-cxx writes a double holding an integer as an integer");
  std::vector<std::uint8_t> nb;
  nl_serialize(c->data, nb);
  const std::string nl_verdict = check_encoding(
      "nlohmann", mpk::as_bytes(nb),
      map_mode ? "nlohmann::json keeps object keys sorted (std::map); it writes a double that "
                 "float32 holds exactly as float32"
               : "nlohmann writes a double that float32 holds exactly as float32");
  msgpack_c_w5::writer c_writer;
  const std::size_t c_size = c_writer.write(c->plain, map_mode);
  const std::string c_verdict = check_encoding("msgpack-c", c_writer.bytes(), "");

  const std::string mpk_des = check_decoded("mpk", mpk_deserialize<T>(ref), "mpk's bytes");
  const std::string cxx_des = check_decoded("msgpack-cxx", cxx_deserialize<T>(ref), "mpk's bytes");
  const std::string nl_des = check_decoded("nlohmann", nl_deserialize<T>(ref), "mpk's bytes");
  msgpack_c_w5::reader c_reader;
  plain_t<T> c_got;
  const bool c_read = c_reader.read(ref, c_got, map_mode);
  if (!c_read || c_got != c->plain)
    ok = report(false, "msgpack-c deserializes " + name + " from mpk's bytes",
                wrong("other values"));
  const std::string c_des = "same values from mpk's bytes";
  sd::parser parser;
  const std::string rj_des =
      check_decoded("RapidJSON", rj_deserialize<T>(c->json), "the JSON text");
  const std::string sj_des =
      check_decoded("simdjson", sj_deserialize<T>(parser, c->json_padded), "the JSON text");
  const bool skips = mpk_skip(ref) == ref.size() && cxx_skip(ref) == ref.size();
  if (!list_only || !skips) ok &= report(skips, "mpk and msgpack-cxx skip " + name + " to its end");
  if (!ok) return false;

  const std::string json_ser =
      "same values (JSON text of " + std::to_string(c->json.size()) +
      " bytes, no MessagePack bytes to compare): RapidJSON and simdjson parse it back to the data";

  // serialize
  auto bytes_check = [](std::size_t want) {
    return [want](std::size_t got) {
      return got == want ? std::string()
                         : "timed loop wrote " + std::to_string(got) + " bytes, not " +
                               std::to_string(want);
    };
  };
  checks::add_op(
      t, ser, "mpk", "reference bytes (mpk_gen's); " + mpk_des,
      map_mode ? "mpk::pack(writer, obj) of an MPK_MAP struct (keys pre-encoded at compile time) "
                 "into a reused mpk::buffer"
               : "mpk::pack(writer, obj) into a reused mpk::buffer",
      [c, out = std::make_shared<mpk::buffer>(mpk_size)] { return mpk_serialize(c->data, *out); },
      bytes_check(mpk_size));
  checks::add_op(
      t, ser, "msgpack-cxx", cxx_verdict,
      map_mode ? "msgpack::pack(sbuffer, obj) of a MSGPACK_DEFINE_MAP struct, reused sbuffer"
               : "msgpack::pack(sbuffer, obj) (MSGPACK_DEFINE_ARRAY for structs), reused sbuffer",
      [c, out = std::make_shared<msgpack::sbuffer>()] { return cxx_serialize(c->data, *out); },
      bytes_check(cb.size()));
  checks::add_op(
      t, ser, "nlohmann", nl_verdict,
      "nlohmann::json(obj) (to_json), then json::to_msgpack into a reused byte vector",
      [c, out = std::make_shared<std::vector<std::uint8_t>>()] {
        return nl_serialize(c->data, *out);
      },
      bytes_check(nb.size()));
  checks::add_op(
      t, ser, "msgpack-c", c_verdict,
      "msgpack_pack_* by hand (no struct mapping in C) into a reused msgpack_sbuffer",
      [c, w = std::make_shared<msgpack_c_w5::writer>()] { return w->write(c->plain, map_mode); },
      bytes_check(c_size));
  checks::add_op(
      t, ser, "RapidJSON", json_ser,
      "rapidjson::Writer<StringBuffer> by hand (SAX), reused StringBuffer; simdjson: n/a (no "
      "writer)",
      [c, out = std::make_shared<rapidjson::StringBuffer>()] {
        return rj_serialize(c->data, *out);
      },
      bytes_check(c->json.size()));

  // map mode with pre-encoded keys
  if constexpr (map_mode) {
    mpk::buffer pb;
    msgpack::sbuffer pcb;
    mpk_serialize_prekeys(c->data, c->keys, pb);
    cxx_serialize_prekeys(c->data, c->keys, pcb);
    const std::string pv = check_encoding("mpk (pre-encoded keys)", pb.bytes(), "");
    const std::string pcv =
        check_encoding("msgpack-cxx (pre-encoded keys)", checks::view(pcb.data(), pcb.size()),
                       "msgpack-cxx writes a double holding an integer as an integer");
    const std::size_t pc_size = c_writer.write_prekeys(c->plain);
    const std::string pcc = check_encoding("msgpack-c (pre-encoded keys)", c_writer.bytes(), "");
    if (!ok) return false;
    checks::add_op(
        t, pre, "mpk", pv,
        "by hand: writer.begin_map, write_raw(pre-encoded key), write(value)...; nlohmann: n/a "
        "(no raw output)",
        [c, out = std::make_shared<mpk::buffer>(mpk_size)] {
          return mpk_serialize_prekeys(c->data, c->keys, *out);
        },
        bytes_check(mpk_size));
    checks::add_op(
        t, pre, "msgpack-cxx", pcv,
        "by hand: packer.pack_map, sbuffer.write(pre-encoded key), packer.pack(value)...",
        [c, out = std::make_shared<msgpack::sbuffer>()] {
          return cxx_serialize_prekeys(c->data, c->keys, *out);
        },
        bytes_check(pcb.size()));
    checks::add_op(
        t, pre, "msgpack-c", pcc,
        "by hand: msgpack_pack_map, msgpack_sbuffer_write(pre-encoded key), "
        "msgpack_pack_*(value)...",
        [c, w = std::make_shared<msgpack_c_w5::writer>()] { return w->write_prekeys(c->plain); },
        bytes_check(pc_size));
  }

  // the same objects as plain aggregates, reflected (map mode only): beside MPK_MAP's cells
  if constexpr (map_mode) {
    using R = decltype(to_reflected(c->data));
    auto plain = std::make_shared<const R>(to_reflected(c->data));
    mpk::buffer rb;
    const std::size_t r_size = mpk_serialize(*plain, rb);
    const bool same_bytes =
        r_size != 0 && checks::byte_verdict(ref, rb.bytes(), "mpk-reflected").rfind("same", 0) == 0;
    const bool same_values = mpk_deserialize<R>(ref) == *plain;
    if (!list_only || !same_bytes || !same_values)
      ok &= report(same_bytes && same_values,
                   "mpk-reflected writes mpk's bytes of " + name + " and reads them back");
    if (!ok) return false;
    checks::add_op(
        t, ser, "mpk-reflected", "reference bytes (mpk_gen's); same values from mpk's bytes",
        "mpk::pack(writer, obj) of a plain aggregate (no MPK_MAP: keys from reflection, "
        "pre-encoded at compile time) into a reused mpk::buffer",
        [plain, out = std::make_shared<mpk::buffer>(r_size)] {
          return mpk_serialize(*plain, *out);
        },
        bytes_check(r_size));
    checks::add_op(
        t, des, "mpk-reflected", "same values from mpk's bytes",
        "mpk::unpack<T>(bytes) of a plain aggregate (no MPK_MAP): a new object per operation",
        [c] { return mpk_deserialize<R>(c->ref.bytes()); },
        [plain](const R& got) {
          return got == *plain ? std::string() : std::string("timed loop decoded other values");
        });
  }

  // deserialize
  auto equal_check = [c](const T& got) {
    return got == c->data ? std::string() : std::string("timed loop decoded other values");
  };
  checks::add_op(
      t, des, "mpk", mpk_des,
      "mpk::unpack<T>(bytes): a new object per operation; std::string fields checked for UTF-8",
      [c] { return mpk_deserialize<T>(c->ref.bytes()); }, equal_check);
  // deserialize into the same object every operation (its strings' and vectors' capacity
  // reused): mpk::unpack(reader, obj) and msgpack-cxx's convert(obj), which also assigns
  // into the elements it has
  const std::string reuse = "deserialize_reuse_" + name;
  auto same_check = [c](const T* got) {
    return got != nullptr && *got == c->data ? std::string()
                                             : std::string("timed loop decoded other values");
  };
  checks::add_op(
      t, reuse, "mpk", mpk_des,
      "mpk::unpack(reader, obj) into one object kept across operations (its strings and "
      "vectors reused); std::string fields checked for UTF-8",
      [c, out = std::make_shared<T>()] {
        mpk::reader r(c->ref.bytes());
        return mpk::unpack(r, *out) ? out.get() : nullptr;
      },
      same_check);
  checks::add_op(
      t, reuse, "msgpack-cxx", cxx_des,
      "msgpack::unpack(data, size) into an object_handle (one zone, strings copied into it), "
      "then .get().convert(obj) into one object kept across operations",
      [c, out = std::make_shared<T>()] {
        try {
          msgpack::object_handle oh = msgpack::unpack(
              reinterpret_cast<const char*>(c->ref.bytes().data()), c->ref.bytes().size());
          oh.get().convert(*out);
        } catch (const std::exception&) {
          *out = T{};
        }
        return out.get();
      },
      same_check);
  checks::add_op(
      t, des, "msgpack-cxx", cxx_des,
      "msgpack::unpack(data, size) into an object_handle (one zone, strings copied into it), "
      "then .get().as<T>()",
      [c] { return cxx_deserialize<T>(c->ref.bytes()); }, equal_check);
  checks::add_op(
      t, des, "nlohmann", nl_des, "json::from_msgpack into a json tree, then get<T>() (from_json)",
      [c] { return nl_deserialize<T>(c->ref.bytes()); }, equal_check);
  checks::add_op(
      t, des, "msgpack-c", c_des,
      "msgpack_unpack into a msgpack_object (a reused zone; strings point into the "
      "input), then the object into T by hand",
      [c, r = std::make_shared<msgpack_c_w5::reader>()] {
        plain_t<T> out;
        r->read(c->ref.bytes(), out, map_mode);
        return out;
      },
      [c](const plain_t<T>& got) {
        return got == c->plain ? std::string() : std::string("timed loop decoded other values");
      });
  checks::add_op(
      t, des, "RapidJSON", rj_des,
      "rapidjson::Document::Parse<kParseFullPrecisionFlag> of the JSON text (DOM), then into T",
      [c] { return rj_deserialize<T>(c->json); }, equal_check);
  checks::add_op(
      t, des, "simdjson", sj_des,
      "simdjson::dom::parser::parse(padded text) (parser reused; the best kernel for the CPU, "
      "chosen at run time), then the DOM into T",
      [c, p = std::make_shared<sd::parser>()] { return sj_deserialize<T>(*p, c->json_padded); },
      equal_check);

  // skip
  auto end_check = [c](std::size_t got) {
    return got == c->ref.size() ? std::string()
                                : "timed loop skipped to " + std::to_string(got) +
                                      " instead of the end, " + std::to_string(c->ref.size());
  };
  checks::add_op(
      t, skip, "mpk", "reaches the exact end of mpk's bytes", "reader.skip()",
      [c] { return mpk_skip(c->ref.bytes()); }, end_check);
  checks::add_op(
      t, skip, "msgpack-cxx", "reaches the exact end of mpk's bytes",
      "msgpack::parse(data, size, offset, null_visitor); msgpack-c and nlohmann: n/a "
      "(no skip)",
      [c] { return cxx_skip(c->ref.bytes()); }, end_check);
  return true;
}

template <class T>
std::shared_ptr<object_case<T>> make_case(std::string_view name, T data) {
  auto c = std::make_shared<object_case<T>>();
  c->name = std::string(name);
  c->data = std::move(data);
  mpk::writer w(c->ref);
  typed_objects::write_case(w, name);
  rapidjson::StringBuffer sb;
  rj_serialize(c->data, sb);
  c->json.assign(sb.GetString(), sb.GetSize());
  c->json_padded = simdjson::padded_string(c->json);
  c->plain = to_plain(c->data);
  return c;
}

template <class B>
std::vector<B> convert_list(const std::vector<beer>& list) {
  std::vector<B> out;
  for (const beer& b : list)
    out.push_back(convert<B>(b));
  return out;
}

}  // namespace w5

bool register_typed_objects(suite& s, const run_config& cfg) {
  using namespace w5;
  const bool say = !cfg.list_only;
  if (say) std::printf("W5 typed_objects\nverification (docs/workloads.md rule 2):\n");

  workload_table& t =
      s.add_workload("w5", "typed_objects", "W5 typed_objects — one object per operation", "op");
  t.add_fact(
      "int_array: 100 integers; double_array: 100 doubles; beer: a struct of 2 strings, "
      "a double and a list of 5 strings; beer_list: 10 beers — in map mode (keys are "
      "field names) and array mode (positional)");
  t.add_fact(
      "serialize: into a buffer reused across operations; deserialize: a new C++ object "
      "per operation (its strings and vectors allocated), from mpk's bytes (JSON "
      "columns: from RapidJSON's text of the same object); deserialize_reuse: into one "
      "object kept across operations (its capacity reused); skip: step over the object");
  t.add_fact(
      "JSON baselines have no binary and no MessagePack bytes: their verification "
      "compares values only");

  const std::string cxx_version = std::to_string(MSGPACK_VERSION_MAJOR) + "." +
                                  std::to_string(MSGPACK_VERSION_MINOR) + "." +
                                  std::to_string(MSGPACK_VERSION_REVISION);
  t.add_implementation({"mpk", "mpk " MPK_BENCH_MPK_VERSION,
                        "this project: MPK_MAP / MPK_ARRAY structs, mpk::pack and mpk::unpack"});
  t.add_implementation({"mpk-reflected", "mpk " MPK_BENCH_MPK_VERSION,
                        "this project: plain aggregates without MPK_MAP (compile-time "
                        "reflection), mpk::pack and mpk::unpack; map-mode cases only"});
  t.add_implementation({"msgpack-cxx", "msgpack-cxx " + cxx_version,
                        "Debian libmsgpack-cxx-dev, MSGPACK_DEFINE_MAP / MSGPACK_DEFINE_ARRAY, "
                        "msgpack::pack, msgpack::unpack + as<T>()"});
  t.add_implementation({"msgpack-c", msgpack_c_w5::version(),
                        "Debian libmsgpack-dev (C): msgpack_pack_* and msgpack_unpack by hand"});
  t.add_implementation({"nlohmann", peers::nlohmann_msgpack::version(),
                        "Debian nlohmann-json3-dev: to_json / from_json, json::to_msgpack / "
                        "json::from_msgpack"});
  t.add_implementation({"RapidJSON",
                        "RapidJSON " + std::to_string(RAPIDJSON_MAJOR_VERSION) + "." +
                            std::to_string(RAPIDJSON_MINOR_VERSION) + "." +
                            std::to_string(RAPIDJSON_PATCH_VERSION) + " (JSON)",
                        "Debian rapidjson-dev: Writer<StringBuffer>, Document::Parse (DOM)"});
  t.add_implementation({"simdjson",
                        "simdjson " + std::to_string(simdjson::SIMDJSON_VERSION_MAJOR) + "." +
                            std::to_string(simdjson::SIMDJSON_VERSION_MINOR) + "." +
                            std::to_string(simdjson::SIMDJSON_VERSION_REVISION) + " (JSON)",
                        "Debian libsimdjson-dev: dom::parser (no writer)"});

  for (std::string_view n : typed_objects::case_names) {
    const std::string name(n);
    t.add_case(
        {"serialize_" + name, "serialize " + name, "encode the object into a reused buffer"});
    if (n == "beer_map" || n == "beer_list_map")
      t.add_case({"serialize_" + name + "_prekeys", "serialize " + name + ", pre-encoded keys",
                  "map mode written by hand: each key's bytes encoded once, copied raw"});
    t.add_case({"deserialize_" + name, "deserialize " + name,
                "decode into a new C++ object (strings and vectors allocated)"});
    t.add_case({"deserialize_reuse_" + name, "deserialize " + name + " into a kept object",
                "decode into one object kept across operations (its strings' and vectors' "
                "capacity reused)"});
    t.add_case({"skip_" + name, "skip " + name, "step over the object without decoding it"});
  }

  bool ok = true;
  ok &= add_object(t, make_case("int_array", typed_objects::int_array()), cfg.list_only);
  ok &= add_object(t, make_case("double_array", typed_objects::double_array()), cfg.list_only);
  ok &= add_object(t, make_case("beer_map", convert<beer_map>(typed_objects::the_beer())),
                   cfg.list_only);
  ok &= add_object(t, make_case("beer_array", convert<beer_array>(typed_objects::the_beer())),
                   cfg.list_only);
  ok &=
      add_object(t, make_case("beer_list_map", convert_list<beer_map>(typed_objects::beer_list())),
                 cfg.list_only);
  ok &= add_object(
      t, make_case("beer_list_array", convert_list<beer_array>(typed_objects::beer_list())),
      cfg.list_only);
  if (!ok) std::printf("W5 verification FAILED: not timing anything.\n");
  return ok;
}

}  // namespace mpk_bench
