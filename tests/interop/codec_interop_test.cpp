// Differential tests of mpk/codec.hpp against the real peers:
//   - msgpack-cxx (Debian libmsgpack-cxx-dev, without Boost): the same structs described with
//     MSGPACK_DEFINE_MAP / MSGPACK_DEFINE_ARRAY must give mpk's bytes exactly, and each side
//     must read the other's bytes back to the same values;
//   - msgpack-python (Debian python3-msgpack, through tests/interop/codec_peer.py): packb of
//     the equivalent dict / list must give mpk's bytes, unpackb of mpk's bytes must equal the
//     dict / list, and mpk must read python's bytes back to the same values.
//
// One difference is on purpose: msgpack-cxx writes a double that holds an integer (5.0) as
// an integer, mpk (like msgpack-python) as float64. Samples with such doubles are compared
// by value with msgpack-cxx, by bytes with python. A missing peer fails the test.
//
// Plain aggregates that mpk reflects (no description) must give the same bytes as the
// described structs and as msgpack-python's dicts, with renamed and skipped members, enums by
// name and untagged variants (a list of a str, an int and None).
#include <mpk/codec.hpp>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <msgpack.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "support/hex.hpp"

#ifndef MPK_TEST_PYTHON3
#define MPK_TEST_PYTHON3 "/usr/bin/python3"
#endif
#ifndef MPK_TEST_CODEC_PEER
#error "MPK_TEST_CODEC_PEER must name tests/interop/codec_peer.py"
#endif

using mpk_test::hex;
using mpk_test::to_hex;

// --- the samples: each struct described for both libraries -------------------------------

struct beer {
  std::string brand;
  double alcohol = 0;
  std::string brewery;
  std::vector<std::string> sort;
  MSGPACK_DEFINE_MAP(brand, alcohol, brewery, sort)
  friend bool operator==(const beer&, const beer&) = default;
};
MPK_MAP(beer, brand, alcohol, brewery, sort);

struct beer_row {
  std::string brand;
  double alcohol = 0;
  std::string brewery;
  std::vector<std::string> sort;
  MSGPACK_DEFINE_ARRAY(brand, alcohol, brewery, sort)
  friend bool operator==(const beer_row&, const beer_row&) = default;
};
MPK_ARRAY(beer_row, brand, alcohol, brewery, sort);

struct flat16 {
  std::int64_t k00 = 0;
  double k01 = 0;
  std::string k02;
  bool k03 = false;
  std::int64_t k04 = 0;
  double k05 = 0;
  std::string k06;
  bool k07 = false;
  std::int64_t k08 = 0;
  double k09 = 0;
  std::string k10;
  bool k11 = false;
  std::int64_t k12 = 0;
  double k13 = 0;
  std::string k14;
  bool k15 = false;
  MSGPACK_DEFINE_MAP(k00, k01, k02, k03, k04, k05, k06, k07, k08, k09, k10, k11, k12, k13, k14, k15)
  friend bool operator==(const flat16&, const flat16&) = default;
};
MPK_MAP(flat16, k00, k01, k02, k03, k04, k05, k06, k07, k08, k09, k10, k11, k12, k13, k14, k15);

struct customer_info {
  std::string name;
  bool vip = false;
  MSGPACK_DEFINE_MAP(name, vip)
  friend bool operator==(const customer_info&, const customer_info&) = default;
};
MPK_MAP(customer_info, name, vip);

struct line_item {
  int k = 0;
  std::string sku;
  double price = 0;
  MSGPACK_DEFINE_ARRAY(k, sku, price)
  friend bool operator==(const line_item&, const line_item&) = default;
};
MPK_ARRAY(line_item, k, sku, price);

