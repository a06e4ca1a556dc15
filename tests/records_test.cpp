// Tests of mpk/ext/records.hpp: exact bytes of msgpackr's record extension (the byte
// sequences below were observed from msgpackr 2.1.4), the three modes, two-byte ids, typed
// structs, and hostile definitions (clean errors with offsets, bounded memory).
#include <mpk/ext/records.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/hex.hpp"

namespace {

using mpk::errc;
using mpk_test::hex;
using mpk_test::to_hex;

/// The plain expansion of one message, as hex; or "error <code> at <offset>".
std::string expand(mpk::records_decoder& dec, const std::vector<std::byte>& in) {
  mpk::buffer out;
  auto end = dec.expand(in, 0, out);
  if (!end)
    return "error " + std::string(end.error().message()) + " at " +
           std::to_string(end.error().offset);
  if (*end != in.size()) return "stopped at " + std::to_string(*end);
  return to_hex(out.bytes());
}

std::string expand(const std::string& h, mpk::records_options o = {}) {
  mpk::records_decoder dec(o);
  return expand(dec, hex(h));
}

std::string error(errc code, std::size_t at) {
  return "error " + std::string(mpk::message(code)) + " at " + std::to_string(at);
}

// --- decoding ----------------------------------------------------------------------------------

TEST(records_decode, msgpackr_use_records_bytes) {
  // new Packr({useRecords: true}).pack([{a:1,b:'x'},{a:70,b:'y'},100,-5,300,70000])
  EXPECT_EQ(expand("96 d4 72 40 92 a1 61 a1 62 01 a1 78 40 cc 46 a1 79 cc 64 fb cd 01 2c ce 00 01 "
                   "11 70"),
            "96 82 a1 61 01 a1 62 a1 78 82 a1 61 cc 46 a1 62 a1 79 cc 64 fb cd 01 2c ce 00 01 "
            "11 70");
}

TEST(records_decode, undefined_one_byte_ids_are_integers) {
  EXPECT_EQ(expand("93 40 41 7f"), "93 40 41 7f");
  // defined: 0x40 is a record, 0x41 still an integer
  EXPECT_EQ(expand("93 d4 72 40 91 a1 61 01 40 02 41"), "93 81 a1 61 01 81 a1 61 02 41");
}

TEST(records_decode, redefinition_inside_its_own_instance) {
  // msgpackr reads {"a":{"b":2}}: the inner definition replaces 0x41 while the outer
  // instance still reads with its own keys.
  EXPECT_EQ(expand("d4 72 41 91 a1 61 d4 72 41 91 a1 62 02"), "81 a1 61 81 a1 62 02");
}

TEST(records_decode, per_message_and_sequential) {
  const auto first = hex("d4 72 40 91 a1 61 01");  // Packr({sequential: true}): {a:1}, {a:2}
  const auto second = hex("40 02");
  mpk::records_decoder seq({.mode = mpk::records_mode::sequential});
  EXPECT_EQ(expand(seq, first), "81 a1 61 01");
  EXPECT_EQ(expand(seq, second), "81 a1 61 02");
  seq.reset();
  EXPECT_EQ(expand(seq, second), "stopped at 1");  // 0x40 is the integer 64 again
  mpk::records_decoder per;
  EXPECT_EQ(expand(per, first), "81 a1 61 01");
  EXPECT_EQ(expand(per, second), "stopped at 1");
}

TEST(records_decode, shared_structures_load_save_and_one_byte_ids) {
  // msgpackr: structures = [["a","b"]] after Packr({structures}).pack({a:1,b:2}) -> 40 01 02;
  // pack(structures) -> 91 92 a1 61 a1 62
  auto shared = mpk::shared_structures::load(hex("91 92 a1 61 a1 62"));
  ASSERT_TRUE(shared.has_value());
  ASSERT_EQ(shared->size(), 1u);
  EXPECT_EQ((*shared)[0], (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(to_hex(shared->save()->bytes()), "91 92 a1 61 a1 62");
  EXPECT_EQ(expand("40 01 02", {.shared = &*shared}), "82 a1 61 01 a1 62 02");
  EXPECT_EQ(expand("41 01", {.shared = &*shared}), "stopped at 1");
  // a message may redefine a shared id; the next message has the shared one again
  mpk::records_decoder dec({.shared = &*shared});
  EXPECT_EQ(expand(dec, hex("92 d4 72 40 91 a1 7a 01 40 02")), "92 81 a1 7a 01 81 a1 7a 02");
  EXPECT_EQ(expand(dec, hex("40 01 02")), "82 a1 61 01 a1 62 02");
}

TEST(records_decode, shared_structures_errors) {
  EXPECT_EQ(mpk::shared_structures::load(hex("92 a1 61")).error(),
            (mpk::error{errc::type_mismatch, 1}));
  EXPECT_EQ(mpk::shared_structures::load(hex("91 91 01")).error(),
            (mpk::error{errc::type_mismatch, 2}));
  EXPECT_EQ(mpk::shared_structures::load(hex("91 90 c0")).error(),
            (mpk::error{errc::trailing_bytes, 2}));
  EXPECT_EQ(mpk::shared_structures::load(hex("dd 00 00 20 00")).error().code, errc::truncated);
}

mpk::shared_structures single_key_shapes(int n) {
  mpk::shared_structures s;
  for (int i = 0; i < n; ++i)
    EXPECT_TRUE(s.add({"k" + std::to_string(i)}).has_value());
  return s;
}

TEST(records_decode, two_byte_ids_beyond_32_shared_structures) {
  // Packr({structures, maxSharedStructures: 100}) writes structure 32 as `60 00`, 33 as
  // `61 00`, 64 as `60 01`, 69 as `65 01`; structures below 32 as one byte.
  const auto shared = single_key_shapes(70);
  const mpk::records_options o{.shared = &shared};
  EXPECT_EQ(expand("5f 05", o), "81 a3 6b 33 31 05");
  EXPECT_EQ(expand("60 00 05", o), "81 a3 6b 33 32 05");
  EXPECT_EQ(expand("61 00 05", o), "81 a3 6b 33 33 05");
  EXPECT_EQ(expand("60 01 cc 40", o), "81 a3 6b 36 34 cc 40");
  EXPECT_EQ(expand("65 01 05", o), "81 a3 6b 36 39 05");
  // an index that no structure holds
  EXPECT_EQ(expand("66 01 05", o), error(errc::out_of_range, 0));
  EXPECT_EQ(expand("60", o), error(errc::truncated, 0));
}

TEST(records_decode, two_byte_definitions_set_the_width_of_their_first_byte) {
  // msgpackr reads `60 01` as the integer 96 here (slot 32 is not defined): mpk follows the
  // definition, `d5 72 60 01` = index 64.
  EXPECT_EQ(expand("92 d5 72 60 01 91 a1 61 01 60 01 02"), "92 81 a1 61 01 81 a1 61 02");
  // msgpackr reads the one-byte structure of slot 32 here (and the 01 as its value); mpk:
  // the last definition with first byte 0x60 was two-byte, so `60 01` is index 64.
  EXPECT_EQ(expand("93 d4 72 60 91 a1 62 05 d5 72 60 01 91 a1 61 01 60 01 02"),
            "93 81 a1 62 05 81 a1 61 01 81 a1 61 02");
  // and a later one-byte definition makes 0x60 one byte again
  EXPECT_EQ(expand("93 d5 72 60 01 91 a1 61 01 d4 72 60 91 a1 62 05 60 06"),
            "93 81 a1 61 01 81 a1 62 05 81 a1 62 06");
  // a two-byte id that is not defined, once its first byte is two-byte
  EXPECT_EQ(expand("92 d5 72 60 01 91 a1 61 01 60 02 07"), error(errc::out_of_range, 9));
}

TEST(records_decode, hostile_definitions) {
  EXPECT_EQ(expand("d4 72 3f 90"), error(errc::out_of_range, 0));         // id below 0x40
  EXPECT_EQ(expand("d4 72 80 90"), error(errc::out_of_range, 0));         // id above 0x7f
  EXPECT_EQ(expand("d5 72 41 05 90"), error(errc::out_of_range, 0));      // two-byte below 0x60
  EXPECT_EQ(expand("d4 72 41 a1 61 01"), error(errc::type_mismatch, 3));  // keys not an array
  EXPECT_EQ(expand("d4 72 41 91 01 05"), error(errc::type_mismatch, 4));  // non-str key
  EXPECT_EQ(expand("d4 72 41 91 91 a1 61 05"), error(errc::type_mismatch, 4));
  EXPECT_EQ(expand("d4 72"), error(errc::truncated, 0));
  EXPECT_EQ(expand("d5 72 60"), error(errc::truncated, 0));
  EXPECT_EQ(expand("d4 72 41 92 a1 61"), error(errc::truncated, 6));
  EXPECT_EQ(expand("d4 72 41 dd ff ff ff ff"), error(errc::limit_exceeded, 3));  // huge key count
  EXPECT_EQ(expand("d4 72 41 dc ff ff a1 61"), error(errc::truncated, 3));
  EXPECT_EQ(expand("d4 72 41 dc 00 03 a1 61 a1 62 a1 63", {.read = {.limits = {.max_map_len = 2}}}),
            error(errc::limit_exceeded, 3));
  EXPECT_EQ(expand("d4 72 41 91 a2 61", {}), error(errc::truncated, 4));
  EXPECT_EQ(expand("d4 72 41 93 a1 61 a1 62 a1 63 01"), error(errc::truncated, 0));  // values
  EXPECT_EQ(expand("d4 72 41 91 a1 61 c1"), error(errc::invalid_marker, 6));
  // Depth: records nested in records count as maps.
  std::string deep = "d4 72 40 91 a1 61";
  for (int i = 0; i < 600; ++i)
    deep += " 40";
  deep += " c0";
  EXPECT_EQ(expand(deep), error(errc::depth_exceeded, 6 + 511));
  EXPECT_EQ(expand(deep, {.read = {.limits = mpk::limits::trusted()}}).substr(0, 12),
            "81 a1 61 81 ");
}

TEST(records_decode, a_failed_definition_leaves_the_table_as_it_was) {
  mpk::records_decoder dec({.mode = mpk::records_mode::sequential});
  EXPECT_EQ(expand(dec, hex("d4 72 40 91 a1 61 01")), "81 a1 61 01");
  EXPECT_EQ(expand(dec, hex("d4 72 40 91 05 01")), error(errc::type_mismatch, 4));
  EXPECT_EQ(expand(dec, hex("40 03")), "81 a1 61 03");
}

TEST(records_decode, expansion_is_bounded) {
  // A definition with one 1000-byte key, then 2000 instances of one byte each: each
  // instance would expand to 1004 bytes.
  std::string h = "dc 07 d0 d4 72 40 91 da 03 e8";
  for (int i = 0; i < 1000; ++i)
    h += " 6b";
  h += " c0";
  for (int i = 1; i < 2000; ++i)
    h += " 40 c0";
  const auto in = hex(h);
  mpk::records_decoder dec;
  mpk::buffer out;
  auto r = dec.expand(in, 0, out);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, errc::limit_exceeded);
  EXPECT_LE(out.size(), in.size() * 16 + 4096);
  // a larger bound lets it through
  mpk::records_decoder big({.max_expansion = 1000});
  mpk::buffer out2;
  ASSERT_TRUE(big.expand(in, 0, out2).has_value());
  EXPECT_EQ(out2.size(), 3 + 2000 * (1 + 3 + 1000 + 1));
}

TEST(records_decode, documents_and_values) {
  mpk::records_decoder dec;
  const auto in = hex("92 d4 72 40 92 a1 61 a1 62 01 a1 78 40 cc 46 a1 79");
  auto doc = dec.parse(in);
  ASSERT_TRUE(doc.has_value());
  EXPECT_EQ(doc->root()[1]["a"].as<int>().value(), 70);
  EXPECT_EQ(doc->root()[1]["b"].as<std::string>().value(), "y");
  auto v = dec.read_value(in);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(*v, mpk::value::array({mpk::value::map({{"a", 1}, {"b", "x"}}),
                                   mpk::value::map({{"a", 70}, {"b", "y"}})}));
  auto trailing = hex("c0 c0");
  EXPECT_EQ(dec.parse(trailing).error(), (mpk::error{errc::trailing_bytes, 1}));
}

// --- encoding ----------------------------------------------------------------------------------

std::string encode(mpk::records_encoder& enc, const mpk::value& v) {
  auto out = enc.encode(v);
  EXPECT_TRUE(out.has_value());
  return out ? to_hex(out->bytes()) : "";
}

TEST(records_encode, equals_msgpackr_bytes) {
  mpk::records_encoder enc;
  const mpk::value v =
      mpk::value::array({mpk::value::map({{"a", 1}, {"b", "x"}}),
                         mpk::value::map({{"a", 70}, {"b", "y"}}), 100, -5, 300, 70000});
  // new Packr({useRecords: true}).pack(the same) gives these bytes
  EXPECT_EQ(encode(enc, v),
            "96 d4 72 40 92 a1 61 a1 62 01 a1 78 40 cc 46 a1 79 cc 64 fb cd 01 2c ce 00 01 11 70");
}

TEST(records_encode, integers_64_to_255_as_uint8) {
  mpk::records_encoder enc;
  EXPECT_EQ(encode(enc, mpk::value::array({63, 64, 127, 128, 255, 256, -1})),
            "97 3f cc 40 cc 7f cc 80 cc ff cd 01 00 ff");
}

TEST(records_encode, positive_integers_of_signed_formats_too) {
  // int8 84 from a document: still written as cc 54, never as the id byte 0x54
  const auto in = hex("92 d0 54 d1 00 ff");
  auto doc = mpk::document::parse(in);
  ASSERT_TRUE(doc.has_value());
  mpk::records_encoder enc;
  EXPECT_EQ(to_hex(enc.encode(doc->root())->bytes()), "92 cc 54 cc ff");
}

TEST(records_encode, maps_with_other_keys_stay_maps) {
  mpk::records_encoder enc;
  EXPECT_EQ(encode(enc, mpk::value::map({{1, 2}, {"a", 3}})), "82 01 02 a1 61 03");
  EXPECT_EQ(encode(enc, mpk::value::map()), "d4 72 40 90");
}

TEST(records_encode, modes) {
  const mpk::value v = mpk::value::map({{"a", 1}});
  mpk::records_encoder per;
  EXPECT_EQ(encode(per, v), "d4 72 40 91 a1 61 01");
  EXPECT_EQ(encode(per, v), "d4 72 40 91 a1 61 01");
  mpk::records_encoder seq({.mode = mpk::records_mode::sequential});
  EXPECT_EQ(encode(seq, v), "d4 72 40 91 a1 61 01");
  EXPECT_EQ(encode(seq, v), "40 01");
  seq.reset();
  EXPECT_EQ(encode(seq, v), "d4 72 40 91 a1 61 01");
  mpk::shared_structures shared;
  ASSERT_TRUE(shared.add({"a"}).has_value());
  mpk::records_encoder sh({.shared = &shared});
  EXPECT_EQ(encode(sh, v), "40 01");
  EXPECT_EQ(encode(sh, mpk::value::map({{"b", 1}})), "d4 72 41 91 a1 62 01");
}

TEST(records_encode, own_ids_cycle_after_64_shapes) {
  mpk::records_encoder enc;
  mpk::value list = mpk::value::array();
  for (int i = 0; i < 66; ++i) {
    mpk::value o = mpk::value::map();
    o.assign(
        std::string(1, static_cast<char>(i < 26 ? 'a' + i : 'A' + i - 26 + 0)) + std::to_string(i),
        1);
    list.push_back(std::move(o));
  }
  list.push_back(list.at(0) ? *list.at(0) : mpk::value());
  list.push_back(list.at(65) ? *list.at(65) : mpk::value());
  auto out = enc.encode(list);
  ASSERT_TRUE(out.has_value());
  // 64 definitions with ids 0x40..0x7f, then 0x40 and 0x41 defined again; shape 0 was
  // replaced, so it is defined again (as 0x42), and shape 65 is 0x41.
  mpk::records_decoder dec;
  auto back = dec.read_value(out->bytes());
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, list);
  const std::string h = to_hex(out->bytes());
  EXPECT_NE(h.find("d4 72 7f"), std::string::npos);
  EXPECT_EQ(h.substr(h.size() - 5), "41 01");
  EXPECT_NE(h.find("d4 72 42 91"), std::string::npos);
}

TEST(records_encode, two_byte_ids_after_more_than_32_shared_structures) {
  const auto shared = single_key_shapes(40);
  mpk::records_encoder enc({.shared = &shared});
  EXPECT_EQ(encode(enc, mpk::value::map({{"k33", 1}})), "61 00 01");
  EXPECT_EQ(encode(enc, mpk::value::map({{"k3", 1}})), "43 01");
  // own definitions take two-byte ids from index 40 on: 0x60 + 8, 0
  EXPECT_EQ(encode(enc, mpk::value::map({{"z", 1}})), "d5 72 68 00 91 a1 7a 01");
  mpk::records_decoder dec({.shared = &shared});
  EXPECT_EQ(expand(dec, hex("92 d5 72 68 00 91 a1 7a 01 68 00 02")), "92 81 a1 7a 01 81 a1 7a 02");
}

// --- typed -------------------------------------------------------------------------------------

struct point {
  int x = 0;
  int y = 0;
  friend bool operator==(const point&, const point&) = default;
};
MPK_MAP(point, x, y);

struct shape {
  std::string name;
  std::vector<point> points;
  std::optional<std::uint8_t> weight;
  friend bool operator==(const shape&, const shape&) = default;
};
MPK_MAP(shape, name, points, weight);

TEST(records_typed, structs_are_natural_records) {
  mpk::records_encoder enc;
  const point p{100, 2};
  auto out = mpk::pack_records(enc, std::vector<point>{p, {3, 4}});
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(to_hex(out->bytes()), "92 d4 72 40 92 a1 78 a1 79 cc 64 02 40 03 04");
  mpk::records_decoder dec;
  auto back = mpk::unpack_records<std::vector<point>>(dec, out->bytes());
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, (std::vector<point>{p, {3, 4}}));
}

