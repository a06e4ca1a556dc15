// Interop of mpk/ext/records.hpp with the real msgpackr and @msgpack/msgpack (Node.js, the
// modules of bench/harness/js/node_modules, through tests/interop/records_peer.js):
//   - msgpackr's pack, Packr(), Packr({useRecords}), Packr({sequential}), Packr({structures})
//     (32 and 100 shared structures: one- and two-byte ids) and PackrStream output decodes in
//     mpk (documents and typed structs) to the values @msgpack/msgpack's plain encoding of the
//     same messages gives;
//   - mpk's records, in each mode, dynamic values and typed structs, decode in msgpackr to
//     the values @msgpack/msgpack reads from mpk's plain encoding of the same messages.
// Numbers compare by value (msgpackr writes integers beyond 32 bits as float64). A missing
// node or missing modules fail the test.
#include <mpk/codec.hpp>
#include <mpk/ext/records.hpp>
#include <mpk/value.hpp>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <vector>

#ifndef MPK_TEST_NODE
#define MPK_TEST_NODE "node"
#endif
#ifndef MPK_TEST_NODE_MODULES
#error "MPK_TEST_NODE_MODULES must name bench/harness/js/node_modules"
#endif
#ifndef MPK_TEST_RECORDS_PEER
#error "MPK_TEST_RECORDS_PEER must name tests/interop/records_peer.js"
#endif

namespace {

namespace fs = std::filesystem;

struct beer {
  std::string brand;
  double alcohol = 0;
  std::string brewery;
  std::vector<std::string> sort;
  friend bool operator==(const beer&, const beer&) = default;
};
MPK_MAP(beer, brand, alcohol, brewery, sort);

struct beers_message {
  std::vector<beer> beers;
  friend bool operator==(const beers_message&, const beers_message&) = default;
};
MPK_MAP(beers_message, beers);

/// msgpackr's single-message cases: [mixed, {beers}, ...].
struct whole {
  mpk::value first;
  beers_message second;
};
MPK_ARRAY(whole, first, second);

struct order_line {
  std::string sku;
  std::uint32_t quantity = 0;
  std::optional<double> discount;
  friend bool operator==(const order_line&, const order_line&) = default;
};
MPK_MAP(order_line, sku, quantity, discount);

struct order {
  std::int64_t id = 0;
  std::string customer;
  std::vector<order_line> lines;
  std::map<std::string, std::int32_t> counters;  // through its codec: a plain map of ints
  std::vector<std::byte> blob;
  friend bool operator==(const order&, const order&) = default;
};
MPK_MAP(order, id, customer, lines, counters, blob);

/// Runs `command`, returns its exit status (0: success) and output.
int run(const std::string& command, std::string& output) {
  FILE* out = popen(command.c_str(), "r");
  if (out == nullptr) return -1;
  char chunk[4096];
  std::size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, out)) > 0)
    output.append(chunk, n);
  const int status = pclose(out);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string node_command() {
  return std::string("NODE_PATH=") + MPK_TEST_NODE_MODULES + " " + MPK_TEST_NODE + " " +
         MPK_TEST_RECORDS_PEER;
}

std::vector<std::byte> read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(chars.size());
  if (!chars.empty()) std::memcpy(out.data(), chars.data(), chars.size());
  return out;
}