struct order {
  std::uint64_t id = 0;
  std::int64_t delta = 0;
  customer_info customer;
  std::vector<line_item> lines;
  std::map<std::string, std::int64_t> tags;
  std::optional<std::string> note;
  std::vector<std::byte> blob;
  MSGPACK_DEFINE_MAP(id, delta, customer, lines, tags, note, blob)
  friend bool operator==(const order&, const order&) = default;
};
MPK_MAP(order, id, delta, customer, lines, tags, note, blob);

// The same order as plain aggregates with no description at all (mpk reflects them; the
// lines keep array mode through struct_options), and a sample of the per-type choices.
struct plain_customer {
  std::string name;
  bool vip = false;
};
struct plain_line {
  int k = 0;
  std::string sku;
  double price = 0;
};
constexpr auto mpk_options(mpk::type_tag<plain_line>) {
  return mpk::struct_options{.mode = mpk::struct_mode::array};
}
struct plain_order {
  std::uint64_t id = 0;
  std::int64_t delta = 0;
  plain_customer customer;
  std::vector<plain_line> lines;
  std::map<std::string, std::int64_t> tags;
  std::optional<std::string> note;
  std::vector<std::byte> blob;
};

enum class shade { light, dark_blue };
constexpr auto mpk_options(mpk::type_tag<shade>) {
  return mpk::enum_names{};
}

struct choices {
  shade c = shade::dark_blue;
  std::vector<mpk::untagged<std::string, std::int64_t, std::monostate>> ids;
  int user_id = 3;
  int cache = 0;
  double ratio = 0.5;
};
constexpr auto mpk_options(mpk::type_tag<choices>) {
  return mpk::struct_options{}.rename("user_id", "userId").skip("cache");
}

