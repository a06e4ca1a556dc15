// bench/w6_lua_bench.cpp - workload W6 lua_bench (the luajit-msgpack-pure / lua-MessagePack
// bench): each dataset is packed, then unpacked, as one operation.
//
// In C++ a dataset is a typed value: std::vector<std::int64_t> (iaryN, empty),
// std::vector<double> (daryN), std::vector<std::string> (str1) or std::string (strN). One
// operation packs it into a buffer reused across operations and unpacks those bytes into a
// new value, as the Lua bench builds a new table. Before timing, every implementation's bytes
// are compared with mpk's (mpk_gen's reference) and its unpacked value with the data.
#include <mpk/codec.hpp>

#include <msgpack.hpp>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "data/w5_w7_checks.hpp"
#include "data/w6_lua_bench.hpp"
#include "support/peers/nlohmann.hpp"
#include "w5_typed_objects_c.hpp"
#include "workloads.hpp"

namespace mpk_bench {
namespace w6 {

using checks::bytes_view;
using lua_bench::dataset;

template <class T>
T mpk_round_trip(const T& v, mpk::buffer& buf) {
  buf.clear();
  mpk::writer w(buf);
  if (!mpk::pack(w, v)) return T{};
  auto r = mpk::unpack<T>(buf.bytes());
  return r ? std::move(*r) : T{};
}

template <class T>
T cxx_round_trip(const T& v, msgpack::sbuffer& buf) {
  buf.clear();
  msgpack::pack(buf, v);
  try {
    return msgpack::unpack(buf.data(), buf.size()).get().as<T>();
  } catch (const std::exception&) {
    return T{};
  }
}

template <class T>
T nl_round_trip(const T& v, std::vector<std::uint8_t>& buf) {
  peers::nlohmann_msgpack::write(nlohmann::json(v), buf);
  nlohmann::json j;
  if (!peers::nlohmann_msgpack::read(mpk::as_bytes(buf), j)) return T{};
  try {
    return j.get<T>();
  } catch (const std::exception&) {
    return T{};
  }
}

template <class T>
T c_round_trip(const T& v, msgpack_c_w5::writer& w, msgpack_c_w5::reader& r) {
  T out{};
  if (w.write(v, false) == 0 || !r.read(w.bytes(), out, false)) return T{};
  return out;
}

/// Verifies and registers the cells of one dataset. False on a wrong value.
template <class T>
bool add_dataset(workload_table& t, const dataset& d, const T& value, bool list_only) {
  using checks::report;
  const std::string& name = d.name;
  auto data = std::make_shared<const T>(value);
  mpk::buffer ref;  // mpk_gen's reference bytes
  mpk::writer ref_writer(ref);
  lua_bench::write(ref_writer, d);
  bool ok = true;
  auto verdict = [&](const std::string& who, bytes_view mine, const T& back,
                     std::string_view reason) {
    if (back != *data) {
      ok = report(false, who + " packs and unpacks " + name,
                  "wrong values: the unpacked value differs from the data");
      return std::string();
    }
    std::string v =
        checks::byte_verdict(ref.bytes(), mine, who, reason) + "; unpacks to the same values";
    if (!list_only) report(true, who + " packs and unpacks " + name, v);
    return v;
  };
  mpk::buffer mb;
  const T mpk_back = mpk_round_trip(*data, mb);
  const std::string mpk_v = verdict("mpk", mb.bytes(), mpk_back, "");
  if (!ok || mpk_v.rfind("same bytes", 0) != 0)
    return report(false, "mpk::pack of " + name + " writes mpk_gen's reference bytes", mpk_v);
  msgpack::sbuffer cb;
  const T cxx_back = cxx_round_trip(*data, cb);
  const std::string cxx_v = verdict("msgpack-cxx", checks::view(cb.data(), cb.size()), cxx_back,
                                    "msgpack-cxx writes a double holding an integer as an integer");
  std::vector<std::uint8_t> nb;
  const T nl_back = nl_round_trip(*data, nb);
  const std::string nl_v =
      verdict("nlohmann", mpk::as_bytes(nb), nl_back,
              "nlohmann writes a double that float32 holds exactly as float32");
  msgpack_c_w5::writer cw;
  msgpack_c_w5::reader cr;
  const T c_back = c_round_trip(*data, cw, cr);
  const std::string c_v = verdict("msgpack-c", cw.bytes(), c_back, "");
  // mpk's reference bytes read back by every unpacker (values only; printed when wrong).
  auto from_ref = [&](const std::string& who, const T& got) {
    const bool same = got == *data;
    if (!same) ok = report(false, who + " unpacks mpk's bytes of " + name + " to the data");
  };
  from_ref("mpk", mpk::unpack<T>(ref.bytes()).value_or(T{}));
  try {
    from_ref("msgpack-cxx",
             msgpack::unpack(reinterpret_cast<const char*>(ref.data()), ref.size()).get().as<T>());
  } catch (const std::exception&) {
    ok = report(false, "msgpack-cxx unpacks mpk's bytes of " + name, "exception");
  }
  {
    nlohmann::json j;
    T got{};
    if (peers::nlohmann_msgpack::read(ref.bytes(), j)) got = j.get<T>();
    from_ref("nlohmann", got);
  }
  {
    T got{};
    cr.read(ref.bytes(), got, false);
    from_ref("msgpack-c", got);
  }
  if (!ok) return false;

  auto same_check = [data](const T& got) {
    return got == *data ? std::string() : std::string("timed loop unpacked other values");
  };
  checks::add_op(
      t, name, "mpk", mpk_v, "mpk::pack(writer, v) into a reused mpk::buffer, mpk::unpack<T>",
      [data, buf = std::make_shared<mpk::buffer>()] { return mpk_round_trip(*data, *buf); },
      same_check);
  checks::add_op(
      t, name, "msgpack-cxx", cxx_v,
      "msgpack::pack into a reused sbuffer, msgpack::unpack + as<T>()",
      [data, buf = std::make_shared<msgpack::sbuffer>()] { return cxx_round_trip(*data, *buf); },
      same_check);
  checks::add_op(
      t, name, "nlohmann", nl_v,
      "json(v) + json::to_msgpack into a reused vector, json::from_msgpack + get<T>()",
      [data, buf = std::make_shared<std::vector<std::uint8_t>>()] {
        return nl_round_trip(*data, *buf);
      },
      same_check);
  checks::add_op(
      t, name, "msgpack-c", c_v,
      "msgpack_pack_* into a reused msgpack_sbuffer, msgpack_unpack (reused zone) + by hand",
      [data, w = std::make_shared<msgpack_c_w5::writer>(),
       r = std::make_shared<msgpack_c_w5::reader>()] { return c_round_trip(*data, *w, *r); },
      same_check);
  return true;
}

}  // namespace w6

bool register_lua_bench(suite& s, const run_config& cfg) {
  using namespace w6;
  if (!cfg.list_only) std::printf("W6 lua_bench\nverification (docs/workloads.md rule 2):\n");
  workload_table& t = s.add_workload(
      "w6", "lua_bench", "W6 lua_bench — pack then unpack, one operation per dataset", "op");
  t.add_fact(
      "one operation packs a typed value into a buffer reused across operations and "
      "unpacks the bytes into a new value (std::vector<std::int64_t>, "
      "std::vector<double>, std::vector<std::string> or std::string); the Lua bench "
      "reports operations per second: 1e9 / ns per op");
  const std::string cxx_version = std::to_string(MSGPACK_VERSION_MAJOR) + "." +
                                  std::to_string(MSGPACK_VERSION_MINOR) + "." +
                                  std::to_string(MSGPACK_VERSION_REVISION);
  t.add_implementation(
      {"mpk", "mpk " MPK_BENCH_MPK_VERSION, "this project: mpk::pack, mpk::unpack<T>"});
  t.add_implementation({"msgpack-cxx", "msgpack-cxx " + cxx_version,
                        "Debian libmsgpack-cxx-dev: msgpack::pack, msgpack::unpack + as<T>()"});
  t.add_implementation({"msgpack-c", msgpack_c_w5::version(),
                        "Debian libmsgpack-dev (C): msgpack_pack_*, msgpack_unpack, by hand"});
  t.add_implementation({"nlohmann", peers::nlohmann_msgpack::version(),
                        "Debian nlohmann-json3-dev: json::to_msgpack, json::from_msgpack"});

  bool ok = true;
  for (const dataset& d : lua_bench::datasets()) {
    t.add_case({d.name, d.name, "pack then unpack " + d.name});
    switch (d.k) {
      case dataset::kind::ints:
        ok &= add_dataset(t, d, d.ints, cfg.list_only);
        break;
      case dataset::kind::doubles:
        ok &= add_dataset(t, d, d.doubles, cfg.list_only);
        break;
      case dataset::kind::strings:
        ok &= add_dataset(t, d, d.strings, cfg.list_only);
        break;
      case dataset::kind::text:
        ok &= add_dataset(t, d, d.text, cfg.list_only);
        break;
    }
  }
  if (!ok) std::printf("W6 verification FAILED: not timing anything.\n");
  return ok;
}

}  // namespace mpk_bench
