// Tests of mpk/ext/timestamp.hpp: exact bytes at every form boundary, reading every form,
// the errors, and the conversions to and from std::chrono.
#include "mpk/ext/timestamp.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "support/hex.hpp"

#if MPK_TEST_MSGPACK_CXX
#include <ctime>
#include <msgpack.hpp>
#endif
#ifdef MPK_TEST_PYTHON3
#include <cstdio>
#include <sstream>
#endif

namespace {

using mpk_test::hex;
using mpk_test::to_hex;
using namespace std::chrono;

constexpr std::int64_t two_32 = std::int64_t{1} << 32;
constexpr std::int64_t two_34 = std::int64_t{1} << 34;
constexpr std::int64_t i64_min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t i64_max = std::numeric_limits<std::int64_t>::max();

std::string written(mpk::timestamp ts) {
  mpk::buffer buf;
  mpk::writer w(buf);
  mpk::write_timestamp(w, ts);
  EXPECT_TRUE(w.ok()) << w.error().message();
  return to_hex(buf.bytes());
}

mpk::timestamp read_back(const std::vector<std::byte>& bytes, mpk::error* err = nullptr) {
  mpk::reader r(bytes);
  const mpk::timestamp ts = mpk::read_timestamp(r);
  if (err != nullptr) *err = r.error();
  if (r.ok()) {
    EXPECT_TRUE(r.at_end());
  }
  return ts;
}

struct vector_case {
  mpk::timestamp ts;
  const char* bytes;
};

// The spec's three forms at each boundary. (The same bytes msgpack-python's
// packb(Timestamp(s, ns)) gives; see also the msgpack-cxx differential below.)
const vector_case vectors[] = {
    {{0, 0}, "d6 ff 00 00 00 00"},
    {{1, 0}, "d6 ff 00 00 00 01"},
    {{two_32 - 1, 0}, "d6 ff ff ff ff ff"},
    {{two_32, 0}, "d7 ff 00 00 00 01 00 00 00 00"},
    {{0, 1}, "d7 ff 00 00 00 04 00 00 00 00"},
    {{two_32 - 1, 1}, "d7 ff 00 00 00 04 ff ff ff ff"},
    {{two_34 - 1, 0}, "d7 ff 00 00 00 03 ff ff ff ff"},
    {{two_34 - 1, 999999999}, "d7 ff ee 6b 27 ff ff ff ff ff"},
    {{1700000000, 123456789}, "d7 ff 1d 6f 34 54 65 53 f1 00"},
    {{two_34, 0}, "c7 0c ff 00 00 00 00 00 00 00 04 00 00 00 00"},
    {{-1, 0}, "c7 0c ff 00 00 00 00 ff ff ff ff ff ff ff ff"},
    {{-1, 999999999}, "c7 0c ff 3b 9a c9 ff ff ff ff ff ff ff ff ff"},
    {{i64_min, 0}, "c7 0c ff 00 00 00 00 80 00 00 00 00 00 00 00"},
    {{i64_max, 999999999}, "c7 0c ff 3b 9a c9 ff 7f ff ff ff ff ff ff ff"},
};

TEST(Timestamp, ExactBytesAtEveryFormBoundary) {
  for (const vector_case& v : vectors) {
    SCOPED_TRACE(std::to_string(v.ts.seconds) + "s " + std::to_string(v.ts.nanoseconds) + "ns");
    EXPECT_EQ(written(v.ts), v.bytes);
    mpk::error err;
    EXPECT_EQ(read_back(hex(v.bytes), &err), v.ts);
    EXPECT_FALSE(err);
  }
}

// Decoders accept every valid form, also one wider than needed.
TEST(Timestamp, ReadsNonMinimalForms) {
  EXPECT_EQ(read_back(hex("d7 ff 00 00 00 00 00 00 00 05")), (mpk::timestamp{5, 0}));
  EXPECT_EQ(read_back(hex("c7 0c ff 00 00 00 07 00 00 00 00 00 00 00 05")), (mpk::timestamp{5, 7}));
  EXPECT_EQ(read_back(hex("c7 04 ff 00 00 00 09")), (mpk::timestamp{9, 0}));  // ext8 of 4
  EXPECT_EQ(read_back(hex("c8 00 08 ff 00 00 00 00 00 00 00 09")), (mpk::timestamp{9, 0}));
}

TEST(Timestamp, ReadErrors) {
  struct bad {
    const char* bytes;
    mpk::errc code;
  };
  const bad cases[] = {
      {"2a", mpk::errc::type_mismatch},                 // an integer
      {"d6 01 00 00 00 00", mpk::errc::type_mismatch},  // ext 1, 4 bytes
      {"c7 0c fe 00 00 00 00 00 00 00 00 00 00 00 00", mpk::errc::type_mismatch},
      {"d4 ff 00", mpk::errc::invalid_timestamp},     // 1 byte
      {"d5 ff 00 00", mpk::errc::invalid_timestamp},  // 2 bytes
      {"d8 ff 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00", mpk::errc::invalid_timestamp},
      {"c7 00 ff", mpk::errc::invalid_timestamp},                       // empty
      {"c7 05 ff 00 00 00 00 00", mpk::errc::invalid_timestamp},        // 5 bytes
      {"d7 ff ee 6b 28 00 00 00 00 00", mpk::errc::invalid_timestamp},  // 10^9 ns, 64-bit
      {"d7 ff ff ff ff fc 00 00 00 00", mpk::errc::invalid_timestamp},  // 2^30 - 1 ns
      {"c7 0c ff 3b 9a ca 00 00 00 00 00 00 00 00 00", mpk::errc::invalid_timestamp},
      {"c7 0c ff ff ff ff ff 00 00 00 00 00 00 00 00", mpk::errc::invalid_timestamp},
      {"d7 ff 00 00", mpk::errc::truncated},
      {"c1", mpk::errc::invalid_marker},
  };
  for (const bad& c : cases) {
    SCOPED_TRACE(c.bytes);
    // Inside an array, so that the offset is the value's and not 0.
    std::vector<std::byte> msg = hex("92 c0");
    const std::vector<std::byte> v = hex(c.bytes);
    msg.insert(msg.end(), v.begin(), v.end());
    mpk::reader r(msg);
    (void)r.read_array_header();
    r.read_nil();
    EXPECT_EQ(mpk::read_timestamp(r), mpk::timestamp{});
    EXPECT_EQ(r.error(), (mpk::error{c.code, 2}));
    EXPECT_EQ(r.position(), 2u);  // consumed nothing
    EXPECT_EQ(r.read<int>(), 0);  // sticky
    EXPECT_EQ(r.error(), (mpk::error{c.code, 2}));
  }
}

TEST(Timestamp, UnknownExtensionsStayReadable) {
  // Not a timestamp: read_ext still gives the type and the bytes.
  const std::vector<std::byte> msg = hex("d6 05 01 02 03 04");
  mpk::reader r(msg);
  const mpk::ext_view e = r.read_ext();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(e.type, 5);
  EXPECT_EQ(to_hex(e.data), "01 02 03 04");
}

TEST(Timestamp, WriteRefusesNanosecondsOfASecondOrMore) {
  for (std::uint32_t ns : {1000000000u, 4294967295u}) {
    mpk::buffer buf;
    mpk::writer w(buf);
    w.write(1);
    mpk::write_timestamp(w, mpk::timestamp{0, ns});
    EXPECT_EQ(w.error(), (mpk::error{mpk::errc::invalid_timestamp, 1}));
    EXPECT_EQ(to_hex(buf.bytes()), "01");
  }
}

TEST(Timestamp, OrderIsChronological) {
  const mpk::timestamp order[] = {{i64_min, 0}, {-2, 999999999}, {-1, 0}, {-1, 1},
                                  {0, 0},       {0, 999999999},  {1, 0},  {two_34, 5}};
  for (std::size_t i = 0; i < std::size(order); ++i) {
    for (std::size_t j = 0; j < std::size(order); ++j) {
      EXPECT_EQ(order[i] < order[j], i < j) << i << " " << j;
      EXPECT_EQ(order[i] == order[j], i == j) << i << " " << j;
    }
  }
}

// --- chrono ------------------------------------------------------------------------------------

TEST(TimestampChrono, FromTimePoints) {
  EXPECT_EQ(mpk::to_timestamp(sys_time<nanoseconds>(nanoseconds(1'500'000'001))).value(),
            (mpk::timestamp{1, 500000001}));
  // Before 1970, the nanoseconds count forward from the second before.
  EXPECT_EQ(mpk::to_timestamp(sys_time<nanoseconds>(nanoseconds(-1))).value(),
            (mpk::timestamp{-1, 999999999}));
  EXPECT_EQ(mpk::to_timestamp(sys_time<nanoseconds>(nanoseconds(-1'000'000'000))).value(),
            (mpk::timestamp{-1, 0}));
  EXPECT_EQ(mpk::to_timestamp(sys_time<microseconds>(microseconds(-1))).value(),
            (mpk::timestamp{-1, 999999000}));
  EXPECT_EQ(mpk::to_timestamp(sys_time<milliseconds>(milliseconds(2'003))).value(),
            (mpk::timestamp{2, 3000000}));
  EXPECT_EQ(mpk::to_timestamp(sys_seconds(seconds(-7))).value(), (mpk::timestamp{-7, 0}));
  EXPECT_EQ(mpk::to_timestamp(sys_days(days(2))).value(), (mpk::timestamp{172800, 0}));
  EXPECT_EQ(mpk::to_timestamp(sys_time<nanoseconds>::max()).value(),
            (mpk::timestamp{i64_max / 1'000'000'000, i64_max % 1'000'000'000}));
  // An unsigned count beyond int64.
  using u64_ns = duration<std::uint64_t, std::nano>;
  EXPECT_EQ(mpk::to_timestamp(sys_time<u64_ns>(u64_ns(std::uint64_t{1} << 63))).error().code,
            mpk::errc::out_of_range);
  EXPECT_EQ(mpk::to_timestamp(sys_time<u64_ns>(u64_ns(5'000'000'001))).value(),
            (mpk::timestamp{5, 1}));
  // Days whose seconds overflow int64.
  EXPECT_EQ(mpk::to_timestamp(sys_days(days(i64_max / 1000))).error().code,
            mpk::errc::out_of_range);
  const auto now = system_clock::now();
  const mpk::timestamp t = mpk::to_timestamp(now).value();
  EXPECT_EQ(mpk::to_time_point(t).value(), now);
}

TEST(TimestampChrono, ToTimePoints) {
  EXPECT_EQ(mpk::to_time_point<nanoseconds>({1, 500000001}).value().time_since_epoch(),
            nanoseconds(1'500'000'001));
  EXPECT_EQ(mpk::to_time_point<nanoseconds>({-1, 999999999}).value().time_since_epoch(),
            nanoseconds(-1));
  // Finer than the duration: floor.
  EXPECT_EQ(mpk::to_time_point<microseconds>({-1, 999999999}).value().time_since_epoch(),
            microseconds(-1));
  EXPECT_EQ(mpk::to_time_point<seconds>({-1, 999999999}).value().time_since_epoch(), seconds(-1));
  EXPECT_EQ(mpk::to_time_point<days>({-1, 0}).value().time_since_epoch(), days(-1));
  EXPECT_EQ(mpk::to_time_point<days>({86400, 5}).value().time_since_epoch(), days(1));
  // The edges of nanoseconds in int64: about year 1677 and 2262.
  const std::int64_t max_s = i64_max / 1'000'000'000;  // 9223372036
  const auto max_ns = static_cast<std::uint32_t>(i64_max % 1'000'000'000);
  EXPECT_EQ(mpk::to_time_point<nanoseconds>({max_s, max_ns}).value(), sys_time<nanoseconds>::max());
  EXPECT_EQ(mpk::to_time_point<nanoseconds>({max_s, max_ns + 1}).error().code,
            mpk::errc::out_of_range);
  EXPECT_EQ(mpk::to_time_point<nanoseconds>({max_s + 1, 0}).error().code, mpk::errc::out_of_range);
  EXPECT_EQ(mpk::to_time_point<nanoseconds>({-max_s - 1, 0}).error().code, mpk::errc::out_of_range);
  EXPECT_EQ(mpk::to_time_point<nanoseconds>({i64_min, 0}).error().code, mpk::errc::out_of_range);
  EXPECT_EQ(mpk::to_time_point<seconds>({i64_min, 0}).value().time_since_epoch(), seconds(i64_min));
  EXPECT_EQ(mpk::to_time_point({0, 1000000000}).error().code, mpk::errc::invalid_timestamp);
}

TEST(TimestampChrono, WriteAndReadTimePoints) {
  const sys_time<nanoseconds> tp(nanoseconds(-1));
  mpk::buffer buf;
  mpk::writer w(buf);
  mpk::write_timestamp(w, tp);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(to_hex(buf.bytes()), "c7 0c ff 3b 9a c9 ff ff ff ff ff ff ff ff ff");
  mpk::reader r(buf.bytes());
  EXPECT_EQ(mpk::read_time_point<nanoseconds>(r), tp);
  EXPECT_TRUE(r.ok());

  // Seconds that do not fit the target: out_of_range at the value's offset.
  const std::vector<std::byte> far = hex("91 c7 0c ff 00 00 00 00 7f ff ff ff ff ff ff ff");
  mpk::reader r2(far);
  (void)r2.read_array_header();
  EXPECT_EQ(mpk::read_time_point(r2), system_clock::time_point{});
  EXPECT_EQ(r2.error(), (mpk::error{mpk::errc::out_of_range, 1}));

  // A duration that cannot hold the seconds on write.
  mpk::buffer buf2;
  mpk::writer w2(buf2);
  mpk::write_timestamp(w2, sys_days(days(i64_max / 1000)));
  EXPECT_EQ(w2.error().code, mpk::errc::out_of_range);
  EXPECT_EQ(buf2.size(), 0u);
}

#if MPK_TEST_MSGPACK_CXX
// The real peer: msgpack-cxx's timespec adaptor writes the same form for every boundary, and
// reads mpk's bytes back to the same time. Where time_t has 32 bits (i386), the boundaries
// beyond it cannot be given to the peer; those within it still are.
TEST(TimestampInterop, SameBytesAsMsgpackCxx) {
  std::size_t compared = 0;
  for (const vector_case& v : vectors) {
    if (static_cast<std::int64_t>(static_cast<time_t>(v.ts.seconds)) != v.ts.seconds) continue;
    ++compared;
    timespec spec{};
    spec.tv_sec = static_cast<time_t>(v.ts.seconds);
    spec.tv_nsec = static_cast<long>(v.ts.nanoseconds);
    msgpack::sbuffer sbuf;
    msgpack::pack(sbuf, spec);
    const std::vector<std::byte> theirs(
        reinterpret_cast<const std::byte*>(sbuf.data()),
        reinterpret_cast<const std::byte*>(sbuf.data()) + sbuf.size());
    SCOPED_TRACE(v.bytes);
    EXPECT_EQ(written(v.ts), to_hex(theirs));
    const std::string ours = written(v.ts);
    const std::vector<std::byte> ours_bytes = hex(ours);
    const msgpack::object_handle oh =
        msgpack::unpack(reinterpret_cast<const char*>(ours_bytes.data()), ours_bytes.size());
    const timespec back = oh.get().as<timespec>();
    EXPECT_EQ(back.tv_sec, spec.tv_sec);
    EXPECT_EQ(back.tv_nsec, spec.tv_nsec);
  }
  EXPECT_GE(compared, sizeof(time_t) >= 8 ? std::size(vectors) : 4u);
}
#endif

#ifdef MPK_TEST_PYTHON3
// The other real peer: msgpack-python packs each boundary's Timestamp to mpk's bytes, and
// unpacks mpk's bytes to the same seconds and nanoseconds.
TEST(TimestampInterop, SameBytesAsMsgpackPython) {
  std::string cmd = std::string(MPK_TEST_PYTHON3) +
                    " -c 'import msgpack, sys\n"
                    "for a in sys.argv[1:]:\n"
                    "    s, ns, ours = a.split(\":\")\n"
                    "    t = msgpack.unpackb(bytes.fromhex(ours))\n"
                    "    print(msgpack.packb(msgpack.Timestamp(int(s), int(ns))).hex(), "
                    "t.seconds, t.nanoseconds)\n'";
  for (const vector_case& v : vectors) {
    std::string ours = written(v.ts);
    std::erase(ours, ' ');
    cmd += " " + std::to_string(v.ts.seconds) + ":" + std::to_string(v.ts.nanoseconds) + ":" + ours;
  }
  std::FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char chunk[256];
  while (std::size_t n = std::fread(chunk, 1, sizeof chunk, pipe))
    out.append(chunk, n);
  ASSERT_EQ(pclose(pipe), 0) << "python3 with msgpack (Debian: python3-msgpack) failed: " << out;
  std::istringstream lines(out);
  for (const vector_case& v : vectors) {
    std::string theirs;
    std::int64_t s = 0;
    std::uint32_t ns = 0;
    ASSERT_TRUE(lines >> theirs >> s >> ns) << out;
    std::string expected = v.bytes;
    std::erase(expected, ' ');
    EXPECT_EQ(theirs, expected);
    EXPECT_EQ((mpk::timestamp{s, ns}), v.ts);
  }
}
#endif

}  // namespace