namespace {

const std::vector<std::string> sorts = {"pale", "amber", "dark", "stout", "porter"};

beer make_beer(std::string brand, double alcohol) {
  return {std::move(brand), alcohol, "Brew Co", sorts};
}

flat16 make_flat(std::int64_t i) {
  // W3 of docs/workloads.md: value j is an integer, a float64, a string or a boolean by j % 4
  flat16 f;
  std::int64_t* ints[] = {&f.k00, &f.k04, &f.k08, &f.k12};
  double* floats[] = {&f.k01, &f.k05, &f.k09, &f.k13};
  std::string* strings[] = {&f.k02, &f.k06, &f.k10, &f.k14};
  bool* bools[] = {&f.k03, &f.k07, &f.k11, &f.k15};
  for (int q = 0; q < 4; ++q) {
    const int j = 4 * q;
    *ints[q] = i * 16 + j;
    *floats[q] = static_cast<double>(i) + (j + 1 + 0.5) / 16;
    *strings[q] = "v" + std::to_string(i % 100);
    *bools[q] = (i + j + 3) % 2 == 0;
  }
  return f;
}

order make_order(int n) {
  order o;
  o.id = 5000000000u + static_cast<std::uint64_t>(n);
  o.delta = -100000 - n;
  o.customer = {"c" + std::to_string(n), n % 2 == 0};
  for (int k = 0; k < n % 4; ++k)
    o.lines.push_back({k, "sku" + std::to_string(k), k * 0.5 + 0.25});
  o.tags = {{"a", n}, {"b", -n}};
  if (n % 2 == 0) o.note = "n" + std::to_string(n);
  for (int b = 0; b < n % 5; ++b)
    o.blob.push_back(static_cast<std::byte>(b));
  return o;
}

std::vector<beer> make_beer_list() {
  std::vector<beer> out;
  for (int k = 0; k < 10; ++k)
    out.push_back(make_beer("Ale " + std::to_string(k), 4.5 + k / 4.0));
  return out;
}

plain_order make_plain_order(int n) {
  const order o = make_order(n);
  plain_order p{o.id, o.delta, {o.customer.name, o.customer.vip}, {}, o.tags, o.note, o.blob};
  for (const line_item& l : o.lines)
    p.lines.push_back({l.k, l.sku, l.price});
  return p;
}

choices make_choices() {
  choices c;
  c.ids = {std::string("a"), std::int64_t{7}, std::monostate{}};
  return c;
}

const int flat_indices[] = {0, 1, 7, 99, 12345, 99999};

template <class T>
std::vector<std::byte> mpk_bytes(const T& v) {
  auto b = mpk::pack(v);
  EXPECT_TRUE(b.has_value()) << b.error().to_string();
  if (!b) return {};
  return {b->data(), b->data() + b->size()};
}

template <class T>
std::vector<std::byte> cxx_bytes(const T& v) {
  msgpack::sbuffer sb;
  msgpack::pack(sb, v);
  const auto* p = reinterpret_cast<const std::byte*>(sb.data());
  return {p, p + sb.size()};
}

template <class T>
T cxx_read(const std::vector<std::byte>& bytes) {
  msgpack::object_handle oh =
      msgpack::unpack(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  T out{};
  oh.get().convert(out);
  return out;
}

template <class T>
T mpk_read(const std::vector<std::byte>& bytes) {
  auto r = mpk::unpack<T>(bytes, {.strict = true});
  EXPECT_TRUE(r.has_value()) << r.error().to_string();
  return r ? *r : T{};
}

// Same bytes both ways, and each side reads the other's bytes to the same value.
template <class T>
void same_as_msgpack_cxx(const T& v) {
  const auto ours = mpk_bytes(v);
  const auto theirs = cxx_bytes(v);
  EXPECT_EQ(to_hex(ours), to_hex(theirs));
  EXPECT_TRUE(cxx_read<T>(ours) == v);
  EXPECT_TRUE(mpk_read<T>(theirs) == v);
}

// --- msgpack-cxx ---------------------------------------------------------------------------

TEST(CodecMsgpackCxx, MapModeBeer) {
  same_as_msgpack_cxx(make_beer("Ale Brewery Lager", 4.5));
}

TEST(CodecMsgpackCxx, ArrayModeBeer) {
  same_as_msgpack_cxx(beer_row{"Ale Brewery Lager", 4.5, "Brew Co", sorts});
}

TEST(CodecMsgpackCxx, FlatMapsOfSixteenEntries) {
  for (int i : flat_indices)
    same_as_msgpack_cxx(make_flat(i));
}

TEST(CodecMsgpackCxx, NestedStructsContainersOptionalsBinaries) {
  for (int n = 0; n < 6; ++n)
    same_as_msgpack_cxx(make_order(n));
}

TEST(CodecMsgpackCxx, IntegralDoublesDifferOnPurposeButReadBack) {
  // beer_list holds alcohol 5.0 and 6.0: msgpack-cxx writes them as integers
  const auto list = make_beer_list();
  const auto ours = mpk_bytes(list);
  const auto theirs = cxx_bytes(list);
  EXPECT_NE(to_hex(ours), to_hex(theirs));
  EXPECT_TRUE(mpk_read<std::vector<beer>>(theirs) == list);
  EXPECT_TRUE(cxx_read<std::vector<beer>>(ours) == list);
}

// --- msgpack-python ------------------------------------------------------------------------

struct python_answer {
  std::string theirs_hex;
  bool read_ours = false;
};

// Runs the peer once on every sample; returns its answers by sample name.
std::map<std::string, python_answer> ask_python(
    const std::vector<std::pair<std::string, std::vector<std::byte>>>& ours) {
  char in_path[] = "/tmp/mpk_codec_peer_inXXXXXX";
  const int fd = mkstemp(in_path);
  EXPECT_GE(fd, 0);
  if (fd < 0) return {};
  close(fd);
  {
    std::ofstream in(in_path);
    for (const auto& [name, bytes] : ours) {
      std::string h = to_hex(bytes);
      std::erase(h, ' ');
      in << name << ' ' << h << '\n';
    }
  }
  const std::string command =
      std::string(MPK_TEST_PYTHON3) + " " + MPK_TEST_CODEC_PEER + " < " + in_path;
  std::map<std::string, python_answer> answers;
  FILE* out = popen(command.c_str(), "r");
  EXPECT_NE(out, nullptr);
  if (out != nullptr) {
    std::string text;
    char chunk[4096];
    std::size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, out)) > 0)
      text.append(chunk, n);
    const int status = pclose(out);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "the python peer failed (is python3-msgpack installed?): " << command;
    std::istringstream lines(text);
    std::string name, theirs;
    int same = 0;
    while (lines >> name >> theirs >> same)
      answers[name] = {theirs, same == 1};
  }
  std::remove(in_path);
  return answers;
}