TEST(records_typed, sequential_typed_ids_persist) {
  mpk::records_encoder enc({.mode = mpk::records_mode::sequential});
  EXPECT_EQ(to_hex(mpk::pack_records(enc, point{1, 2})->bytes()), "d4 72 40 92 a1 78 a1 79 01 02");
  EXPECT_EQ(to_hex(mpk::pack_records(enc, point{3, 4})->bytes()), "40 03 04");
  mpk::records_encoder per;
  EXPECT_EQ(to_hex(mpk::pack_records(per, point{1, 2})->bytes()), "d4 72 40 92 a1 78 a1 79 01 02");
  EXPECT_EQ(to_hex(mpk::pack_records(per, point{1, 2})->bytes()), "d4 72 40 92 a1 78 a1 79 01 02");
}

TEST(records_typed, keys_in_another_order_unknown_and_missing) {
  mpk::records_decoder dec;
  // {y: 5, x: 6}
  auto p = mpk::unpack_records<point>(dec, hex("d4 72 40 92 a1 79 a1 78 05 06"));
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(*p, (point{6, 5}));
  // an unknown key z (its value a record, skipped but defined) and a missing y
  const auto in = hex("92 d4 72 40 92 a1 78 a1 7a 07 d4 72 41 91 a1 71 01 40 08 41 09");
  auto v = mpk::unpack_records<std::vector<point>>(dec, in);
  ASSERT_TRUE(v.has_value()) << v.error().to_string();
  EXPECT_EQ(*v, (std::vector<point>{{7, 0}, {8, 0}}));
  auto strict = mpk::unpack_records<std::vector<point>>(dec, in, {.strict = true});
  EXPECT_EQ(strict.error(), (mpk::error{errc::unknown_key, 1}));
  auto missing = mpk::unpack_records<point>(dec, hex("d4 72 40 91 a1 78 07"), {.strict = true});
  EXPECT_EQ(missing.error(), (mpk::error{errc::missing_key, 0}));
}

