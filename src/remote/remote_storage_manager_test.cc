// The interface's names and Kafka's state transitions, and SegmentObjects' bytes.
#include <gtest/gtest.h>

#include "base/crc32c.h"
#include "remote/remote_log_segment_metadata.h"
#include "remote/remote_storage_manager.h"
#include "remote/segment_objects.h"

namespace seglog {
namespace {

TEST(RemoteStorageManagerTest, NamesAreKafkas) {
  EXPECT_EQ(IndexTypeName(IndexType::kOffset), "OFFSET");
  EXPECT_EQ(IndexTypeName(IndexType::kTimestamp), "TIMESTAMP");
  EXPECT_EQ(IndexTypeName(IndexType::kProducerSnapshot), "PRODUCER_SNAPSHOT");
  EXPECT_EQ(IndexTypeName(IndexType::kTransaction), "TRANSACTION");
  EXPECT_EQ(IndexTypeName(IndexType::kLeaderEpoch), "LEADER_EPOCH");
  EXPECT_EQ(RemoteLogSegmentStateName(RemoteLogSegmentState::kCopySegmentStarted),
            "COPY_SEGMENT_STARTED");
  EXPECT_EQ(RemoteLogSegmentStateName(RemoteLogSegmentState::kCopySegmentFinished),
            "COPY_SEGMENT_FINISHED");
  EXPECT_EQ(RemoteLogSegmentStateName(RemoteLogSegmentState::kDeleteSegmentStarted),
            "DELETE_SEGMENT_STARTED");
  EXPECT_EQ(RemoteLogSegmentStateName(RemoteLogSegmentState::kDeleteSegmentFinished),
            "DELETE_SEGMENT_FINISHED");
}

TEST(RemoteStorageManagerTest, TransitionsAreKafkas) {
  using S = RemoteLogSegmentState;
  const S all[] = {S::kCopySegmentStarted, S::kCopySegmentFinished, S::kDeleteSegmentStarted,
                   S::kDeleteSegmentFinished};
  // Kafka's RemoteLogSegmentState.isValidTransition, as a table: from (row) -> to (column).
  const bool valid[4][4] = {{true, true, true, false},
                            {false, true, true, false},
                            {false, false, true, true},
                            {false, false, false, true}};
  for (int f = 0; f < 4; ++f) {
    for (int t = 0; t < 4; ++t) {
      EXPECT_EQ(IsValidTransition(all[f], all[t]), valid[f][t])
          << RemoteLogSegmentStateName(all[f]) << " -> " << RemoteLogSegmentStateName(all[t]);
    }
  }
}

TEST(SegmentObjectsTest, RoundTripsAndHasTheDocumentedLayout) {
  SegmentObjects in;
  in.objects = {{RemoteObjectKind::kLog, 1048576, 0xDEADBEEF},
                {RemoteObjectKind::kOffsetIndex, 8, 1},
                {RemoteObjectKind::kLeaderEpochCheckpoint, 0, 0}};
  const std::vector<uint8_t> bytes = in.Encode();
  ASSERT_EQ(bytes.size(), 2u + 3 * 13 + 4);
  EXPECT_EQ(bytes[0], 0);  // version
  EXPECT_EQ(bytes[1], 3);  // count
  EXPECT_EQ(bytes[2], 0);  // kind .log
  // size 1048576 big-endian at 3..10, crc at 11..14
  EXPECT_EQ(bytes[3 + 5], 0x10);
  EXPECT_EQ(bytes[11], 0xDE);
  EXPECT_EQ(bytes[14], 0xEF);
  Result<SegmentObjects> out = SegmentObjects::Decode(bytes);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->objects, in.objects);
  EXPECT_EQ(out->Find(RemoteObjectKind::kOffsetIndex)->size, 8);
  EXPECT_FALSE(out->Find(RemoteObjectKind::kTransactionIndex).has_value());
  EXPECT_TRUE(SegmentObjects::Decode(SegmentObjects{}.Encode()).ok());
}

TEST(SegmentObjectsTest, TheDocumentsWorkedExample) {
  // docs/format/remote_storage.md, "The custom metadata: SegmentObjects".
  SegmentObjects in;
  in.objects = {{RemoteObjectKind::kLog, 1048576, 0xDEADBEEF},
                {RemoteObjectKind::kOffsetIndex, 8, 1}};
  const std::vector<uint8_t> want = {
      0x00, 0x02,                                                       //
      0x00, 0,    0,    0,   0, 0, 0x10, 0, 0, 0xde, 0xad, 0xbe, 0xef,  //
      0x01, 0,    0,    0,   0, 0, 0,    0, 8, 0,    0,    0,    1,     //
      0x9c, 0x40, 0x98, 0x1c};
  EXPECT_EQ(in.Encode(), want);
}

TEST(SegmentObjectsTest, RejectsEveryDamage) {
  SegmentObjects in;
  in.objects = {{RemoteObjectKind::kLog, 100, 7}, {RemoteObjectKind::kOffsetIndex, 8, 1}};
  const std::vector<uint8_t> good = in.Encode();
  // Any one flipped bit is caught (the CRC covers everything).
  for (size_t i = 0; i < good.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::vector<uint8_t> bad = good;
      bad[i] ^= static_cast<uint8_t>(1 << bit);
      EXPECT_FALSE(SegmentObjects::Decode(bad).ok()) << "byte " << i << " bit " << bit;
    }
  }
  // Every truncation, and an extra byte.
  for (size_t n = 0; n < good.size(); ++n) {
    EXPECT_FALSE(SegmentObjects::Decode(std::span(good.data(), n)).ok()) << n;
  }
  std::vector<uint8_t> longer = good;
  longer.push_back(0);
  EXPECT_FALSE(SegmentObjects::Decode(longer).ok());

  // Well-checksummed but wrong: a kind twice, an unknown kind, a negative size, version 1.
  auto with_crc = [](std::vector<uint8_t> b) {
    const uint32_t crc = Crc32c(std::span<const uint8_t>(b.data(), b.size()));
    b.push_back(static_cast<uint8_t>(crc >> 24));
    b.push_back(static_cast<uint8_t>(crc >> 16));
    b.push_back(static_cast<uint8_t>(crc >> 8));
    b.push_back(static_cast<uint8_t>(crc));
    return b;
  };
  std::vector<uint8_t> entry = {0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0};
  std::vector<uint8_t> twice = {0, 2};
  twice.insert(twice.end(), entry.begin(), entry.end());
  twice.insert(twice.end(), entry.begin(), entry.end());
  Result<SegmentObjects> r = SegmentObjects::Decode(with_crc(twice));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("at byte 15"), std::string_view::npos)
      << r.status().ToString();
  std::vector<uint8_t> unknown = {0, 1, 6, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0};
  EXPECT_FALSE(SegmentObjects::Decode(with_crc(unknown)).ok());
  std::vector<uint8_t> negative = {0, 1, 0, 0x80, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0};
  EXPECT_FALSE(SegmentObjects::Decode(with_crc(negative)).ok());
  std::vector<uint8_t> v1 = {1, 0};
  Result<SegmentObjects> rv = SegmentObjects::Decode(with_crc(v1));
  ASSERT_FALSE(rv.ok());
  EXPECT_NE(rv.status().message().find("version 1"), std::string_view::npos);
}

}  // namespace
}  // namespace seglog