std::string spaced(const std::string& compact) {
  std::string out;
  for (std::size_t i = 0; i < compact.size(); i += 2) {
    if (i != 0) out += ' ';
    out += compact.substr(i, 2);
  }
  return out;
}

TEST(CodecMsgpackPython, SameBytesAndValuesBothWays) {
  std::vector<std::pair<std::string, std::vector<std::byte>>> ours;
  const beer b = make_beer("Ale Brewery Lager", 4.5);
  const beer_row row{"Ale Brewery Lager", 4.5, "Brew Co", sorts};
  const auto list = make_beer_list();
  ours.emplace_back("beer_map", mpk_bytes(b));
  ours.emplace_back("beer_array", mpk_bytes(row));
  ours.emplace_back("beer_list", mpk_bytes(list));
  for (int i : flat_indices)
    ours.emplace_back("flat_" + std::to_string(i), mpk_bytes(make_flat(i)));
  for (int n = 0; n < 6; ++n)
    ours.emplace_back("order_" + std::to_string(n), mpk_bytes(make_order(n)));

  // reflected aggregates: the same bytes as the described ones and as Python's dicts
  for (int n = 0; n < 6; ++n) {
    ours.emplace_back("plain_order_" + std::to_string(n), mpk_bytes(make_plain_order(n)));
    EXPECT_EQ(to_hex(ours.back().second), to_hex(mpk_bytes(make_order(n))));
  }
  ours.emplace_back("choices", mpk_bytes(make_choices()));

  const auto answers = ask_python(ours);
  ASSERT_EQ(answers.size(), ours.size());
  for (const auto& [name, bytes] : ours) {
    SCOPED_TRACE(name);
    const auto it = answers.find(name);
    ASSERT_NE(it, answers.end());
    EXPECT_EQ(spaced(it->second.theirs_hex), to_hex(bytes));  // packb gives mpk's bytes
    EXPECT_TRUE(it->second.read_ours);                        // unpackb reads mpk's bytes
    const auto theirs = hex(it->second.theirs_hex);           // mpk reads python's bytes
    bool same_values = false;
    if (name == "beer_map") {
      same_values = mpk_read<beer>(theirs) == b;
    } else if (name == "beer_array") {
      same_values = mpk_read<beer_row>(theirs) == row;
    } else if (name == "beer_list") {
      same_values = mpk_read<std::vector<beer>>(theirs) == list;
    } else if (name.starts_with("flat_")) {
      same_values = mpk_read<flat16>(theirs) == make_flat(std::stoi(name.substr(5)));
    } else if (name.starts_with("plain_order_")) {
      same_values = mpk_bytes(mpk_read<plain_order>(theirs)) == bytes;
    } else if (name == "choices") {
      const choices c = mpk_read<choices>(theirs);
      same_values =
          c.c == shade::dark_blue && c.ids.size() == 3 && std::get<std::string>(c.ids[0]) == "a" &&
          std::get<std::int64_t>(c.ids[1]) == 7 &&
          std::holds_alternative<std::monostate>(c.ids[2]) && c.user_id == 3 && c.ratio == 0.5;
    } else if (name.starts_with("order_")) {
      same_values = mpk_read<order>(theirs) == make_order(std::stoi(name.substr(6)));
    }
    EXPECT_TRUE(same_values);
  }
}

}  // namespace
