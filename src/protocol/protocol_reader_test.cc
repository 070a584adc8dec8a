// Tests for the wire primitives: lengths that lie, nulls where none are allowed, varints that
// run on, and the writer's file splices.
#include "protocol/protocol_reader.h"

#include <gtest/gtest.h>

#include <vector>

#include "protocol/protocol_writer.h"
#include "tests/support/files.h"

namespace seglog::protocol {
namespace {

TEST(ProtocolReaderTest, FixedWidthBigEndian) {
  const std::vector<uint8_t> b = {0x01, 0x02, 0xff, 0xfe, 0x00, 0x00, 0x00, 0x05};
  ProtocolReader r(b);
  int16_t a = 0;
  int16_t c = 0;
  int32_t d = 0;
  ASSERT_TRUE(r.ReadInt16("a", &a).ok());
  ASSERT_TRUE(r.ReadInt16("c", &c).ok());
  ASSERT_TRUE(r.ReadInt32("d", &d).ok());
  EXPECT_EQ(a, 0x0102);
  EXPECT_EQ(c, -2);
  EXPECT_EQ(d, 5);
  int8_t e = 0;
  Status s = r.ReadInt8("Topic.Partition", &e);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_NE(s.message().find("Topic.Partition"), std::string::npos) << s.ToString();
}

TEST(ProtocolReaderTest, UnsignedVarint) {
  ProtocolWriter w;
  for (uint32_t v : {0u, 1u, 127u, 128u, 16383u, 16384u, 0xffffffffu}) w.WriteUnsignedVarint(v);
  ProtocolReader r(w.bytes());
  for (uint32_t v : {0u, 1u, 127u, 128u, 16383u, 16384u, 0xffffffffu}) {
    uint32_t got = 1;
    ASSERT_TRUE(r.ReadUnsignedVarint("v", &got).ok());
    EXPECT_EQ(got, v);
  }
  const std::vector<uint8_t> too_long = {0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
  ProtocolReader bad(too_long);
  uint32_t got = 0;
  EXPECT_TRUE(bad.ReadUnsignedVarint("v", &got).IsCorruption());
  const std::vector<uint8_t> cut = {0x80, 0x80};
  ProtocolReader truncated(cut);
  EXPECT_TRUE(truncated.ReadUnsignedVarint("v", &got).IsCorruption());
}

TEST(ProtocolReaderTest, StringsBothForms) {
  ProtocolWriter w;
  w.WriteString("s", /*compact=*/false, "abc");
  w.WriteString("s", /*compact=*/true, "de");
  w.WriteNullableString("s", false, std::nullopt);
  w.WriteNullableString("s", true, std::nullopt);
  EXPECT_EQ(w.bytes(), (std::vector<uint8_t>{0, 3, 'a', 'b', 'c', 3, 'd', 'e', 0xff, 0xff, 0}));
  ProtocolReader r(w.bytes());
  std::string a;
  std::string b;
  std::optional<std::string> c = "x";
  std::optional<std::string> d = "x";
  ASSERT_TRUE(r.ReadString("a", false, &a).ok());
  ASSERT_TRUE(r.ReadString("b", true, &b).ok());
  ASSERT_TRUE(r.ReadNullableString("c", false, &c).ok());
  ASSERT_TRUE(r.ReadNullableString("d", true, &d).ok());
  EXPECT_EQ(a, "abc");
  EXPECT_EQ(b, "de");
  EXPECT_FALSE(c.has_value());
  EXPECT_FALSE(d.has_value());
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(ProtocolReaderTest, NullWhereNotAllowed) {
  const std::vector<uint8_t> null16 = {0xff, 0xff};
  std::string s;
  ProtocolReader r(null16);
  Status st = r.ReadString("ClientId", false, &s);
  EXPECT_TRUE(st.IsCorruption());
  EXPECT_NE(st.message().find("non-nullable field ClientId"), std::string::npos);
  const std::vector<uint8_t> null32 = {0xff, 0xff, 0xff, 0xff};
  ProtocolReader r2(null32);
  int32_t n = 0;
  EXPECT_TRUE(r2.ReadArrayLength("Topics", false, /*nullable=*/false, &n).IsCorruption());
  ProtocolReader r3(null32);
  ASSERT_TRUE(r3.ReadArrayLength("Topics", false, /*nullable=*/true, &n).ok());
  EXPECT_EQ(n, -1);
}

TEST(ProtocolReaderTest, LengthsThatLie) {
  // A string of 10 bytes with 3 present; an array of 2^31-1 elements in 4 bytes; bytes and
  // records longer than the frame; a compact string over Kafka's 32767 limit.
  std::string s;
  const std::vector<uint8_t> str = {0, 10, 'a', 'b', 'c'};
  ProtocolReader r(str);
  EXPECT_TRUE(r.ReadString("s", false, &s).IsCorruption());

  const std::vector<uint8_t> arr = {0x7f, 0xff, 0xff, 0xff, 1, 2, 3, 4};
  ProtocolReader r2(arr);
  int32_t n = 0;
  Status st = r2.ReadArrayLength("Partitions", false, false, &n);
  EXPECT_TRUE(st.IsCorruption());
  EXPECT_NE(st.message().find("Tried to allocate a collection of size 2147483647"),
            std::string::npos);

  const std::vector<uint8_t> bytes = {0, 0, 0, 9, 1};
  ProtocolReader r3(bytes);
  Records records;
  EXPECT_TRUE(r3.ReadRecords("Records", false, &records).IsCorruption());

  ProtocolWriter w;
  w.WriteUnsignedVarint(40000);
  std::vector<uint8_t> big = w.bytes();
  big.resize(big.size() + 39999, 'x');
  ProtocolReader r4(big);
  st = r4.ReadString("Name", true, &s);
  EXPECT_TRUE(st.IsCorruption());
  EXPECT_NE(st.message().find("invalid length 39999"), std::string::npos) << st.ToString();
}

TEST(ProtocolReaderTest, RecordsAreViewsOfTheFrame) {
  const std::vector<uint8_t> frame = {0, 0, 0, 3, 7, 8, 9};
  ProtocolReader r(frame);
  Records records;
  ASSERT_TRUE(r.ReadRecords("Records", false, &records).ok());
  ASSERT_EQ(records.contiguous().size(), 3u);
  EXPECT_EQ(records.contiguous().data(), frame.data() + 4);  // no copy
}

TEST(ProtocolWriterTest, NonCompactStringOverLimitFails) {
  ProtocolWriter w;
  w.WriteString("Name", false, std::string(40000, 'x'));
  EXPECT_TRUE(w.status().IsInvalidArgument());
}

TEST(ProtocolWriterTest, FileRegionsAreSplicedNotCopied) {
  seglog::testing::TempDir dir;
  const std::string path = dir.path() + "/seg";
  std::vector<uint8_t> content(5000);
  for (size_t i = 0; i < content.size(); ++i) content[i] = static_cast<uint8_t>(i * 7);
  {
    auto f = File::Open(path, File::Mode::kCreate);
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE(f.value()->WriteAt(0, content).ok());
  }
  auto f = File::Open(path, File::Mode::kReadOnly);
  ASSERT_TRUE(f.ok());
  std::shared_ptr<const File> file = std::move(f).value();
  Records records;
  records.AppendFile(FileSlice{file, 100, 1000});
  records.AppendFile(FileSlice{file, 4000, 1000});
  ProtocolWriter w;
  w.WriteInt8(42);
  w.WriteRecords(/*compact=*/true, records);
  w.WriteInt8(43);
  EXPECT_EQ(w.splices().size(), 2u);
  EXPECT_EQ(w.size_bytes(), static_cast<int64_t>(w.bytes().size()) + 2000);
  std::vector<uint8_t> flat;
  ASSERT_TRUE(w.Flatten(&flat).ok());
  ProtocolReader r(flat);
  int8_t a = 0;
  Records got;
  int8_t b = 0;
  ASSERT_TRUE(r.ReadInt8("a", &a).ok());
  ASSERT_TRUE(r.ReadRecords("Records", true, &got).ok());
  ASSERT_TRUE(r.ReadInt8("b", &b).ok());
  EXPECT_EQ(a, 42);
  EXPECT_EQ(b, 43);
  std::vector<uint8_t> want(content.begin() + 100, content.begin() + 1100);
  want.insert(want.end(), content.begin() + 4000, content.end());
  EXPECT_EQ(std::vector<uint8_t>(got.contiguous().begin(), got.contiguous().end()), want);
}

}  // namespace
}  // namespace seglog::protocol