TEST(records_typed, plain_maps_and_nested_structs) {
  mpk::records_decoder dec;
  const shape s{"tri", {{1, 2}, {3, 4}, {5, 6}}, 200};
  mpk::records_encoder enc;
  auto out = mpk::pack_records(enc, s);
  ASSERT_TRUE(out.has_value());
  auto back = mpk::unpack_records<shape>(dec, out->bytes());
  ASSERT_TRUE(back.has_value()) << back.error().to_string();
  EXPECT_EQ(*back, s);
  // the same as plain MessagePack
  auto plain = mpk::pack(s);
  auto back2 = mpk::unpack_records<shape>(dec, plain->bytes());
  ASSERT_TRUE(back2.has_value());
  EXPECT_EQ(*back2, s);
  // nil weight
  auto none = mpk::unpack_records<shape>(dec, hex("83 a4 6e 61 6d 65 a0 a6 70 6f 69 6e 74 73 90 a6 "
                                                  "77 65 69 67 68 74 c0"));
  ASSERT_TRUE(none.has_value());
  EXPECT_FALSE(none->weight.has_value());
}

TEST(records_typed, a_record_where_a_number_is_expected) {
  mpk::records_decoder dec;
  // [record {x}, then 0x40 (defined now) where point.y, an int, is expected]
  auto r = mpk::unpack_records<point>(dec, hex("d4 72 40 92 a1 78 a1 79 01 40 01 02"));
  EXPECT_EQ(r.error(), (mpk::error{errc::type_mismatch, 9}));
  // undefined: 0x41 is the integer 65
  auto ok = mpk::unpack_records<point>(dec, hex("d4 72 40 92 a1 78 a1 79 01 41"));
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(ok->y, 65);
}