void write_file(const fs::path& p, std::span<const std::byte> bytes) {
  std::ofstream out(p, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

/// A temporary folder, removed at the end.
struct temp_dir {
  fs::path path;
  temp_dir() {
    char tmpl[] = "/tmp/mpk_records_XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~temp_dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

bool is_number(mpk::type t) {
  return t == mpk::type::uint || t == mpk::type::sint || t == mpk::type::float32 ||
         t == mpk::type::float64;
}

/// Deep equality where numbers compare by value; `why` says where they differ.
bool same(mpk::element a, mpk::element b, std::string& why, const std::string& at = "$") {
  if (is_number(a.type()) && is_number(b.type())) {
    if (a.is_integer() && b.is_integer()) {
      const bool eq = a.type() == b.type() && a.raw().size() > 0 &&
                      (a.type() == mpk::type::uint
                           ? a.as<std::uint64_t>().value() == b.as<std::uint64_t>().value()
                           : a.as<std::int64_t>().value() == b.as<std::int64_t>().value());
      if (!eq) why = at + ": integers differ";
      return eq;
    }
    auto as_double = [](mpk::element v) {
      if (v.type() == mpk::type::uint) return static_cast<double>(v.as<std::uint64_t>().value());
      if (v.type() == mpk::type::sint) return static_cast<double>(v.as<std::int64_t>().value());
      if (v.type() == mpk::type::float32) return static_cast<double>(v.as<float>().value());
      return v.as<double>().value();
    };
    if (as_double(a) != as_double(b)) {
      why = at + ": numbers differ";
      return false;
    }
    return true;
  }
  if (a.type() != b.type()) {
    why = at + ": types differ";
    return false;
  }
  if (a.is_array() || a.is_map()) {
    if (a.size() != b.size()) {
      why = at + ": sizes differ (" + std::to_string(a.size()) + " vs " + std::to_string(b.size()) +
            ")";
      return false;
    }
    if (a.is_array()) {
      for (std::size_t i = 0; i < a.size(); ++i)
        if (!same(a[i], b[i], why, at + "[" + std::to_string(i) + "]")) return false;
      return true;
    }
    auto ea = a.entries().begin();
    auto eb = b.entries().begin();
    for (std::size_t i = 0; i < a.size(); ++i, ++ea, ++eb) {
      const std::string key((*ea).key.is_str() ? (*ea).key.as<std::string_view>().value()
                                               : std::string_view("?"));
      if (!same((*ea).key, (*eb).key, why, at + ".<key " + key + ">")) return false;
      if (!same((*ea).value, (*eb).value, why, at + "." + key)) return false;
    }
    return true;
  }
  if (a == b) return true;
  why = at + ": values differ";
  return false;
}

/// The values of a sequence of plain messages.
std::vector<mpk::document> plain_messages(std::span<const std::byte> bytes) {
  std::vector<mpk::document> out;
  std::size_t at = 0;
  while (at < bytes.size()) {
    auto doc = mpk::document::parse(
        bytes.subspan(at),
        {.read = {.limits = mpk::limits::trusted(), .allow_trailing = true}, .copy = true});
    EXPECT_TRUE(doc.has_value()) << "plain message at " << at;
    if (!doc) break;
    at += doc->consumed();
    out.push_back(std::move(*doc));
  }
  return out;
}

struct peer_case {
  const char* name;
  mpk::records_mode mode;
  bool shared;
};

/// The files the peer wrote for one case, and a decoder for them.
struct peer_files {
  peer_case c;
  std::vector<std::byte> rec;
  std::vector<std::byte> plain;
  std::optional<mpk::shared_structures> shared;

  peer_files(const fs::path& dir, const peer_case& pc)
      : c(pc),
        rec(read_file(dir / (std::string(pc.name) + ".rec"))),
        plain(read_file(dir / (std::string(pc.name) + ".plain"))) {
    if (!pc.shared) return;
    auto loaded =
        mpk::shared_structures::load(read_file(dir / (std::string(pc.name) + ".structures")));
    if (loaded && loaded->size() > 0) shared = std::move(*loaded);
  }
  mpk::records_decoder decoder() const {
    return mpk::records_decoder({.mode = c.mode,
                                 .shared = shared ? &*shared : nullptr,
                                 .read = {.limits = mpk::limits::trusted()}});
  }
};

class records_from_msgpackr : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new temp_dir();
    std::string output;
    status_ = run(node_command() + " produce " + dir_->path.string() + " 2>&1", output);
    output_ = new std::string(output);
  }
  static void TearDownTestSuite() {
    delete dir_;
    delete output_;
  }
  static void expect_peer_ran() {
    ASSERT_EQ(status_, 0) << "node or msgpackr / @msgpack/msgpack missing? (scripts/setup runs "
                             "npm ci in bench/harness/js)\n"
                          << *output_;
  }
  static inline temp_dir* dir_ = nullptr;
  static inline int status_ = -1;
  static inline std::string* output_ = nullptr;
};

const peer_case from_cases[] = {
    {"pack", mpk::records_mode::per_message, false},
    {"packr_default", mpk::records_mode::per_message, false},
    {"use_records", mpk::records_mode::per_message, false},
    {"per_message", mpk::records_mode::per_message, false},
    {"sequential", mpk::records_mode::sequential, false},
    {"packr_stream", mpk::records_mode::sequential, false},
    {"structures_32", mpk::records_mode::per_message, true},
    {"structures_100", mpk::records_mode::per_message, true},
};

TEST_F(records_from_msgpackr, documents_equal_the_plain_encoding) {
  expect_peer_ran();
  for (const peer_case& c : from_cases) {
    SCOPED_TRACE(c.name);
    const peer_files f(dir_->path, c);
    ASSERT_TRUE(!c.shared || f.shared) << "the structures do not load";
    mpk::records_decoder dec = f.decoder();
    const auto& rec = f.rec;
    const auto want = plain_messages(f.plain);
    std::size_t at = 0;
    std::size_t i = 0;
    bool saw_record_bytes = false;
    while (at < rec.size()) {
      mpk::buffer expanded;
      auto end = dec.expand(rec, at, expanded);
      ASSERT_TRUE(end.has_value()) << "message " << i << ": " << end.error().to_string();
      if (expanded.size() != *end - at) saw_record_bytes = true;
      auto doc =
          mpk::document::parse(expanded.bytes(), {.read = {.limits = mpk::limits::trusted()}});
      ASSERT_TRUE(doc.has_value());
      ASSERT_LT(i, want.size());
      std::string why;
      EXPECT_TRUE(same(doc->root(), want[i].root(), why)) << "message " << i << ": " << why;
      at = *end;
      ++i;
    }
    EXPECT_EQ(i, want.size());
    if (std::string_view(c.name) != "pack") {
      EXPECT_TRUE(saw_record_bytes) << "msgpackr wrote no records";
    }
  }
}

TEST_F(records_from_msgpackr, typed_structs_equal_the_plain_encoding) {
  expect_peer_ran();
  for (const peer_case& c : from_cases) {
    SCOPED_TRACE(c.name);
    const peer_files f(dir_->path, c);
    ASSERT_TRUE(!c.shared || f.shared) << "the structures do not load";
    mpk::records_decoder dec = f.decoder();
    const auto& rec = f.rec;
    const auto want = plain_messages(f.plain);
    if (want.size() == 1) {
      // One message holding all (an array): its element 0 through mpk::value's codec (the
      // expanded fallback), element 1 straight into structs, the rest skipped.
      auto got = mpk::unpack_records<whole>(dec, rec);
      ASSERT_TRUE(got.has_value()) << got.error().to_string();
      const auto typed = mpk::unpack<beers_message>(want[0].root()[1].raw());
      ASSERT_TRUE(typed.has_value());
      EXPECT_EQ(got->second, *typed);
      EXPECT_EQ(got->second.beers.size(), 10u);
      mpk::buffer first;
      mpk::writer<mpk::buffer> w(first);
      mpk::write(w, got->first);
      auto first_doc = mpk::document::parse(first.bytes());
      ASSERT_TRUE(first_doc.has_value());
      std::string why;
      EXPECT_TRUE(same(first_doc->root(), want[0].root()[0], why)) << why;
      continue;
    }
    // Message after message: message 1 is {beers: [...]}, decoded typed straight from the
    // records (the others are skipped through the decoder, which keeps their definitions).
    std::size_t at = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
      if (i == 1) {
        beers_message got;
        auto end = mpk::unpack_records(dec, rec, at, got);
        ASSERT_TRUE(end.has_value()) << end.error().to_string();
        const auto typed = mpk::unpack<beers_message>(want[1].root().raw());
        ASSERT_TRUE(typed.has_value());
        EXPECT_EQ(got, *typed);
        EXPECT_EQ(got.beers.size(), 10u);
        at = *end;
      } else {
        mpk::buffer ignored;
        auto end = dec.expand(rec, at, ignored);
        ASSERT_TRUE(end.has_value()) << end.error().to_string();
        at = *end;
      }
    }
  }
}

// --- mpk -> msgpackr -------------------------------------------------------------------------

mpk::value shapes(int n) {
  mpk::value list = mpk::value::array();
  for (int i = 0; i < n; ++i) {
    mpk::value o = mpk::value::map();
    o.assign("k" + std::to_string(i), i);
    o.assign("v" + std::to_string(i % 7), std::string(static_cast<std::size_t>(i % 40), 'x'));
    list.push_back(std::move(o));
  }
  return list;
}

std::vector<mpk::value> dynamic_messages() {
  mpk::value ints = mpk::value::array();
  for (std::int64_t v : {0LL,           1LL,
                         63LL,          64LL,
                         100LL,         127LL,
                         128LL,         200LL,
                         255LL,         256LL,
                         65535LL,       65536LL,
                         2147483647LL,  4294967295LL,
                         4294967296LL,  9007199254740991LL,
                         -1LL,          -32LL,
                         -33LL,         -128LL,
                         -129LL,        -32768LL,
                         -32769LL,      -2147483648LL,
                         -2147483649LL, -9007199254740991LL})
    ints.push_back(v);
  mpk::value beers = mpk::value::array();
  for (int k = 0; k < 10; ++k)
    beers.push_back(mpk::value::map({{"brand", "Ale " + std::to_string(k)},
                                     {"alcohol", 4.5 + k / 4.0},
                                     {"brewery", "Brew Co"},
                                     {"sort", mpk::value::array({"pale", "amber", "dark"})}}));
  const std::vector<std::byte> bin(300, std::byte{7});
  mpk::value mixed = mpk::value::map(
      {{"ints", ints},
       {"floats", mpk::value::array({0.5, -1.25, 1e300, -2.5e-300})},
       {"text", mpk::value::array({"", "héllo wörld", "日本語のテキスト", "😀 emoji",
                                   std::string(32, 'y'), std::string(300, 'z')})},
       {"bins", mpk::value::array({mpk::value::binary(bin)})},
       {"flags", mpk::value::array({true, false, nullptr})},
       {"nested", mpk::value::map({{"a", mpk::value::map({{"b", mpk::value::array({1, 64})}})}})},
       {"empty", mpk::value::map()},
       {"beers", beers}});
  return {mixed,          mpk::value::map({{"beers", beers}}),
          shapes(70),     shapes(3),
          mpk::value(42), mpk::value("plain")};
}

/// Writes the peer's files for messages encoded by `encode(i)` (records) and `plain(i)`.
template <class Encode, class Plain>
void write_case(const fs::path& base, std::size_t count, Encode encode, Plain plain) {
  mpk::buffer rec;
  mpk::buffer pl;
  std::string ends = "[";
  for (std::size_t i = 0; i < count; ++i) {
    encode(i, rec);
    plain(i, pl);
    ends += (i ? "," : "") + std::to_string(rec.size());
  }
  write_file(base.string() + ".rec", rec.bytes());
  write_file(base.string() + ".plain", pl.bytes());
  std::ofstream(base.string() + ".rec.ends") << ends << "]";
}

std::string check(const fs::path& base, const char* mode, bool shared) {
  std::string output;
  const std::string cmd = node_command() + " check " + mode + " " + base.string() + ".rec " +
                          base.string() + ".plain" +
                          (shared ? " " + base.string() + ".structures" : "") + " 2>&1";
  const int status = run(cmd, output);
  if (status != 0) return "FAILED (" + std::to_string(status) + "): " + output;
  return output;
}

struct to_case {
  const char* name;
  mpk::records_mode mode;
  int shared;  // structures to share (0: none)
  const char* peer_mode;
};

const to_case to_cases[] = {
    {"message", mpk::records_mode::per_message, 0, "message"},
    {"sequential", mpk::records_mode::sequential, 0, "sequential"},
    {"shared20", mpk::records_mode::per_message, 20, "shared"},
    {"shared70", mpk::records_mode::per_message, 70, "shared-get"},
};

/// Shared structures: the first n shapes of shapes(70), then beer's keys.
mpk::shared_structures make_shared(int n) {
  mpk::shared_structures s;
  for (int i = 0; i < n; ++i)
    EXPECT_TRUE(s.add({"k" + std::to_string(i), "v" + std::to_string(i % 7)}).has_value());
  EXPECT_TRUE(mpk::add_shared_structure<beer>(s).has_value());
  return s;
}

TEST(records_to_msgpackr, dynamic_values_decode_to_equal_values) {
  temp_dir dir;
  const auto msgs = dynamic_messages();
  for (const to_case& c : to_cases) {
    SCOPED_TRACE(c.name);
    const fs::path base = dir.path / (std::string("dyn_") + c.name);
    mpk::shared_structures shared = make_shared(c.shared);
    if (c.shared) write_file(base.string() + ".structures", shared.save()->bytes());
    mpk::records_encoder enc({.mode = c.mode, .shared = c.shared ? &shared : nullptr});
    write_case(
        base, msgs.size(),
        [&](std::size_t i, mpk::buffer& out) { ASSERT_TRUE(enc.encode(msgs[i], out).has_value()); },
        [&](std::size_t i, mpk::buffer& out) {
          mpk::writer<mpk::buffer> w(out);
          mpk::write(w, msgs[i]);
        });
    const std::string out = check(base, c.peer_mode, c.shared != 0);
    EXPECT_EQ(out, "ok " + std::to_string(msgs.size()) + "\n");
  }
}

std::vector<order> orders() {
  std::vector<order> out;
  for (int i = 0; i < 5; ++i) {
    order o;
    o.id = i == 0 ? 5000000000LL : 100 + i;
    o.customer = "Zoë " + std::to_string(i);
    for (int k = 0; k <= i; ++k)
      o.lines.push_back({"SKU-" + std::to_string(k), static_cast<std::uint32_t>(64 * k + 1),
                         k % 2 ? std::optional<double>(0.25 * k) : std::nullopt});
    o.counters = {{"views", 70 + i}, {"likes", -i}};
    o.blob.assign(static_cast<std::size_t>(i), std::byte{0xab});
    out.push_back(std::move(o));
  }
  return out;
}

TEST(records_to_msgpackr, typed_structs_decode_to_equal_values) {
  temp_dir dir;
  beers_message beers;
  for (int k = 0; k < 10; ++k)
    beers.beers.push_back({"Ale " + std::to_string(k), 4.5 + k / 4.0, "Brew Co", {"pale", "dark"}});
  const auto os = orders();
  for (const to_case& c : to_cases) {
    SCOPED_TRACE(c.name);
    const fs::path base = dir.path / (std::string("typed_") + c.name);
    mpk::shared_structures shared = make_shared(c.shared);
    if (c.shared) {
      EXPECT_TRUE(mpk::add_shared_structure<order_line>(shared).has_value());
      write_file(base.string() + ".structures", shared.save()->bytes());
    }
    mpk::records_encoder enc({.mode = c.mode, .shared = c.shared ? &shared : nullptr});
    mpk::records_decoder dec({.mode = c.mode, .shared = c.shared ? &shared : nullptr});
    write_case(
        base, 1 + os.size(),
        [&](std::size_t i, mpk::buffer& out) {
          const std::size_t start = out.size();
          if (i == 0) {
            ASSERT_TRUE(mpk::pack_records(enc, beers, out).has_value());
            auto back = mpk::unpack_records<beers_message>(
                dec, std::span<const std::byte>(out.bytes()).subspan(start));
            ASSERT_TRUE(back.has_value()) << back.error().to_string();
            EXPECT_EQ(*back, beers);
          } else {
            ASSERT_TRUE(mpk::pack_records(enc, os[i - 1], out).has_value());
            auto back = mpk::unpack_records<order>(
                dec, std::span<const std::byte>(out.bytes()).subspan(start));
            ASSERT_TRUE(back.has_value()) << back.error().to_string();
            EXPECT_EQ(*back, os[i - 1]);
          }
        },
        [&](std::size_t i, mpk::buffer& out) {
          mpk::writer<mpk::buffer> w(out);
          if (i == 0)
            (void)mpk::pack(w, beers);
          else
            (void)mpk::pack(w, os[i - 1]);
        });
    const std::string out = check(base, c.peer_mode, c.shared != 0);
    EXPECT_EQ(out, "ok " + std::to_string(1 + os.size()) + "\n");
  }
}

}  // namespace
