#include "base/properties.h"

#include <gtest/gtest.h>

namespace seglog {
namespace {

TEST(PropertiesTest, ParsesJavaPropertiesText) {
  const std::string text =
      "# a comment\n"
      "! another\n"
      "log.dirs=/a,/b\n"
      "  log.retention.hours : 48\n"
      "num.recovery.threads.per.data.dir 4\n"
      "log.segment.bytes=1\\\n"
      "    073741824\n"
      "key\\:with\\=escapes=v\\tx\n"
      "empty=\n"
      "dup=1\n"
      "dup=2\r\n";
  auto p = ParseProperties(text);
  EXPECT_EQ(p.at("log.dirs"), "/a,/b");
  EXPECT_EQ(p.at("log.retention.hours"), "48");
  EXPECT_EQ(p.at("num.recovery.threads.per.data.dir"), "4");
  EXPECT_EQ(p.at("log.segment.bytes"), "1073741824");  // a continued line
  EXPECT_EQ(p.at("key:with=escapes"), "v\tx");
  EXPECT_EQ(p.at("empty"), "");
  EXPECT_EQ(p.at("dup"), "2");
  EXPECT_EQ(p.size(), 7u);
}

TEST(PropertiesTest, EscapedTextReadsBack) {
  const std::string key = "a:b=c#d", value = " lead\\ing";
  auto p = ParseProperties(EscapeProperty(key) + "=" + EscapeProperty(value) + "\n");
  EXPECT_EQ(p.at(key), value);
}

}  // namespace
}  // namespace seglog