TEST(records_typed, other_types_through_their_codec) {
  mpk::records_decoder dec;
  // a std::map<std::string, point>: a plain map whose values are records
  const auto in = hex("82 a1 61 d4 72 40 92 a1 78 a1 79 01 02 a1 62 40 03 04");
  auto m = mpk::unpack_records<std::map<std::string, point>>(dec, in);
  ASSERT_TRUE(m.has_value()) << m.error().to_string();
  EXPECT_EQ(m->at("a"), (point{1, 2}));
  EXPECT_EQ(m->at("b"), (point{3, 4}));
  mpk::records_encoder enc;
  auto out = mpk::pack_records(enc, *m);
  ASSERT_TRUE(out.has_value());
  // a map with str keys is a record too (msgpackr reads a JavaScript object either way)
  EXPECT_EQ(to_hex(out->bytes()), "d4 72 40 92 a1 61 a1 62 d4 72 41 92 a1 78 a1 79 01 02 41 03 04");
}

struct label {
  std::string_view text;
  std::string copy;
};
MPK_MAP(label, text, copy);

TEST(records_typed, utf8_checks) {
  const auto bad_view = hex("d4 72 40 92 a4 74 65 78 74 a4 63 6f 70 79 a2 c3 28 a0");
  const auto bad_copy = hex("d4 72 40 92 a4 74 65 78 74 a4 63 6f 70 79 a0 a2 c3 28");
  mpk::records_decoder owned;
  EXPECT_TRUE(mpk::unpack_records<label>(owned, bad_view).has_value());
  EXPECT_EQ(mpk::unpack_records<label>(owned, bad_copy).error(),
            (mpk::error{errc::invalid_utf8, 15}));
  mpk::records_decoder all({.read = {.utf8 = mpk::utf8_check::all}});
  EXPECT_EQ(mpk::unpack_records<label>(all, bad_view).error(),
            (mpk::error{errc::invalid_utf8, 14}));
  mpk::records_decoder none({.read = {.utf8 = mpk::utf8_check::none}});
  EXPECT_TRUE(mpk::unpack_records<label>(none, bad_copy).has_value());
  const auto good = hex("d4 72 40 92 a4 74 65 78 74 a4 63 6f 70 79 a2 c3 a9 a6 68 c3 a9 6c 6c 6f");
  auto ok = mpk::unpack_records<label>(all, good);  // text: a view into `good`
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(ok->text, "\xc3\xa9");
  EXPECT_EQ(ok->copy, "h\xc3\xa9llo");
}

