// Uses an installed mpk the way a program does, reaching every compiled part of libmpk: the
// error messages, buffer growth, UTF-8 validation and UTF-16 transcoding, the document, the
// owning value, streams (decoder and sink), records, and (when libmpk was built with
// simdjson, MPK_CONSUMER_JSON=1) JSON both ways; and an mpk::exception thrown inside the
// library and caught here, which needs its type exported from a shared libmpk. Exits 0 and
// prints "consumer: ok ..." when everything works; otherwise says what failed.
#include <mpk/mpk.hpp>

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

namespace {

int failures = 0;

void expect(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "consumer: %s failed\n", what);
    ++failures;
  }
}

}  // namespace

int main() {
  // Writer into a buffer that starts empty: the first write goes through the grow path.
  mpk::buffer buf;
  mpk::writer w(buf);
  w.begin_map(2);
  w.write("name");
  w.write(u"caf\u00e9");  // UTF-16 transcoded by the library
  w.write("tags");
  w.begin_array(2);
  w.write(1);
  w.write(nullptr);
  expect(!w.error(), "writing {name: \"café\", tags: [1, nil]}");

  // Error messages and the error category.
  const char* text = mpk::message(mpk::errc::truncated);
  expect(text != nullptr && *text != '\0', "mpk::message");
  expect(mpk::error{mpk::errc::truncated, 3}.to_string().starts_with("offset 3: "),
         "mpk::error::to_string");
  expect(std::error_code(mpk::errc::truncated).category().name() == std::string_view("mpk"),
         "mpk::error_category");

  // UTF-8 validation (simdjson's or the scalar validator) and transcoding.
  expect(mpk::is_valid_utf8("caf\xc3\xa9") && !mpk::is_valid_utf8("\xc3"), "is_valid_utf8");
  const auto u16 = mpk::to_utf16("caf\xc3\xa9");
  expect(u16 && *u16 == u"caf\u00e9", "to_utf16");

  // Document and owning value.
  auto doc = mpk::document::parse(buf);
  expect(doc && doc->root()["name"].as<std::string_view>().value() == "caf\xc3\xa9",
         "document::parse");
  mpk::value v = {{"name", "caf\xc3\xa9"}, {"tags", {1, nullptr}}};
  expect(doc && mpk::value(doc->root()) == v, "value from a document, operator==");

  // An exception thrown by the library (result::value() of an error), caught here.
  bool caught = false;
  try {
    (void)mpk::document::parse(mpk::as_bytes(buf).first(3)).value();
  } catch (const mpk::exception& e) {
    caught = e.error().code == mpk::errc::truncated;
  }
  expect(caught, "catching mpk::exception");

  // Streams: a message in two chunks, and a stream_sink through a callback.
  mpk::stream_decoder dec;
  expect(dec.feed(mpk::as_bytes(buf).first(4)) && dec.feed(mpk::as_bytes(buf).subspan(4)), "feed");
  mpk::document streamed;
  auto got = dec.next(streamed);
  expect(got && *got && streamed.root()["tags"][0].as<int>().value() == 1, "stream_decoder");
  std::string sunk;
  auto append = [](void* ctx, std::span<const std::byte> b) {
    static_cast<std::string*>(ctx)->append(reinterpret_cast<const char*>(b.data()), b.size());
    return true;
  };
  {
    mpk::stream_sink sink(append, &sunk);
    mpk::writer sw(sink);
    sw.write(42);
    expect(!sw.error() && sink.flush() == mpk::errc::ok, "stream_sink");
  }
  expect(sunk == "\x2a", "stream_sink's bytes");

  // Records: encode the value, decode it back.
  mpk::records_encoder enc;
  auto records = enc.encode(v);
  mpk::records_decoder rdec;
  auto back = records ? rdec.read_value(*records) : mpk::result<mpk::value>(records.error());
  expect(records && records->size() > 3 && std::to_integer<int>(records->data()[0]) == 0xd4,
         "records_encoder");
  expect(back && *back == v, "records_decoder");

#if MPK_CONSUMER_JSON
  // JSON both ways.
  auto json = mpk::to_json(buf);
  expect(json && *json == "{\"name\":\"caf\xc3\xa9\",\"tags\":[1,null]}\n", "to_json");
  mpk::buffer from;
  auto n = json ? mpk::from_json(*json, from) : mpk::result<std::size_t>(json.error());
  expect(n && from.size() == buf.size() && std::memcmp(from.data(), buf.data(), buf.size()) == 0,
         "from_json");
#endif

  if (failures != 0) return 1;
  std::printf("consumer: ok, %zu bytes buffered; errc::truncated is \"%s\"; validator %s\n",
              buf.size(), text, mpk::utf8_validator());
  return 0;
}
