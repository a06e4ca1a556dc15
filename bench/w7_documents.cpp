// bench/w7_documents.cpp - workload W7 documents (the msgpackr / notepack / msgpack-lite
// workloads): whole documents of unknown shape encoded and decoded through each library's
// dynamic type, a stream of 1,000,000 small messages decoded into typed objects, and lists of
// same-shaped objects as msgpackr records versus plain maps.
//
// Before timing: every encoder's bytes are compared with mpk's (mpk_gen's reference); every
// decoder reads mpk's bytes and its result is compared with the data (re-encoded to the same
// bytes where the library writes canonical bytes; nlohmann's json tree value by value).
#include <mpk/codec.hpp>
#include <mpk/ext/records.hpp>
#include <mpk/stream.hpp>
#include <mpk/value.hpp>

#include <msgpack.hpp>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
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
#include "data/w7_documents.hpp"
#include "support/peers/nlohmann.hpp"
#include "w7_documents_c.hpp"
#include "workloads.hpp"

namespace mpk_bench {
namespace w7 {

using checks::bytes_view;
using checks::report;
namespace nl = peers::nlohmann_msgpack;

std::string cxx_version() {
  return std::to_string(MSGPACK_VERSION_MAJOR) + "." + std::to_string(MSGPACK_VERSION_MINOR) + "." +
         std::to_string(MSGPACK_VERSION_REVISION);
}

bytes_view view(const msgpack::sbuffer& b) {
  return checks::view(b.data(), b.size());
}

// --- documents: the dynamic types --------------------------------------------------------

/// Equal values: a document's value and a json tree (nlohmann reads float32 as a double, keeps
/// object keys sorted, and tells unsigned from signed integers).
bool same_value(mpk::element v, const nlohmann::json& j) {
  switch (v.type()) {
    case mpk::type::nil:
      return j.is_null();
    case mpk::type::boolean:
      return j.is_boolean() && j.get<bool>() == v.as<bool>().value_or(!j.get<bool>());
    case mpk::type::uint:
      return j.is_number_unsigned() &&
             j.get<std::uint64_t>() == v.as<std::uint64_t>().value_or(~j.get<std::uint64_t>());
    case mpk::type::sint:
      return j.is_number_integer() && !j.is_number_unsigned() &&
             j.get<std::int64_t>() == v.as<std::int64_t>().value_or(~j.get<std::int64_t>());
    case mpk::type::float32:
    case mpk::type::float64:
      return j.is_number_float() && j.get<double>() == v.as<double>().value_or(-j.get<double>());
    case mpk::type::str:
      return j.is_string() &&
             j.get_ref<const std::string&>() == v.as<std::string_view>().value_or("\x01");
    case mpk::type::bin: {
      if (!j.is_binary()) return false;
      const auto b = v.as<std::span<const std::byte>>().value_or(std::span<const std::byte>());
      const auto& jb = j.get_binary();
      return jb.size() == b.size() &&
             (b.empty() || std::memcmp(jb.data(), b.data(), b.size()) == 0);
    }
    case mpk::type::array: {
      if (!j.is_array() || j.size() != v.size()) return false;
      std::size_t i = 0;
      for (mpk::element e : v.elements())
        if (!same_value(e, j[i++])) return false;
      return true;
    }
    case mpk::type::map: {
      if (!j.is_object() || j.size() != v.size()) return false;
      for (auto [key, val] : v.entries()) {
        const auto k = key.as<std::string_view>();
        if (!k) return false;
        const auto it = j.find(std::string(*k));
        if (it == j.end() || !same_value(val, *it)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

/// One document and what its cells need.
struct doc_case {
  std::string name;
  mpk::buffer ref;                            ///< mpk_gen's bytes: the input of every decode cell
  mpk::value value;                           ///< mpk's tree of the document (encode input)
  msgpack::object_handle cxx;                 ///< msgpack-cxx's tree (encode input)
  nlohmann::json json;                        ///< nlohmann's tree (encode input)
  std::unique_ptr<msgpack_c_w7::document> c;  ///< msgpack-c's tree (encode input)
};

std::size_t mpk_encode(const mpk::value& v, mpk::buffer& out) {
  out.clear();
  mpk::writer w(out);
  mpk::write(w, v);
  return w.ok() ? out.size() : 0;
}

/// Decodes into a document reused across operations (its arena grows once): zero-copy.
std::size_t mpk_decode(mpk::document& doc, bytes_view in) {
  return doc.parse_into(in) ? doc.root().size() : 0;
}

/// Decodes into a new document (its arena allocated and freed per operation): zero-copy.
std::size_t mpk_decode_new(bytes_view in) {
  const auto doc = mpk::document::parse(in);
  return doc ? doc->root().size() : 0;
}

/// Decodes into a new owning mpk::value: strings and binaries copied.
std::size_t mpk_decode_value(bytes_view in) {
  mpk::reader r(in);
  auto v = mpk::read_value(r);
  return v && r.at_end() ? v->size() : 0;
}

std::size_t cxx_encode(const msgpack::object& o, msgpack::sbuffer& out) {
  out.clear();
  msgpack::pack(out, o);
  return out.size();
}

std::size_t cxx_decode(bytes_view in) {
  try {
    msgpack::object_handle oh =
        msgpack::unpack(reinterpret_cast<const char*>(in.data()), in.size());
    const msgpack::object& o = oh.get();
    return o.type == msgpack::type::MAP ? o.via.map.size : 0;
  } catch (const std::exception&) {
    return 0;
  }
}

std::size_t nl_encode(const nlohmann::json& j, std::vector<std::uint8_t>& out) {
  nl::write(j, out);
  return out.size();
}

std::size_t nl_decode(bytes_view in) {
  nlohmann::json j;
  return nl::read(in, j) ? j.size() : 0;
}

bool add_document(workload_table& t, std::string_view name, bool list_only) {
  auto c = std::make_shared<doc_case>();
  c->name = std::string(name);
  mpk::writer rw(c->ref);
  documents::write_case(rw, name);
  const bytes_view ref = c->ref.bytes();
  const std::size_t items = [&] {
    auto d = mpk::document::parse(ref);
    return d ? d->root().size() : 0;
  }();
  bool ok = true;
  auto fail = [&](const std::string& what, const std::string& why) {
    ok = report(false, what + " (" + c->name + ")", "wrong values: " + why);
    return std::string();
  };

  // The trees, each decoded from mpk's bytes by its own library (checked right below).
  mpk::reader r(ref);
  auto v = mpk::read_value(r);
  if (!v) return report(false, "mpk::read_value of " + c->name);
  c->value = std::move(*v);
  try {
    c->cxx = msgpack::unpack(reinterpret_cast<const char*>(ref.data()), ref.size());
  } catch (const std::exception& e) {
    return report(false, "msgpack-cxx unpacks " + c->name, e.what());
  }
  if (!nl::read(ref, c->json)) return report(false, "nlohmann reads " + c->name);
  c->c = std::make_unique<msgpack_c_w7::document>(ref);
  if (!c->c->ok()) return report(false, "msgpack-c unpacks " + c->name);

  // Decoders: each tree equals the data.
  auto doc = mpk::document::parse(ref);
  mpk::buffer back;
  const std::string same = "same values from mpk's bytes";
  std::string mpk_dec = same, mpk_val = same, cxx_dec = same, nl_dec = same, c_dec = same;
  if (!doc || mpk_encode(mpk::value(doc->root()), back) == 0 ||
      checks::byte_verdict(ref, back.bytes(), "mpk").rfind("same", 0) != 0)
    mpk_dec = fail("mpk::document", "re-encoded, it does not give the reference bytes");
  if (mpk_encode(c->value, back) == 0 ||
      checks::byte_verdict(ref, back.bytes(), "mpk").rfind("same", 0) != 0)
    mpk_val = fail("mpk::value", "re-encoded, it does not give the reference bytes");
  msgpack::sbuffer cb;
  cxx_encode(c->cxx.get(), cb);
  if (checks::byte_verdict(ref, view(cb), "msgpack-cxx").rfind("same", 0) != 0)
    cxx_dec = fail("msgpack-cxx", "its object re-encoded is not mpk's bytes: " +
                                      checks::byte_verdict(ref, view(cb), "msgpack-cxx"));
  if (!same_value(doc->root(), c->json)) nl_dec = fail("nlohmann", "its json tree differs");
  const bytes_view c_back = c->c->decode_and_encode(ref);
  if (checks::byte_verdict(ref, c_back, "msgpack-c").rfind("same", 0) != 0)
    c_dec = fail("msgpack-c", "its object re-encoded is not mpk's bytes");

  // Encoders: bytes against mpk's; a difference must still decode to the data.
  std::string cxx_enc = checks::byte_verdict(ref, view(cb), "msgpack-cxx");
  std::vector<std::uint8_t> nb;
  nl_encode(c->json, nb);
  nlohmann::json nl_back;
  std::string nl_enc = checks::byte_verdict(
      ref, mpk::as_bytes(nb), "nlohmann",
      "nlohmann::json keeps object keys sorted (std::map) and writes a double that float32 "
      "holds exactly as float32");
  if (!nl::read(mpk::as_bytes(nb), nl_back) || nl_back != c->json)
    nl_enc = fail("nlohmann", "its bytes do not read back to its tree");
  c->c->encode();
  const std::string c_enc = checks::byte_verdict(ref, c->c->encoded(), "msgpack-c");
  if (!list_only) {
    report(ok, "W7 " + c->name + ": mpk, msgpack-cxx, msgpack-c and nlohmann read mpk's " +
                   std::to_string(ref.size()) + " bytes to the data");
    report(true, "msgpack-cxx encodes " + c->name, cxx_enc);
    report(true, "msgpack-c encodes " + c->name, c_enc);
    report(true, "nlohmann encodes " + c->name, nl_enc);
  }
  if (!ok) return false;

  const std::string enc = "encode_" + c->name, dec = "decode_" + c->name;
  auto size_check = [](std::size_t want) {
    return [want](std::size_t got) {
      return got == want
                 ? std::string()
                 : "timed loop gave " + std::to_string(got) + ", not " + std::to_string(want);
    };
  };
  checks::add_op(
      t, enc, "mpk", "reference bytes (mpk_gen's); " + mpk_val,
      "mpk::write(writer, mpk::value) into a reused mpk::buffer",
      [c, out = std::make_shared<mpk::buffer>(c->ref.size())] {
        return mpk_encode(c->value, *out);
      },
      size_check(ref.size()));
  checks::add_op(
      t, enc, "msgpack-cxx", cxx_enc, "msgpack::pack(sbuffer, msgpack::object), reused sbuffer",
      [c, out = std::make_shared<msgpack::sbuffer>()] { return cxx_encode(c->cxx.get(), *out); },
      size_check(cb.size()));
  checks::add_op(
      t, enc, "msgpack-c", c_enc, "msgpack_pack_object into a reused msgpack_sbuffer",
      [c] { return c->c->encode(); }, size_check(c->c->encoded().size()));
  checks::add_op(
      t, enc, "nlohmann", nl_enc, "json::to_msgpack(json) into a reused byte vector",
      [c, out = std::make_shared<std::vector<std::uint8_t>>()] { return nl_encode(c->json, *out); },
      size_check(nb.size()));
  checks::add_op(
      t, dec, "mpk", mpk_dec + " (zero-copy)",
      "mpk::document::parse_into a reused document: one arena, strings and binaries are views "
      "into the input (zero-copy)",
      [c, d = std::make_shared<mpk::document>()] { return mpk_decode(*d, c->ref.bytes()); },
      size_check(items));
  checks::add_op(
      t, dec, "mpk-parse", mpk_dec + " (zero-copy)",
      "mpk::document::parse into a new document per operation: its arena allocated and freed "
      "each time, strings and binaries are views into the input (zero-copy)",
      [c] { return mpk_decode_new(c->ref.bytes()); }, size_check(items));
  checks::add_op(
      t, dec, "mpk-value", mpk_val,
      "mpk::read_value into a new owning mpk::value (strings and binaries copied)",
      [c] { return mpk_decode_value(c->ref.bytes()); }, size_check(items));
  checks::add_op(
      t, dec, "msgpack-cxx", cxx_dec,
      "msgpack::unpack into an object_handle (a new zone; strings and binaries copied into it)",
      [c] { return cxx_decode(c->ref.bytes()); }, size_check(items));
  checks::add_op(
      t, dec, "msgpack-c", c_dec + " (zero-copy)",
      "msgpack_unpack into a msgpack_object in a reused zone (strings and binaries point into "
      "the input: zero-copy)",
      [c] { return c->c->decode(c->ref.bytes()); }, size_check(items));
  checks::add_op(
      t, dec, "nlohmann", nl_dec, "json::from_msgpack into a new json tree (everything copied)",
      [c] { return nl_decode(c->ref.bytes()); }, size_check(items));
  return true;
}

// --- stream ------------------------------------------------------------------------------

/// ["tag", [[1440949922, {"message": "hi there"}]]] as typed objects (the Fluentd forward
/// shape). mpk's strings are views into the decoder's buffer (zero-copy).
struct stream_body {
  std::string_view message;
};
MPK_MAP(stream_body, message);
struct stream_entry {
  std::int64_t time = 0;
  stream_body record;
};
MPK_ARRAY(stream_entry, time, record);
struct stream_message {
  std::string_view tag;
  std::vector<stream_entry> entries;
};
MPK_ARRAY(stream_message, tag, entries);

/// The same for msgpack-cxx (std::string: "tag" and "hi there" fit the small-string buffer,
/// so they allocate nothing either).
struct cxx_body {
  std::string message;
  MSGPACK_DEFINE_MAP(message)
};
struct cxx_entry {
  std::int64_t time = 0;
  cxx_body record;
  MSGPACK_DEFINE_ARRAY(time, record)
};
struct cxx_message {
  std::string tag;
  std::vector<cxx_entry> entries;
  MSGPACK_DEFINE_ARRAY(tag, entries)
};

/// What a decoded message adds to the checksum of a pass; a message of other values adds
/// something else (its sizes and time differ).
template <class M>
std::uint64_t message_sum(const M& m) {
  std::uint64_t s = m.tag.size() * 1000003u + m.entries.size();
  for (const auto& e : m.entries)
    s += static_cast<std::uint64_t>(e.time) + e.record.message.size() * 7919u +
         (e.record.message == documents::stream_text ? 1u : 0u);
  return s + (m.tag == documents::stream_tag ? 2u : 0u);
}

constexpr std::size_t chunk_size = 64 * 1024;

struct stream_case {
  std::size_t messages = 0;
  mpk::buffer ref;  ///< the stream: `messages` top-level messages
  stream_message typed;
  cxx_message cxx_typed;
  std::uint64_t want_sum = 0;
};

bool append(void* context, std::span<const std::byte> bytes) {
  auto* out = static_cast<std::vector<std::byte>*>(context);
  out->insert(out->end(), bytes.begin(), bytes.end());
  return true;
}

/// stream_writer to a callback that appends to a memory buffer (reserved once).
std::size_t mpk_stream_encode(const stream_case& c, std::vector<std::byte>& out) {
  out.clear();
  mpk::stream_writer sw(&append, &out);
  for (std::size_t k = 0; k < c.messages; ++k)
    (void)sw.write(c.typed);  // errors are sticky: flush() reports them
  return sw.flush() ? out.size() : 0;
}

/// stream_decoder fed 64 KiB chunks; each message decoded into one reused typed object.
std::uint64_t mpk_stream_decode(mpk::stream_decoder& dec, bytes_view in) {
  dec.reset();
  stream_message m;
  std::uint64_t sum = 0;
  for (std::size_t at = 0; at < in.size(); at += chunk_size) {
    if (!dec.feed(in.subspan(at, std::min(chunk_size, in.size() - at)))) return 0;
    for (;;) {
      mpk::result<bool> got = dec.next(m);
      if (!got) return 0;
      if (!*got) break;
      sum += message_sum(m);
    }
  }
  return dec.finish() ? sum : 0;
}

/// The same destination as mpk's: msgpack::pack into an sbuffer used as the staging buffer,
/// handed to the same callback whenever it holds 64 KiB or more, and at the end (what
/// mpk::stream_writer does with its staging buffer).
std::size_t cxx_stream_encode(const stream_case& c, msgpack::sbuffer& staging,
                              std::vector<std::byte>& out) {
  out.clear();
  staging.clear();
  const auto hand_over = [&] {
    append(&out, {reinterpret_cast<const std::byte*>(staging.data()), staging.size()});
    staging.clear();
  };
  for (std::size_t k = 0; k < c.messages; ++k) {
    msgpack::pack(staging, c.cxx_typed);
    if (staging.size() >= chunk_size) hand_over();
  }
  if (staging.size() != 0) hand_over();
  return out.size();
}

/// msgpack::unpacker fed 64 KiB chunks (reserve_buffer, copy, buffer_consumed); each message
/// through next() into an object_handle, then converted into one reused typed object.
std::uint64_t cxx_stream_decode(bytes_view in) {
  msgpack::unpacker unp;
  msgpack::object_handle oh;
  cxx_message m;
  std::uint64_t sum = 0;
  try {
    for (std::size_t at = 0; at < in.size(); at += chunk_size) {
      const std::size_t n = std::min(chunk_size, in.size() - at);
      unp.reserve_buffer(n);
      std::memcpy(unp.buffer(), in.data() + at, n);
      unp.buffer_consumed(n);
      while (unp.next(oh)) {
        oh.get().convert(m);
        sum += message_sum(m);
      }
    }
  } catch (const std::exception&) {
    return 0;
  }
  return unp.nonparsed_size() == 0 ? sum : 0;
}

bool add_stream(workload_table& t, const run_config& cfg) {
  auto c = std::make_shared<stream_case>();
  c->messages = cfg.values != 0 ? cfg.values
                : cfg.quick     ? documents::quick_stream_messages
                                : documents::stream_messages;
  c->typed = {documents::stream_tag, {{documents::stream_time, {documents::stream_text}}}};
  c->cxx_typed = {std::string(documents::stream_tag),
                  {{documents::stream_time, {std::string(documents::stream_text)}}}};
  mpk::writer w(c->ref);
  for (std::size_t k = 0; k < c->messages; ++k)
    documents::write_stream_message(w);
  c->want_sum = message_sum(c->typed) * c->messages;
  const bytes_view ref = c->ref.bytes();

  std::vector<std::byte> mb;
  mpk_stream_encode(*c, mb);
  const std::string mpk_enc = checks::byte_verdict(ref, mb, "mpk");
  msgpack::sbuffer staging;
  std::vector<std::byte> cb;
  cxx_stream_encode(*c, staging, cb);
  const std::string cxx_enc = checks::byte_verdict(ref, cb, "msgpack-cxx");
  mpk::stream_decoder dec;
  const bool mpk_ok = mpk_stream_decode(dec, ref) == c->want_sum;
  const bool cxx_ok = cxx_stream_decode(ref) == c->want_sum;
  bool ok =
      mpk_enc.rfind("same", 0) == 0 && mpk_ok && cxx_ok && cxx_stream_decode(cb) == c->want_sum;
  if (!cfg.list_only || !ok) {
    report(mpk_enc.rfind("same", 0) == 0, "mpk stream_writer writes the stream", mpk_enc);
    report(true, "msgpack-cxx writes the stream", cxx_enc);
    report(mpk_ok, "mpk stream_decoder reads " + checks::with_commas(c->messages) +
                       " messages, 64 KiB chunks, into typed objects");
    report(cxx_ok, "msgpack-cxx unpacker reads them into typed objects");
  }
  if (!ok) return false;

  const std::size_t n = c->messages;
  auto size_check = [want = ref.size()](std::size_t got) {
    return got == want ? std::string() : "timed loop wrote " + std::to_string(got) + " bytes";
  };
  auto sum_check = [want = c->want_sum](std::uint64_t got) {
    return got == want ? std::string() : std::string("timed loop read other messages");
  };
  t.add("encode_stream", "mpk", "reference bytes (mpk_gen's stream); same values",
        "mpk::stream_writer.write(typed message) per message, 64 KiB staging buffer, to a "
        "callback that appends to memory",
        [c, n, size_check, out = std::make_shared<std::vector<std::byte>>()](benchmark::State& st) {
          out->reserve(c->ref.size());
          time_passes(
              st, n, "op", [&] { return mpk_stream_encode(*c, *out); }, size_check);
        });
  t.add("encode_stream", "msgpack-cxx", cxx_enc,
        "msgpack::pack(sbuffer, typed message) per message (MSGPACK_DEFINE_ARRAY / _MAP), the "
        "sbuffer (reused) handed to the same callback at 64 KiB",
        [c, n, size_check, staging = std::make_shared<msgpack::sbuffer>(),
         out = std::make_shared<std::vector<std::byte>>()](benchmark::State& st) {
          out->reserve(c->ref.size());
          time_passes(
              st, n, "op", [&] { return cxx_stream_encode(*c, *staging, *out); }, size_check);
        });
  t.add("decode_stream", "mpk", "same values: every message of mpk's stream, fed in 64 KiB chunks",
        "mpk::stream_decoder: feed(64 KiB chunk), next(typed message) until false; strings are "
        "views into the decoder's buffer (zero-copy), one message object reused",
        [c, n, sum_check, d = std::make_shared<mpk::stream_decoder>()](benchmark::State& st) {
          time_passes(
              st, n, "op", [&] { return mpk_stream_decode(*d, c->ref.bytes()); }, sum_check);
        });
  t.add("decode_stream", "msgpack-cxx",
        "same values: every message of mpk's stream, fed in 64 KiB chunks",
        "msgpack::unpacker: reserve_buffer + copy + buffer_consumed per 64 KiB chunk, next(oh), "
        "oh.get().convert(typed message), one message object reused",
        [c, n, sum_check](benchmark::State& st) {
          time_passes(
              st, n, "op", [&] { return cxx_stream_decode(c->ref.bytes()); }, sum_check);
        });
  t.add_fact("stream: " + checks::with_commas(n) + " messages of " +
             std::to_string(ref.size() / n) +
             " bytes; the unit of encode_stream and decode_stream is one message; msgpack-c and "
             "nlohmann: not run (no typed mapping / no incremental decoder of a chunked stream)");
  return true;
}

// --- records -------------------------------------------------------------------------------

using beer = w5::beer_map;  // W5's beer in map mode (bench/data/w5_beer_types.hpp)

struct map_entry {
  std::string key;
  std::string value;
  std::int64_t index = 0;
  friend bool operator==(const map_entry&, const map_entry&) = default;
  MSGPACK_DEFINE_MAP(key, value, index)
};
MPK_MAP(map_entry, key, value, index);

template <class T>
struct records_case {
  std::string list;  ///< beer_list or map_list
  std::vector<T> data;
  mpk::buffer maps;     ///< plain maps (mpk_gen's <list>_maps)
  mpk::buffer records;  ///< msgpackr records, per message (mpk_gen's <list>_records)
};

template <class T>
bool add_records(workload_table& t, std::shared_ptr<records_case<T>> c, bool list_only) {
  const std::string mname = c->list + "_maps", rname = c->list + "_records";
  bool ok = true;
  // The plain maps: mpk::pack must give mpk_gen's bytes; records: the records encoder.
  mpk::buffer pm;
  {
    mpk::writer w(pm);
    (void)mpk::pack(w, c->data);
  }
  const std::string maps_v = checks::byte_verdict(c->maps.bytes(), pm.bytes(), "mpk::pack");
  mpk::records_encoder enc;
  mpk::buffer pr;
  (void)mpk::pack_records(enc, c->data, pr);
  mpk::buffer dyn_records;
  {
    auto doc = mpk::document::parse(c->maps.bytes());
    mpk::records_encoder denc;
    if (doc) (void)denc.encode(doc->root(), dyn_records);
  }
  c->records = std::move(dyn_records);
  const std::string rec_v =
      checks::byte_verdict(c->records.bytes(), pr.bytes(), "mpk::pack_records");
  mpk::records_decoder dec;
  const auto back_r = mpk::unpack_records<std::vector<T>>(dec, c->records.bytes());
  const auto back_m = mpk::unpack<std::vector<T>>(c->maps.bytes());
  std::vector<T> back_c;
  try {
    back_c = msgpack::unpack(reinterpret_cast<const char*>(c->maps.data()), c->maps.size())
                 .get()
                 .template as<std::vector<T>>();
  } catch (const std::exception&) {
  }
  msgpack::sbuffer cb;
  msgpack::pack(cb, c->data);
  const std::string cxx_v =
      checks::byte_verdict(c->maps.bytes(), view(cb), "msgpack-cxx",
                           "msgpack-cxx writes a double holding an integer as an integer");
  ok &= maps_v.rfind("same", 0) == 0 && rec_v.rfind("same", 0) == 0;
  ok &= back_r && *back_r == c->data && back_m && *back_m == c->data && back_c == c->data;
  if (!list_only || !ok) {
    report(maps_v.rfind("same", 0) == 0, "mpk::pack writes " + mname, maps_v);
    report(rec_v.rfind("same", 0) == 0,
           "mpk::pack_records (typed) writes the records encoder's bytes of " + c->list, rec_v);
    report(back_r && *back_r == c->data, "mpk::unpack_records reads " + rname + " to the data");
    report(back_m && *back_m == c->data, "mpk::unpack reads " + mname + " to the data");
    report(back_c == c->data, "msgpack-cxx reads " + mname + " to the data");
    report(true, "msgpack-cxx writes " + mname, cxx_v);
  }
  if (!ok) return false;

  const std::string enc_m = "encode_" + mname, dec_m = "decode_" + mname;
  const std::string enc_r = "encode_" + rname, dec_r = "decode_" + rname;
  auto equal_check = [c](const std::vector<T>& got) {
    return got == c->data ? std::string() : std::string("timed loop decoded other values");
  };
  auto size_check = [](std::size_t want) {
    return [want](std::size_t got) {
      return got == want ? std::string() : "timed loop wrote " + std::to_string(got) + " bytes";
    };
  };
  checks::add_op(
      t, enc_m, "mpk", "reference bytes (mpk_gen's); same values",
      "mpk::pack(writer, list) of MPK_MAP structs into a reused mpk::buffer",
      [c, out = std::make_shared<mpk::buffer>()] {
        out->clear();
        mpk::writer w(*out);
        return mpk::pack(w, c->data) ? out->size() : 0;
      },
      size_check(c->maps.size()));
  checks::add_op(
      t, enc_m, "msgpack-cxx", cxx_v,
      "msgpack::pack(sbuffer, list) of MSGPACK_DEFINE_MAP structs, reused sbuffer",
      [c, out = std::make_shared<msgpack::sbuffer>()] {
        out->clear();
        msgpack::pack(*out, c->data);
        return out->size();
      },
      size_check(cb.size()));
  checks::add_op(
      t, enc_r, "mpk", "same bytes as mpk's records encoder (mpk_gen's " + rname + ")",
      "mpk::pack_records(records_encoder, list, buffer): MPK_MAP structs as msgpackr records, "
      "per message (msgpackr's useRecords); msgpack-cxx: n/a (no record extension)",
      [c, e = std::make_shared<mpk::records_encoder>(), out = std::make_shared<mpk::buffer>()] {
        out->clear();
        return mpk::pack_records(*e, c->data, *out) ? out->size() : 0;
      },
      size_check(c->records.size()));
  checks::add_op(
      t, dec_m, "mpk", "same values from mpk's bytes",
      "mpk::unpack<std::vector<T>>: a new list per operation, strings checked for UTF-8",
      [c] {
        auto r = mpk::unpack<std::vector<T>>(c->maps.bytes());
        return r ? std::move(*r) : std::vector<T>{};  // moved out (value_or would copy it)
      },
      equal_check);
  checks::add_op(
      t, dec_m, "msgpack-cxx", "same values from mpk's bytes",
      "msgpack::unpack + as<std::vector<T>>(): a new list per operation",
      [c] {
        try {
          return msgpack::unpack(reinterpret_cast<const char*>(c->maps.data()), c->maps.size())
              .get()
              .template as<std::vector<T>>();
        } catch (const std::exception&) {
          return std::vector<T>{};
        }
      },
      equal_check);
  checks::add_op(
      t, dec_r, "mpk", "same values from mpk's records bytes",
      "mpk::unpack_records<std::vector<T>>(records_decoder, bytes): a new list per operation; "
      "msgpack-cxx: n/a (no record extension)",
      [c, d = std::make_shared<mpk::records_decoder>()] {
        auto r = mpk::unpack_records<std::vector<T>>(*d, c->records.bytes());
        return r ? std::move(*r) : std::vector<T>{};  // moved out (value_or would copy it)
      },
      equal_check);
  return true;
}

}  // namespace w7

bool register_documents(suite& s, const run_config& cfg) {
  using namespace w7;
  if (!cfg.list_only) std::printf("W7 documents\nverification (docs/workloads.md rule 2):\n");
  workload_table& t = s.add_workload(
      "w7", "documents", "W7 documents — encode and decode, one operation per document", "op");
  t.add_fact(
      "tiny, small, medium, large, example: whole documents of unknown shape, encoded "
      "from and decoded into each library's dynamic type (mpk::value / mpk::document, "
      "msgpack::object, msgpack_object, nlohmann::json); the originals report operations "
      "per second: 1e9 / ns per op");
  t.add_fact(
      "records: beer_list (W5's, map mode) and map_list (32 objects {key, value, index}) "
      "decoded into typed structs, as plain maps (<list>_maps) and as msgpackr records "
      "(<list>_records, per message like msgpackr's useRecords)");
  t.add_implementation({"mpk", "mpk " MPK_BENCH_MPK_VERSION,
                        "this project: mpk::value (encode), mpk::document (decode, zero-copy), "
                        "stream_writer / stream_decoder, records_encoder / records_decoder"});
  t.add_implementation({"mpk-parse", "mpk " MPK_BENCH_MPK_VERSION " (new document)",
                        "this project: decode into a new mpk::document per operation (zero-copy, "
                        "its memory not reused)"});
  t.add_implementation({"mpk-value", "mpk " MPK_BENCH_MPK_VERSION " (mpk::value)",
                        "this project: decode into an owning mpk::value (copying)"});
  t.add_implementation({"msgpack-cxx", "msgpack-cxx " + cxx_version(),
                        "Debian libmsgpack-cxx-dev: msgpack::object, msgpack::unpack, "
                        "msgpack::unpacker, MSGPACK_DEFINE_*"});
  t.add_implementation({"msgpack-c", msgpack_c_w7::version(),
                        "Debian libmsgpack-dev (C): msgpack_object, msgpack_unpack, "
                        "msgpack_pack_object"});
  t.add_implementation({"nlohmann", nl::version(),
                        "Debian nlohmann-json3-dev: json::to_msgpack, json::from_msgpack"});

  bool ok = true;
  for (std::string_view name : documents::case_names) {
    t.add_case({"encode_" + std::string(name), "encode " + std::string(name),
                "the document's tree into a reused buffer"});
    t.add_case({"decode_" + std::string(name), "decode " + std::string(name),
                "mpk's bytes into the library's tree"});
    ok &= add_document(t, name, cfg.list_only);
  }
  t.add_case({"encode_stream", "encode stream (per message)",
              "typed messages written one after the other to a stream"});
  t.add_case({"decode_stream", "decode stream (per message)",
              "the stream fed in 64 KiB chunks, every message decoded into a typed object"});
  ok &= add_stream(t, cfg);

  auto beers = std::make_shared<records_case<beer>>();
  beers->list = "beer_list";
  for (const auto& b : typed_objects::beer_list())
    beers->data.push_back({b.brand, b.alcohol, b.brewery, b.sort});
  {
    mpk::writer w(beers->maps);
    typed_objects::write_case(w, "beer_list_map");
  }
  auto entries = std::make_shared<records_case<map_entry>>();
  entries->list = "map_list";
  for (const auto& e : documents::map_list())
    entries->data.push_back({e.key, e.value, e.index});
  {
    mpk::writer w(entries->maps);
    documents::write_map_list(w);
  }
  for (const std::string list : {"beer_list", "map_list"}) {
    t.add_case(
        {"encode_" + list + "_maps", "encode " + list + " as maps", "typed list, plain maps"});
    t.add_case({"encode_" + list + "_records", "encode " + list + " as records",
                "typed list, msgpackr records"});
    t.add_case({"decode_" + list + "_maps", "decode " + list + " from maps", "into a typed list"});
    t.add_case(
        {"decode_" + list + "_records", "decode " + list + " from records", "into a typed list"});
  }
  ok &= add_records(t, beers, cfg.list_only);
  ok &= add_records(t, entries, cfg.list_only);
  if (!ok) std::printf("W7 verification FAILED: not timing anything.\n");
  return ok;
}

}  // namespace mpk_bench