TEST(records_typed, hostile_input_errors) {
  mpk::records_decoder dec;
  EXPECT_EQ(mpk::unpack_records<point>(dec, hex("d4 72 40 dc ff ff a1 61")).error(),
            (mpk::error{errc::truncated, 3}));
  EXPECT_EQ(mpk::unpack_records<point>(dec, hex("d4 72 40 92 a1 78 a1 79 01")).error().code,
            errc::truncated);
  EXPECT_EQ(mpk::unpack_records<point>(dec, hex("66 01")).error(),
            (mpk::error{errc::type_mismatch, 0}));
  std::string deep = "d4 72 40 91 a1 61";
  for (int i = 0; i < 600; ++i)
    deep += " 40";
  deep += " c0";
  EXPECT_EQ(mpk::unpack_records<mpk::value>(dec, hex(deep)).error().code, errc::depth_exceeded);
}

// --- repeated definitions (each message of per-message records) -----------------------------

TEST(records_decode, a_repeated_definition_is_compared_whole) {
  mpk::records_decoder dec;  // per message: every message defines id 0x40 again
  // the same keys: the definition is reused (its typed maps too)
  EXPECT_EQ(expand(dec, hex("d4 72 40 92 a1 61 a1 62 01 02")), "82 a1 61 01 a1 62 02");
  EXPECT_EQ(expand(dec, hex("d4 72 40 92 a1 61 a1 62 03 04")), "82 a1 61 03 a1 62 04");
  // the same count, other keys; then a longer second key
  EXPECT_EQ(expand(dec, hex("d4 72 40 92 a1 61 a1 63 05 06")), "82 a1 61 05 a1 63 06");
  EXPECT_EQ(expand(dec, hex("d4 72 40 92 a1 61 a2 63 64 07 08")), "82 a1 61 07 a2 63 64 08");
  // the same keys with a non-minimal header (str8): parsed, the same keys
  EXPECT_EQ(expand(dec, hex("d4 72 40 92 d9 01 61 a2 63 64 09 0a")), "82 a1 61 09 a2 63 64 0a");
  // fewer keys than stored, then bytes that end inside the stored keys
  EXPECT_EQ(expand(dec, hex("d4 72 40 91 a1 61 0b")), "81 a1 61 0b");
  EXPECT_EQ(expand(dec, hex("d4 72 40 92 a1 61 a2 63 64 0c 0d")), "82 a1 61 0c a2 63 64 0d");
  EXPECT_EQ(expand(dec, hex("d4 72 40 92 a1 61 a2 63")), error(errc::truncated, 6));
  EXPECT_EQ(expand(dec, hex("d4 72 40 92 a1 61 a2 63 64 0e 0f")), "82 a1 61 0e a2 63 64 0f");
}

TEST(records_typed, repeated_definitions_into_structs) {
  mpk::records_decoder dec;
  for (int i = 0; i < 3; ++i) {
    auto p = mpk::unpack_records<point>(dec, hex("d4 72 40 92 a1 78 a1 79 05 06"));
    ASSERT_TRUE(p.has_value());
    EXPECT_EQ(*p, (point{5, 6}));
  }
  // the same id, the keys swapped: the typed mapping follows the new definition
  auto swapped = mpk::unpack_records<point>(dec, hex("d4 72 40 92 a1 79 a1 78 05 06"));
  ASSERT_TRUE(swapped.has_value());
  EXPECT_EQ(*swapped, (point{6, 5}));
  auto again = mpk::unpack_records<point>(dec, hex("d4 72 40 92 a1 78 a1 79 05 06"));
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(*again, (point{5, 6}));
}

struct tagged {
  std::vector<std::string> tags;
  friend bool operator==(const tagged&, const tagged&) = default;
};
MPK_MAP(tagged, tags);

TEST(records_typed, vectors_of_strings_in_place_and_checked) {
  mpk::records_encoder enc;
  const std::string long_tag(64, 't');
  const tagged three{{long_tag, "b", "c"}};
  auto bytes = mpk::pack_records(enc, three);
  ASSERT_TRUE(bytes.has_value());
  mpk::records_decoder dec;
  tagged out{{std::string(100, 'x'), "y", "z", "w"}};
  const char* const first = out.tags[0].data();
  auto end = mpk::unpack_records(dec, bytes->bytes(), 0, out);
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(out, three);
  EXPECT_EQ(out.tags[0].data(), first);  // overwritten in place: its capacity reused
  const tagged five{{"1", "2", "3", "4", long_tag}};
  auto more = mpk::pack_records(enc, five);
  ASSERT_TRUE(more.has_value());
  ASSERT_TRUE(mpk::unpack_records(dec, more->bytes(), 0, out).has_value());
  EXPECT_EQ(out, five);
  // invalid UTF-8 in an element: the offset of its str
  const auto bad = hex("d4 72 40 91 a4 74 61 67 73 92 a1 61 a2 c3 28");
  EXPECT_EQ(mpk::unpack_records<tagged>(dec, bad).error(), (mpk::error{errc::invalid_utf8, 12}));
}

