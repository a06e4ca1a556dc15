// Tests of mpk/error.hpp: messages, error_code integration, result<T>.
#include <mpk/error.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace {

TEST(Error, EveryCodeHasADistinctMessage) {
  std::set<std::string> seen;
  for (int c = 0; c <= static_cast<int>(mpk::errc::invalid_argument); ++c) {
    const char* m = mpk::message(static_cast<mpk::errc>(c));
    ASSERT_NE(m, nullptr);
    EXPECT_GT(std::strlen(m), 5u);
    EXPECT_TRUE(seen.insert(m).second) << m;
  }
  EXPECT_STREQ(mpk::message(static_cast<mpk::errc>(200)), "unknown error");
}

TEST(Error, CarriesItsOffset) {
  mpk::error e{mpk::errc::truncated, 12};
  EXPECT_TRUE(e);
  EXPECT_EQ(e, mpk::errc::truncated);
  EXPECT_EQ(e.to_string(), "offset 12: input ends inside a value");
  EXPECT_FALSE(mpk::error{});
  EXPECT_EQ(mpk::error{}, mpk::errc::ok);
}

TEST(Error, IsAnErrorCodeEnum) {
  std::error_code ec = mpk::errc::out_of_range;
  EXPECT_EQ(ec.category().name(), std::string("mpk"));
  EXPECT_EQ(ec.message(), "value out of range for the target type");
  EXPECT_TRUE(ec);
}

TEST(Result, HoldsAValue) {
  mpk::result<int> r = 7;
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, 7);
  EXPECT_EQ(r.value(), 7);
  EXPECT_EQ(r.error(), mpk::errc::ok);
  int out = 0;
  EXPECT_FALSE(std::move(r).get(out));
  EXPECT_EQ(out, 7);
}

TEST(Result, HoldsAnError) {
  mpk::result<std::string> r = mpk::error{mpk::errc::type_mismatch, 3};
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, mpk::errc::type_mismatch);
  EXPECT_EQ(r.error().offset, 3u);
  EXPECT_EQ(r.value_or("fallback"), "fallback");
  std::string out = "untouched";
  EXPECT_EQ(std::move(r).get(out), mpk::errc::type_mismatch);
  EXPECT_EQ(out, "untouched");
}

TEST(Result, ValueOrMovesOutOfAnRvalue) {
  // A long string lives on the heap: moving it keeps the buffer, copying makes a new one.
  mpk::result<std::string> r = std::string(100, 'x');
  const char* heap = r->data();
  const std::string copied = r.value_or("fallback");
  EXPECT_NE(copied.data(), heap);
  EXPECT_EQ(copied, std::string(100, 'x'));
  const std::string moved = std::move(r).value_or({});
  EXPECT_EQ(moved.data(), heap);
  mpk::result<std::string> failed = mpk::errc::truncated;
  EXPECT_EQ(std::move(failed).value_or({}), "");
}

TEST(Result, ValueThrowsOnError) {
  mpk::result<int> r = mpk::errc::truncated;
  try {
    (void)r.value();
    FAIL() << "no exception";
  } catch (const mpk::exception& e) {
    EXPECT_EQ(e.error().code, mpk::errc::truncated);
    EXPECT_EQ(e.code(), mpk::errc::truncated);
  }
  mpk::result<void> v = mpk::errc::io_error;
  EXPECT_FALSE(v);
  EXPECT_THROW(v.value(), mpk::exception);
  mpk::result<void> fine;
  EXPECT_TRUE(fine);
  EXPECT_NO_THROW(fine.value());
}

TEST(Result, CopiesMovesAndAssigns) {
  mpk::result<std::unique_ptr<int>> a = std::make_unique<int>(5);
  mpk::result<std::unique_ptr<int>> b = std::move(a);
  ASSERT_TRUE(b);
  EXPECT_EQ(**b, 5);
  b = mpk::result<std::unique_ptr<int>>(mpk::errc::out_of_memory);
  EXPECT_FALSE(b);
  mpk::result<std::string> s1 = std::string("x");
  mpk::result<std::string> s2 = mpk::errc::truncated;
  s2 = s1;
  ASSERT_TRUE(s2);
  EXPECT_EQ(*s2, "x");
  s1 = mpk::result<std::string>(mpk::errc::truncated);
  s2 = s1;
  EXPECT_EQ(s2.error(), mpk::errc::truncated);
}

