// Tests of mpk/format.hpp: the first-byte table against the specification's ranges.
#include <mpk/format.hpp>

#include <gtest/gtest.h>

namespace {

TEST(Format, FixRangesAreArithmetic) {
  for (unsigned m = 0x00; m <= 0x7f; ++m)
    EXPECT_EQ(mpk::marker_table[m].family, mpk::type::uint);
  for (unsigned m = 0xe0; m <= 0xff; ++m)
    EXPECT_EQ(mpk::marker_table[m].family, mpk::type::sint);
  for (unsigned m = 0x80; m <= 0x8f; ++m) {
    EXPECT_EQ(mpk::marker_table[m].family, mpk::type::map);
    EXPECT_EQ(mpk::marker_table[m].inline_size, m - 0x80);
  }
  for (unsigned m = 0x90; m <= 0x9f; ++m) {
    EXPECT_EQ(mpk::marker_table[m].family, mpk::type::array);
    EXPECT_EQ(mpk::marker_table[m].inline_size, m - 0x90);
  }
  for (unsigned m = 0xa0; m <= 0xbf; ++m) {
    EXPECT_EQ(mpk::marker_table[m].family, mpk::type::str);
    EXPECT_EQ(mpk::marker_table[m].inline_size, m - 0xa0);
  }
}

TEST(Format, VariableLengthHeaders) {
  struct expect {
    unsigned m;
    mpk::type family;
    unsigned header, length, inline_size;
    const char* name;
  };
  const expect table[] = {
      {0xc0, mpk::type::nil, 1, 0, 0, "nil"},
      {0xc2, mpk::type::boolean, 1, 0, 0, "false"},
      {0xc4, mpk::type::bin, 2, 1, 0, "bin8"},
      {0xc6, mpk::type::bin, 5, 4, 0, "bin32"},
      {0xc7, mpk::type::ext, 3, 1, 0, "ext8"},
      {0xc9, mpk::type::ext, 6, 4, 0, "ext32"},
      {0xca, mpk::type::float32, 1, 0, 4, "float32"},
      {0xcb, mpk::type::float64, 1, 0, 8, "float64"},
      {0xcf, mpk::type::uint, 1, 0, 8, "uint64"},
      {0xd1, mpk::type::sint, 1, 0, 2, "int16"},
      {0xd4, mpk::type::ext, 2, 0, 1, "fixext1"},
      {0xd8, mpk::type::ext, 2, 0, 16, "fixext16"},
      {0xd9, mpk::type::str, 2, 1, 0, "str8"},
      {0xdb, mpk::type::str, 5, 4, 0, "str32"},
      {0xdc, mpk::type::array, 3, 2, 0, "array16"},
      {0xdf, mpk::type::map, 5, 4, 0, "map32"},
  };
  for (const auto& e : table) {
    const auto& info = mpk::marker_table[e.m];
    EXPECT_EQ(info.family, e.family) << e.name;
    EXPECT_EQ(info.header_size, e.header) << e.name;
    EXPECT_EQ(info.length_size, e.length) << e.name;
    EXPECT_EQ(info.inline_size, e.inline_size) << e.name;
    EXPECT_EQ(info.format_name, e.name);
  }
}

TEST(Format, NeverUsedIsInvalid) {
  EXPECT_EQ(mpk::marker_table[0xc1].family, mpk::type::invalid);
  int invalid = 0;
  for (const auto& info : mpk::marker_table)
    invalid += info.family == mpk::type::invalid;
  EXPECT_EQ(invalid, 1);
}

TEST(Format, TypeNames) {
  EXPECT_EQ(mpk::type_name(mpk::type::float64), "float64");
  EXPECT_EQ(mpk::type_name(mpk::type::invalid), "invalid");
  static_assert(mpk::marker_table[0xcd].inline_size == 2);
}

}  // namespace