// --- the straight-line path of definitions in declaration order ------------------------------

/// The struct type whose instances the definition of one-byte id `id` reads straight-line
/// (keys = its fields in declaration order), or nullptr (or "undefined").
template <class T>
std::string straight_line(mpk::records_decoder& dec, std::uint8_t id) {
  const std::byte b{id};
  const mpk::detail::record_ref r = dec.table().lookup(&b, &b + 1);
  if (r.def == nullptr) return "undefined";
  if (r.def->ordered == nullptr) return "none";
  return r.def->ordered == &mpk::detail::rec::type_key<T> ? "this type" : "another type";
}

TEST(records_shapes, declaration_order_is_read_straight_line) {
  mpk::records_decoder dec;
  // [{x:1,y:2}, {x:3,y:4}, {x:5,y:6}]: the definition, then two instances of 0x40
  const auto in = hex("93 d4 72 40 92 a1 78 a1 79 01 02 40 03 04 40 05 06");
  auto v = mpk::unpack_records<std::vector<point>>(dec, in);
  ASSERT_TRUE(v.has_value()) << v.error().to_string();
  EXPECT_EQ(*v, (std::vector<point>{{1, 2}, {3, 4}, {5, 6}}));
  EXPECT_EQ(straight_line<point>(dec, 0x40), "this type");
  // the next message repeats the definition (per message): kept, its first instance too
  auto again = mpk::unpack_records<std::vector<point>>(dec, hex("92 d4 72 40 92 a1 78 a1 79 07 08 "
                                                                "40 09 0a"));
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(*again, (std::vector<point>{{7, 8}, {9, 10}}));
  EXPECT_EQ(straight_line<point>(dec, 0x40), "this type");
  // strict mode: nothing missing, nothing unknown
  auto strict = mpk::unpack_records<std::vector<point>>(dec, in, {.strict = true});
  ASSERT_TRUE(strict.has_value());
  EXPECT_EQ(strict->back(), (point{5, 6}));
  // errors inside a straight-line instance keep their offsets
  EXPECT_EQ(mpk::unpack_records<std::vector<point>>(dec, hex("92 d4 72 40 92 a1 78 a1 79 01 02 40 "
                                                             "03 a1 7a"))
                .error(),
            (mpk::error{errc::type_mismatch, 13}));
  EXPECT_EQ(mpk::unpack_records<std::vector<point>>(dec, hex("92 d4 72 40 92 a1 78 a1 79 01 02 40 "
                                                             "03"))
                .error(),
            (mpk::error{errc::truncated, 13}));
}

TEST(records_shapes, other_orders_and_key_sets_take_the_general_path) {
  mpk::records_decoder dec;
  struct want {
    const char* bytes;
    point value;
    std::optional<errc> strict_error;  // at offset 0, the record
  };
  const want cases[] = {
      {"d4 72 40 92 a1 79 a1 78 01 02", {2, 1}, std::nullopt},                   // reordered
      {"d4 72 40 91 a1 79 03", {0, 3}, errc::missing_key},                       // subset
      {"d4 72 40 93 a1 78 a1 79 a1 7a 04 05 06", {4, 5}, errc::unknown_key},     // + unknown z
      {"d4 72 40 93 a1 7a a1 78 a1 79 91 07 08 09", {8, 9}, errc::unknown_key},  // z first
      {"d4 72 40 92 a1 78 a1 78 0a 0b", {11, 0}, errc::duplicate_key},           // x twice
      {"d4 72 40 93 a1 78 a1 79 a1 78 0c 0d 0e", {14, 13}, errc::duplicate_key},
  };
  for (const want& w : cases) {
    SCOPED_TRACE(w.bytes);
    auto p = mpk::unpack_records<point>(dec, hex(w.bytes));
    ASSERT_TRUE(p.has_value()) << p.error().to_string();
    EXPECT_EQ(*p, w.value);
    EXPECT_EQ(straight_line<point>(dec, 0x40), "none");
    auto strict = mpk::unpack_records<point>(dec, hex(w.bytes), {.strict = true});
    if (w.strict_error)
      EXPECT_EQ(strict.error(), (mpk::error{*w.strict_error, 0}));
    else
      EXPECT_TRUE(strict.has_value());
  }
}

struct pair_of {
  point first;
  point second;
  friend bool operator==(const pair_of&, const pair_of&) = default;
};
MPK_MAP(pair_of, first, second);

TEST(records_shapes, a_redefinition_invalidates_the_shape) {
  mpk::records_decoder dec;
  // in one message: 0x40 = [x, y] (straight-line), then redefined as [y, x], then as [x, y]
  const auto in =
      hex("95 d4 72 40 92 a1 78 a1 79 01 02 40 03 04 d4 72 40 92 a1 79 a1 78 05 06 "
          "40 07 08 d4 72 40 92 a1 78 a1 79 09 0a");
  auto v = mpk::unpack_records<std::vector<point>>(dec, in);
  ASSERT_TRUE(v.has_value()) << v.error().to_string();
  EXPECT_EQ(*v, (std::vector<point>{{1, 2}, {3, 4}, {6, 5}, {8, 7}, {9, 10}}));
  // redefined inside a straight-line instance (sequential: pair_of's shape is cached from
  // the first message): the first pair's first member redefines 0x40 as point's [x, y]; the
  // second pair, 0x40 again, is then a record without any key of pair_of (skipped)
  auto run = [](bool strict) {
    mpk::records_decoder seq({.mode = mpk::records_mode::sequential});
    auto first = mpk::unpack_records<pair_of>(
        seq, hex("d4 72 40 92 a5 66 69 72 73 74 a6 73 65 63 6f 6e 64 80 80"));
    EXPECT_TRUE(first.has_value());
    EXPECT_EQ(straight_line<pair_of>(seq, 0x40), "this type");
    auto pairs = mpk::unpack_records<std::vector<pair_of>>(
        seq, hex("92 40 d4 72 40 92 a1 78 a1 79 01 02 40 03 04 40 05 06"), {.strict = strict});
    EXPECT_EQ(straight_line<point>(seq, 0x40), "this type");
    return pairs;
  };
  auto pairs = run(false);
  ASSERT_TRUE(pairs.has_value()) << pairs.error().to_string();
  EXPECT_EQ(*pairs, (std::vector<pair_of>{{{1, 2}, {3, 4}}, {}}));
  EXPECT_EQ(run(true).error(), (mpk::error{errc::unknown_key, 15}));
}