// A value whose copies (and moves) throw on demand, counting the live objects: a double
// destruction makes the count go negative (and ASan sees the string freed twice).
struct fragile {
  static inline int live = 0;
  static inline bool fail = false;
  std::string text;
  explicit fragile(std::string t) : text(std::move(t)) { ++live; }
  fragile(const fragile& o) : text(o.text) {
    if (fail) throw std::runtime_error("copy");
    ++live;
  }
  fragile(fragile&& o) : text(std::move(o.text)) {
    if (fail) throw std::runtime_error("move");
    ++live;
  }
  fragile& operator=(const fragile& o) {
    if (fail) throw std::runtime_error("copy assignment");
    text = o.text;
    return *this;
  }
  fragile& operator=(fragile&& o) {
    if (fail) throw std::runtime_error("move assignment");
    text = std::move(o.text);
    return *this;
  }
  ~fragile() { --live; }
};

TEST(Result, AssignmentWhoseCopyThrowsKeepsTheOldContents) {
  fragile::live = 0;
  {
    const mpk::result<fragile> value = fragile(std::string(40, 'v'));
    mpk::result<fragile> holds_error = mpk::error{mpk::errc::truncated, 9};
    fragile::fail = true;
    EXPECT_THROW(holds_error = value, std::runtime_error);  // an error replaced by a copy
    fragile::fail = false;
    mpk::result<fragile> spare = value;
    fragile::fail = true;
    EXPECT_THROW(holds_error = std::move(spare), std::runtime_error);  // ... by a move
    fragile::fail = false;
    ASSERT_FALSE(holds_error);
    EXPECT_EQ(holds_error.error(), (mpk::error{mpk::errc::truncated, 9}));  // strong guarantee
    EXPECT_EQ(fragile::live, 2);

    mpk::result<fragile> other = fragile(std::string(40, 'o'));
    fragile::fail = true;
    EXPECT_THROW(other = value, std::runtime_error);  // value over value: T's own guarantee
    fragile::fail = false;
    ASSERT_TRUE(other);
    EXPECT_EQ(other->text, std::string(40, 'o'));
    EXPECT_EQ(fragile::live, 3);

    mpk::result<fragile> moved_from = fragile(std::string(40, 'm'));
    holds_error = std::move(moved_from);  // a value over an error, by move
    ASSERT_TRUE(holds_error);
    EXPECT_EQ(holds_error->text, std::string(40, 'm'));
    EXPECT_EQ(fragile::live, 5);  // moved_from still holds a (moved-from) value
    other = mpk::errc::io_error;  // an error over a value: the value destroyed once
    EXPECT_EQ(other.error(), mpk::errc::io_error);
    EXPECT_EQ(fragile::live, 4);
  }
  EXPECT_EQ(fragile::live, 0);  // each object destroyed exactly once
}

// A result of a trivially copyable T is itself trivially copyable (copied with a memcpy,
// returned in registers) when mpk::error is; mpk::error holds unpack's shared note today, so
// neither is, and every result runs its members' special functions.
static_assert(std::is_trivially_copyable_v<mpk::result<int>> ==
              std::is_trivially_copyable_v<mpk::error>);
static_assert(std::is_trivially_copyable_v<mpk::result<std::pair<int, int>>> ==
              (std::is_trivially_copyable_v<std::pair<int, int>> &&
               std::is_trivially_copyable_v<mpk::error>));
static_assert(!std::is_trivially_copyable_v<mpk::result<std::string>>);
static_assert(std::is_nothrow_move_constructible_v<mpk::result<std::string>>);
static_assert(!std::is_nothrow_move_constructible_v<mpk::result<fragile>>);

}  // namespace
