// JsonWriter: the text Jackson's JsonNode.toString() gives for the nodes Kafka's JsonConverters
// build. The expected strings are what Kafka 4.4.0's classpath (Jackson 2.21 on JDK 17) printed.
#include "protocol/json_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace seglog::protocol {
namespace {

TEST(JsonWriterTest, CompactObjectsAndArraysInWriteOrder) {
  JsonWriter w;
  w.BeginObject();
  w.Key("b");
  w.Int(-5);
  w.Key("a");
  w.BeginArray();
  w.BeginObject();
  w.EndObject();
  w.BeginArray();
  w.EndArray();
  w.Bool(true);
  w.Null();
  w.EndArray();
  w.Key("z");
  w.Int(9223372036854775807LL);
  w.EndObject();
  EXPECT_EQ(w.text(), R"({"b":-5,"a":[{},[],true,null],"z":9223372036854775807})");
}

std::string StringJson(std::string_view bytes) {
  JsonWriter w;
  w.String(bytes);
  return w.Release();
}

TEST(JsonWriterTest, StringsEscapeAsJacksonDoes) {
  std::string all_ascii;
  for (int c = 0; c < 0x80; ++c) all_ascii.push_back(static_cast<char>(c));
  EXPECT_EQ(StringJson(all_ascii),
            "\"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000B\\f\\r"
            "\\u000E\\u000F\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019"
            "\\u001A\\u001B\\u001C\\u001D\\u001E\\u001F !\\\"#$%&'()*+,-./0123456789:;<=>?@"
            "ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\\\]^_`abcdefghijklmnopqrstuvwxyz{|}~\x7f\"");
  // Non-ASCII text as it is (U+2028 too), a supplementary character whole.
  EXPECT_EQ(StringJson("\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\xe2\x80\xa8"),
            "\"\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\xe2\x80\xa8\"");
}

TEST(JsonWriterTest, IllFormedUtf8BecomesWhatJavaDecodes) {
  // new String(bytes, UTF_8) on JDK 17: E0 80 is two replacements, an encoded surrogate one, a
  // truncated 4-byte sequence one.
  const std::string r = "\xef\xbf\xbd";
  EXPECT_EQ(StringJson("\xe0\x80\xed\xa0\x80\xf0\x9f\x98"
                       "A"),
            "\"" + r + r + r + r + "A\"");
  EXPECT_EQ(StringJson("\xff"), "\"" + r + "\"");
}

TEST(JsonWriterTest, BytesAreBase64WithPadding) {
  auto bytes = [](std::vector<uint8_t> v) {
    JsonWriter w;
    w.Bytes(v);
    return w.Release();
  };
  EXPECT_EQ(bytes({}), "\"\"");
  EXPECT_EQ(bytes({1}), "\"AQ==\"");
  EXPECT_EQ(bytes({1, 2}), "\"AQI=\"");
  EXPECT_EQ(bytes({1, 2, 3}), "\"AQID\"");
  EXPECT_EQ(bytes({1, 2, 3, 0xfb, 0xff}), "\"AQID+/8=\"");
}

TEST(JsonWriterTest, UuidsAreKafkasText) {
  JsonWriter w;
  w.Uuid(::seglog::Uuid{});
  EXPECT_EQ(w.text(), "\"AAAAAAAAAAAAAAAAAAAAAA\"");
}

TEST(JsonWriterTest, DoublesAsJavaPrintsThem) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<std::pair<double, std::string>> cases = {
      {0.0, "0.0"},
      {-0.0, "-0.0"},
      {1.0, "1.0"},
      {100.0, "100.0"},
      {1e7, "1.0E7"},
      {9999999.0, "9999999.0"},
      {0.001, "0.001"},
      {9.99e-4, "9.99E-4"},
      {1.5e300, "1.5E300"},
      {1048576.0, "1048576.0"},
      {0.1, "0.1"},
      {123456789.125, "1.23456789125E8"},
      {1e-5, "1.0E-5"},
      {-2.5, "-2.5"},
      {std::nan(""), "\"NaN\""},
      {inf, "\"Infinity\""},
      {-inf, "\"-Infinity\""},
  };
  for (const auto& [value, want] : cases) {
    JsonWriter w;
    w.Double(value);
    EXPECT_EQ(w.text(), want) << value;
  }
}

}  // namespace
}  // namespace seglog::protocol