TEST(records_shapes, sequential_ids_reused_with_another_definition) {
  mpk::records_decoder dec({.mode = mpk::records_mode::sequential});
  auto read = [&](const char* h) {
    auto p = mpk::unpack_records<point>(dec, hex(h));
    return p ? *p : point{-1, -1};
  };
  EXPECT_EQ(read("d4 72 40 92 a1 78 a1 79 01 02"), (point{1, 2}));
  EXPECT_EQ(read("40 03 04"), (point{3, 4}));
  EXPECT_EQ(straight_line<point>(dec, 0x40), "this type");
  EXPECT_EQ(read("d4 72 40 92 a1 79 a1 78 05 06"), (point{6, 5}));
  EXPECT_EQ(straight_line<point>(dec, 0x40), "none");
  EXPECT_EQ(read("40 07 08"), (point{8, 7}));
  EXPECT_EQ(read("d4 72 40 91 a1 78 09"), (point{9, 0}));
  EXPECT_EQ(read("40 0a"), (point{10, 0}));
  EXPECT_EQ(read("d4 72 40 92 a1 78 a1 79 0b 0c"), (point{11, 12}));
  EXPECT_EQ(read("40 0d 0e"), (point{13, 14}));
  EXPECT_EQ(straight_line<point>(dec, 0x40), "this type");
  dec.reset();
  EXPECT_EQ(straight_line<point>(dec, 0x40), "undefined");
  EXPECT_EQ(read("40 0d 0e"), (point{-1, -1}));  // 0x40 is the integer 64: not a point
}

struct point_too {  // point's keys, another type
  long x = 0;
  long y = 0;
  friend bool operator==(const point_too&, const point_too&) = default;
};
MPK_MAP(point_too, x, y);

TEST(records_shapes, two_types_with_the_same_keys_share_a_definition) {
  mpk::records_decoder dec({.mode = mpk::records_mode::sequential});
  auto p = mpk::unpack_records<point>(dec, hex("d4 72 40 92 a1 78 a1 79 01 02"));
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(*p, (point{1, 2}));
  for (std::uint8_t i = 3; i < 9; i += 2) {
    const std::vector<std::byte> in{std::byte{0x40}, std::byte{i}, std::byte(i + 1)};
    auto q = mpk::unpack_records<point_too>(dec, in);
    ASSERT_TRUE(q.has_value());
    EXPECT_EQ(*q, (point_too{i, i + 1}));
    EXPECT_NE(straight_line<point_too>(dec, 0x40), "none");  // one of the two types'
    auto r = mpk::unpack_records<point>(dec, in);
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(*r, (point{i, i + 1}));
  }
}

TEST(records_shapes, shared_structures_and_definitions_over_them) {
  mpk::shared_structures shared;
  ASSERT_TRUE(mpk::add_shared_structure<point>(shared).has_value());  // index 0: id 0x40
  ASSERT_TRUE(shared.add({"y", "x"}).has_value());                    // index 1: id 0x41
  for (const mpk::records_mode mode :
       {mpk::records_mode::per_message, mpk::records_mode::sequential}) {
    mpk::records_decoder dec({.mode = mode, .shared = &shared});
    auto both = mpk::unpack_records<std::vector<point>>(dec, hex("93 40 01 02 41 03 04 40 05 06"));
    ASSERT_TRUE(both.has_value());
    EXPECT_EQ(*both, (std::vector<point>{{1, 2}, {4, 3}, {5, 6}}));
    EXPECT_EQ(straight_line<point>(dec, 0x40), "this type");
    EXPECT_EQ(straight_line<point>(dec, 0x41), "none");
    // a message redefines 0x40 over the structure: the new keys, in that message (and on,
    // in sequential mode)
    auto over = mpk::unpack_records<std::vector<point>>(
        dec, hex("92 d4 72 40 92 a1 79 a1 78 01 02 40 03 04"));
    ASSERT_TRUE(over.has_value());
    EXPECT_EQ(*over, (std::vector<point>{{2, 1}, {4, 3}}));
    auto next = mpk::unpack_records<point>(dec, hex("40 05 06"));
    ASSERT_TRUE(next.has_value());
    EXPECT_EQ(*next, mode == mpk::records_mode::sequential ? (point{6, 5}) : (point{5, 6}));
    dec.reset();
    auto shared_again = mpk::unpack_records<point>(dec, hex("40 07 08"));
    ASSERT_TRUE(shared_again.has_value());
    EXPECT_EQ(*shared_again, (point{7, 8}));
    EXPECT_EQ(straight_line<point>(dec, 0x40), "this type");
  }
}

// --- one typed decoder: the codec's cases through both value sources -------------------------
//
// unpack_records decodes through the codec (codec/core.hpp, unpack_value): every row runs
// through mpk::unpack and through unpack_records, and both must give the same value, or the
// same error (code, byte offset and member path).

enum class hue { red, dark_blue };
MPK_ENUM(hue, red, MPK_FIELD(dark_blue, "dark-blue"));

struct pos {
  int a = 0;
  int b = 0;
};
MPK_ARRAY(pos, a, b);

struct item {
  std::string name;
  std::vector<std::int16_t> sizes;
  std::optional<double> price;
  hue colour = hue::red;
  pos at;
  std::map<std::string, int> extra;
};
MPK_MAP(item, name, sizes, price, colour, at, extra);

/// "ok <hex of the value packed again>" or "<message> at <offset> <path>".
template <class T>
std::string outcome(const mpk::result<T>& r) {
  if (r) return "ok " + to_hex(mpk::pack(*r)->bytes());
  return std::string(r.error().message()) + " at " + std::to_string(r.error().offset) + " " +
         std::string(r.error().path());
}

/// What outcome() says for an error.
std::string err(errc code, std::size_t at, std::string_view path = "") {
  return std::string(mpk::message(code)) + " at " + std::to_string(at) + " " + std::string(path);
}

struct row {
  const char* in;  // hex
  bool strict;
  std::string want;
};

template <class T>
void both_sources(const row& c) {
  SCOPED_TRACE(c.in);
  const auto in = hex(c.in);
  const std::string plain = outcome(mpk::unpack<T>(in, {.strict = c.strict}));
  mpk::records_decoder dec;
  const std::string rec = outcome(mpk::unpack_records<T>(dec, in, {.strict = c.strict}));
  EXPECT_EQ(plain, c.want);
  EXPECT_EQ(rec, plain);
}

TEST(records_codec, arrays_structs_agree) {
  const row rows[] = {
      {"92 01 02", false, "ok 92 01 02"},
      {"93 01 02 03", false, "ok 92 01 02"},  // an extra element is skipped
      // too long in strict mode: errc::unknown_key at the first extra element
      {"93 01 02 03", true, err(errc::unknown_key, 3)},
      {"91 01", false, "ok 92 01 00"},
      {"91 01", true, err(errc::missing_key, 0)},
      {"92 01 a1 78", false, err(errc::type_mismatch, 2, "/1")},
      {"92 01", false, err(errc::truncated, 0)},  // 2 elements cannot fit in 1 byte
      {"81 a1 61 01", false, err(errc::type_mismatch, 0)},
  };
  for (const row& c : rows)
    both_sources<pos>(c);
}

TEST(records_codec, map_structs_agree) {
  // {"name": "n", "sizes": [1, 2], "price": 1.5, "colour": "dark-blue", "at": [3, 4],
  //  "extra": {"k": 5}}
  const std::string full =
      "86 a4 6e 61 6d 65 a1 6e a5 73 69 7a 65 73 92 01 02 a5 70 72 69 63 65 cb 3f f8 00 00 00 00 "
      "00 00 a6 63 6f 6c 6f 75 72 a9 64 61 72 6b 2d 62 6c 75 65 a2 61 74 92 03 04 a5 65 78 74 72 "
      "61 81 a1 6b 05";
  both_sources<item>({full.c_str(), true, "ok " + full});  // written back the same
  // an unknown key, a missing one, a duplicate one (strict), a bad member deep inside
  both_sources<item>({"81 a1 7a 01", true, err(errc::unknown_key, 1)});
  both_sources<item>({"81 a4 6e 61 6d 65 a1 6e", true, err(errc::missing_key, 0)});
  both_sources<item>(
      {"82 a4 6e 61 6d 65 a1 6e a4 6e 61 6d 65 a1 6e", false,
       "ok 86 a4 6e 61 6d 65 a1 6e a5 73 69 7a 65 73 90 a5 70 72 69 63 65 c0 a6 63 6f 6c 6f 75 "
       "72 a3 72 65 64 a2 61 74 92 00 00 a5 65 78 74 72 61 80"});
  both_sources<item>(
      {"82 a4 6e 61 6d 65 a1 6e a4 6e 61 6d 65 a1 6e", true, err(errc::duplicate_key, 8)});
  both_sources<item>(
      {"81 a5 73 69 7a 65 73 92 01 cd ff ff", false, err(errc::out_of_range, 9, "/sizes/1")});
  both_sources<item>(
      {"81 a6 63 6f 6c 6f 75 72 a3 72 65 64 00", false, err(errc::trailing_bytes, 12)});
  both_sources<item>(
      {"81 a6 63 6f 6c 6f 75 72 a4 62 6c 75 65", false, err(errc::out_of_range, 8, "/colour")});
  both_sources<item>({"81 a2 61 74 93 01 02 03", true, err(errc::unknown_key, 7, "/at")});
  both_sources<item>(
      {"81 a5 65 78 74 72 61 81 a1 6b a1 76", false, err(errc::type_mismatch, 10, "/extra/k")});
  // a key that is not a str, skipped with its value, and truncated
  both_sources<item>({"81 92 01", false, err(errc::truncated, 1)});
  both_sources<std::vector<pos>>({"92 92 01 02 91 01", true, err(errc::missing_key, 4, "/1")});
}

TEST(records_codec, records_errors_have_the_codec_path) {
  // the same mistakes with the structs as records: the codec's path and offsets
  mpk::records_decoder dec;
  // [record point {x, y}: 1, "a"]: y is a str
  auto bad =
      mpk::unpack_records<std::vector<point>>(dec, hex("91 d4 72 40 92 a1 78 a1 79 01 a1 61"));
  EXPECT_EQ(outcome(bad), err(errc::type_mismatch, 10, "/0/y"));
  // {x} only, strict: missing key at the record
  auto missing = mpk::unpack_records<std::vector<point>>(
      dec, hex("92 d4 72 40 92 a1 78 a1 79 01 02 d4 72 41 91 a1 78 03"), {.strict = true});
  EXPECT_EQ(outcome(missing), err(errc::missing_key, 11, "/1"));
}

}  // namespace
