// Tests of __remote_log_metadata values and partitioner against bytes and partitions Kafka
// 4.4.0's own RemoteLogMetadataSerde and RemoteLogMetadataTopicPartitioner produced
// (interop/kafka/src/RemoteLogMetadataGolden.java golden), and of every way Decode refuses bytes.
#include "protocol/remote_log_metadata_serde.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "protocol/remote_log_metadata_cases.h"

namespace seglog::protocol {
namespace {

using testing::AllRemoteLogMetadataCases;

std::vector<uint8_t> FromHex(std::string_view hex) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<uint8_t>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

struct Golden {
  std::string_view name;
  std::string_view hex;
};

// `RemoteLogMetadataGolden golden`'s "record" lines: Kafka's serialize of each case.
constexpr Golden kGolden[] = {
    {"segment_started",
     "010000076f72646572730123456789abcdeffedcba987654321000000003001111222233334444555566667777888"
     "800000000000000006400000000000000c7000000010000018bcfe5687b0000018bcfe569c8030000000000000000"
     "00000064000000000200000000000000960000001000000000"},
    {"segment_finished_txn_empty",
     "010000076f72646572730123456789abcdeffedcba987654321000000003007fffffff00000001800000000000000"
     "20000000000000000000000000000000063000000020000018bcfe56be80000018bcfe56fd0020000000500000000"
     "000000000000100000040102030101000101"},
    {"update_copy_finished",
     "010100076f72646572730123456789abcdeffedcba987654321000000003001111222233334444555566667777888"
     "800000000010000018bcfe573b8000100"},
    {"update_delete_started",
     "010100076f72646572730123456789abcdeffedcba987654321000000003007fffffff00000001800000000000000"
     "200000000020000018bcfe577a005090807060200"},
    {"update_delete_finished",
     "010100076f72646572730123456789abcdeffedcba987654321000000003007fffffff00000001800000000000000"
     "200000000020000018bcfe57b88000300"},
    {"partition_delete_marked",
     "010200076f72646572730123456789abcdeffedcba98765432100000000300000000000000018bcfe57f700000"},
    {"partition_delete_finished",
     "0102000e6576656e74732e76325f782d79deadbeefcafebabe00000000000000010000000000000000030000018bc"
     "fe583580200"},
    {"snapshot",
     "01030011112222333344445555666677778888000000000000006400000000000000c7000000010000018bcfe5687"
     "b0000018bcfe5874003000000000000000000000064000000000200000000000000960000001000000100"},
    {"snapshot_txn_empty_custom",
     "0103007fffffff00000001800000000000000200000000000000000000000000000063000000020000018bcfe56be"
     "80000018bcfe58b28030000000500000000000000000000000006000000000000003200001000000242020100010"
     "1"},
};

struct GoldenPartition {
  std::string_view topic_id;
  int32_t partition;
  int32_t num_partitions;
  int32_t metadata_partition;
};

// Its "partition" lines: RemoteLogMetadataTopicPartitioner(n).metadataPartition.
constexpr GoldenPartition kGoldenPartitions[] = {
    {"ASNFZ4mrze_-3LqYdlQyEA", 0, 50, 11},
    {"ASNFZ4mrze_-3LqYdlQyEA", 0, 1, 0},
    {"ASNFZ4mrze_-3LqYdlQyEA", 0, 7, 0},
    {"ASNFZ4mrze_-3LqYdlQyEA", 0, 3, 2},
    {"ASNFZ4mrze_-3LqYdlQyEA", 1, 50, 2},
    {"ASNFZ4mrze_-3LqYdlQyEA", 1, 1, 0},
    {"ASNFZ4mrze_-3LqYdlQyEA", 1, 7, 4},
    {"ASNFZ4mrze_-3LqYdlQyEA", 1, 3, 1},
    {"ASNFZ4mrze_-3LqYdlQyEA", 3, 50, 12},
    {"ASNFZ4mrze_-3LqYdlQyEA", 3, 1, 0},
    {"ASNFZ4mrze_-3LqYdlQyEA", 3, 7, 2},
    {"ASNFZ4mrze_-3LqYdlQyEA", 3, 3, 2},
    {"ASNFZ4mrze_-3LqYdlQyEA", 17, 50, 11},
    {"ASNFZ4mrze_-3LqYdlQyEA", 17, 1, 0},
    {"ASNFZ4mrze_-3LqYdlQyEA", 17, 7, 1},
    {"ASNFZ4mrze_-3LqYdlQyEA", 17, 3, 0},
    {"ASNFZ4mrze_-3LqYdlQyEA", 2147483647, 50, 2},
    {"ASNFZ4mrze_-3LqYdlQyEA", 2147483647, 1, 0},
    {"ASNFZ4mrze_-3LqYdlQyEA", 2147483647, 7, 0},
    {"ASNFZ4mrze_-3LqYdlQyEA", 2147483647, 3, 0},
    {"3q2-78r-ur4AAAAAAAAAAQ", 0, 50, 15},
    {"3q2-78r-ur4AAAAAAAAAAQ", 0, 1, 0},
    {"3q2-78r-ur4AAAAAAAAAAQ", 0, 7, 3},
    {"3q2-78r-ur4AAAAAAAAAAQ", 0, 3, 1},
    {"3q2-78r-ur4AAAAAAAAAAQ", 1, 50, 41},
    {"3q2-78r-ur4AAAAAAAAAAQ", 1, 1, 0},
    {"3q2-78r-ur4AAAAAAAAAAQ", 1, 7, 3},
    {"3q2-78r-ur4AAAAAAAAAAQ", 1, 3, 2},
    {"3q2-78r-ur4AAAAAAAAAAQ", 3, 50, 19},
    {"3q2-78r-ur4AAAAAAAAAAQ", 3, 1, 0},
    {"3q2-78r-ur4AAAAAAAAAAQ", 3, 7, 6},
    {"3q2-78r-ur4AAAAAAAAAAQ", 3, 3, 1},
    {"3q2-78r-ur4AAAAAAAAAAQ", 17, 50, 5},
    {"3q2-78r-ur4AAAAAAAAAAQ", 17, 1, 0},
    {"3q2-78r-ur4AAAAAAAAAAQ", 17, 7, 1},
    {"3q2-78r-ur4AAAAAAAAAAQ", 17, 3, 1},
    {"3q2-78r-ur4AAAAAAAAAAQ", 2147483647, 50, 1},
    {"3q2-78r-ur4AAAAAAAAAAQ", 2147483647, 1, 0},
    {"3q2-78r-ur4AAAAAAAAAAQ", 2147483647, 7, 4},
    {"3q2-78r-ur4AAAAAAAAAAQ", 2147483647, 3, 0},
    {"ax86XJ0uT3AaKzxNXm9wgQ", 0, 50, 48},
    {"ax86XJ0uT3AaKzxNXm9wgQ", 0, 1, 0},
    {"ax86XJ0uT3AaKzxNXm9wgQ", 0, 7, 4},
    {"ax86XJ0uT3AaKzxNXm9wgQ", 0, 3, 2},
    {"ax86XJ0uT3AaKzxNXm9wgQ", 1, 50, 47},
    {"ax86XJ0uT3AaKzxNXm9wgQ", 1, 1, 0},
    {"ax86XJ0uT3AaKzxNXm9wgQ", 1, 7, 0},
    {"ax86XJ0uT3AaKzxNXm9wgQ", 1, 3, 2},
    {"ax86XJ0uT3AaKzxNXm9wgQ", 3, 50, 4},
    {"ax86XJ0uT3AaKzxNXm9wgQ", 3, 1, 0},
    {"ax86XJ0uT3AaKzxNXm9wgQ", 3, 7, 4},
    {"ax86XJ0uT3AaKzxNXm9wgQ", 3, 3, 0},
    {"ax86XJ0uT3AaKzxNXm9wgQ", 17, 50, 19},
    {"ax86XJ0uT3AaKzxNXm9wgQ", 17, 1, 0},
    {"ax86XJ0uT3AaKzxNXm9wgQ", 17, 7, 6},
    {"ax86XJ0uT3AaKzxNXm9wgQ", 17, 3, 2},
    {"ax86XJ0uT3AaKzxNXm9wgQ", 2147483647, 50, 29},
    {"ax86XJ0uT3AaKzxNXm9wgQ", 2147483647, 1, 0},
    {"ax86XJ0uT3AaKzxNXm9wgQ", 2147483647, 7, 6},
    {"ax86XJ0uT3AaKzxNXm9wgQ", 2147483647, 3, 1},
};

std::vector<uint8_t> GoldenBytes(std::string_view name) {
  for (const Golden& g : kGolden) {
    if (g.name == name) return FromHex(g.hex);
  }
  ADD_FAILURE() << "no golden value " << name;
  return {};
}

void ExpectCorruption(const std::vector<uint8_t>& bytes, std::string_view needle) {
  Result<RemoteLogMetadataRecord> r = DecodeRemoteLogMetadata(bytes);
  ASSERT_FALSE(r.ok()) << "decoded bytes that should fail with " << needle;
  EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("__remote_log_metadata value"), std::string_view::npos)
      << r.status().ToString();
  EXPECT_NE(r.status().message().find(needle), std::string_view::npos)
      << "want \"" << needle << "\" in: " << r.status().ToString();
}

TEST(RemoteLogMetadataSerdeTest, EncodesAsKafka) {
  const auto cases = AllRemoteLogMetadataCases();
  ASSERT_EQ(cases.size(), std::size(kGolden));
  for (size_t i = 0; i < cases.size(); ++i) {
    ASSERT_EQ(cases[i].name, kGolden[i].name);
    Result<std::vector<uint8_t>> bytes = EncodeRemoteLogMetadata(cases[i].record);
    ASSERT_TRUE(bytes.ok()) << cases[i].name << ": " << bytes.status().ToString();
    EXPECT_EQ(*bytes, FromHex(kGolden[i].hex)) << cases[i].name;
  }
}

TEST(RemoteLogMetadataSerdeTest, DecodesKafkasBytes) {
  const auto cases = AllRemoteLogMetadataCases();
  for (size_t i = 0; i < cases.size(); ++i) {
    Result<RemoteLogMetadataRecord> r = DecodeRemoteLogMetadata(FromHex(kGolden[i].hex));
    ASSERT_TRUE(r.ok()) << cases[i].name << ": " << r.status().ToString();
    EXPECT_EQ(r->index(), cases[i].record.index()) << cases[i].name;
    EXPECT_TRUE(*r == cases[i].record) << cases[i].name;
    EXPECT_EQ(RemoteLogMetadataApiKey(*r), static_cast<int16_t>(cases[i].record.index()));
  }
}

TEST(RemoteLogMetadataSerdeTest, FrameIsVersionApiKeyVersion) {
  const int16_t keys[] = {RemoteLogSegmentMetadataRecord::kApiKey,
                          RemoteLogSegmentMetadataUpdateRecord::kApiKey,
                          RemotePartitionDeleteMetadataRecord::kApiKey,
                          RemoteLogSegmentMetadataSnapshotRecord::kApiKey};
  const std::vector<std::string_view> one_of_each = {"segment_started", "update_copy_finished",
                                                     "partition_delete_marked", "snapshot"};
  for (size_t k = 0; k < 4; ++k) {
    const std::vector<uint8_t> b = GoldenBytes(one_of_each[k]);
    ASSERT_GE(b.size(), 3u);
    EXPECT_EQ(b[0], 1) << "frame version";
    EXPECT_EQ(b[1], keys[k]) << "apiKey";
    EXPECT_EQ(b[2], 0) << "version";
  }
}

TEST(RemoteLogMetadataSerdeTest, TxnIndexEmptyIsATaggedField) {
  // Written only when true: tagged field count 1, tag 0, size 1, value 1 at the end.
  const std::vector<uint8_t> with = GoldenBytes("segment_finished_txn_empty");
  ASSERT_GE(with.size(), 4u);
  EXPECT_EQ(std::vector<uint8_t>(with.end() - 4, with.end()), (std::vector<uint8_t>{1, 0, 1, 1}));
  const std::vector<uint8_t> without = GoldenBytes("segment_started");
  EXPECT_EQ(without.back(), 0) << "no tagged fields";
}

TEST(RemoteLogMetadataSerdeTest, UnknownTaggedFieldsRoundTrip) {
  RemoteLogSegmentMetadataRecord r =
      std::get<RemoteLogSegmentMetadataRecord>(AllRemoteLogMetadataCases()[1].record);
  r.unknown_tagged_fields.push_back(RawTaggedField{7, {0xaa, 0xbb}});
  Result<std::vector<uint8_t>> bytes = EncodeRemoteLogMetadata(r);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  Result<RemoteLogMetadataRecord> back = DecodeRemoteLogMetadata(*bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(*back == RemoteLogMetadataRecord(r));
  // Tag 0 (TxnIndexEmpty) is written before tag 7.
  EXPECT_EQ(std::vector<uint8_t>(bytes->end() - 8, bytes->end()),
            (std::vector<uint8_t>{2, 0, 1, 1, 7, 2, 0xaa, 0xbb}));
}

TEST(RemoteLogMetadataSerdeTest, RoundTripsExtremes) {
  RemoteLogSegmentMetadataRecord r;
  r.remote_log_segment_id.topic_id_partition.name = std::string(300, 'x');  // 2-byte uvarint
  r.remote_log_segment_id.topic_id_partition.partition = -1;
  r.start_offset = INT64_MIN;
  r.end_offset = INT64_MAX;
  r.custom_metadata = std::vector<uint8_t>(70000, 0x5a);  // 3-byte uvarint length
  for (int i = 0; i < 200; ++i) {
    RemoteLogSegmentMetadataRecord::SegmentLeaderEpochEntry e;
    e.leader_epoch = i;
    e.offset = i * 1000LL;
    r.segment_leader_epochs.push_back(e);
  }
  r.remote_log_segment_state = static_cast<int8_t>(RemoteLogSegmentState::kDeleteSegmentFinished);
  Result<std::vector<uint8_t>> bytes = EncodeRemoteLogMetadata(r);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  Result<RemoteLogMetadataRecord> back = DecodeRemoteLogMetadata(*bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(*back == RemoteLogMetadataRecord(r));
}

TEST(RemoteLogMetadataSerdeTest, EveryTruncationFails) {
  for (const Golden& g : kGolden) {
    const std::vector<uint8_t> full = FromHex(g.hex);
    for (size_t n = 0; n < full.size(); ++n) {
      const std::vector<uint8_t> part(full.begin(), full.begin() + n);
      Result<RemoteLogMetadataRecord> r = DecodeRemoteLogMetadata(part);
      ASSERT_FALSE(r.ok()) << g.name << " cut to " << n << " bytes decoded";
      EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
    }
  }
  ExpectCorruption({}, "frame version");
  ExpectCorruption({1}, "apiKey");
  ExpectCorruption({1, 0}, "version");
  ExpectCorruption({1, 0, 0}, "RemoteLogSegmentMetadataRecord");
}

TEST(RemoteLogMetadataSerdeTest, RefusesOtherFrameVersions) {
  std::vector<uint8_t> b = GoldenBytes("segment_started");
  b[0] = 0;
  ExpectCorruption(b, "frame version 0 at position 0");
  b[0] = 2;
  ExpectCorruption(b, "frame version 2 at position 0");
  // 32768 as a uvarint (80 80 02): more than a Java short.
  std::vector<uint8_t> big = {0x80, 0x80, 0x02, 0, 0};
  ExpectCorruption(big, "frame version 32768 at position 0 is too large");
  // A uvarint of more than 5 bytes.
  ExpectCorruption({0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, "varint is too long");
}

TEST(RemoteLogMetadataSerdeTest, RefusesUnknownApiKeys) {
  std::vector<uint8_t> b = GoldenBytes("segment_started");
  b[1] = 4;
  ExpectCorruption(b, "unknown apiKey 4 at position 1");
  b[1] = 0x7f;
  ExpectCorruption(b, "unknown apiKey 127 at position 1");
  // apiKey 32767 (ff ff 01) is still a short; 65535 (ff ff 03) is not.
  std::vector<uint8_t> max = {1, 0xff, 0xff, 0x01, 0};
  ExpectCorruption(max, "unknown apiKey 32767 at position 1");
  std::vector<uint8_t> over = {1, 0xff, 0xff, 0x03, 0};
  ExpectCorruption(over, "apiKey 65535 at position 1 is too large");
}

TEST(RemoteLogMetadataSerdeTest, RefusesUnsupportedVersions) {
  for (std::string_view name :
       {"segment_started", "update_copy_finished", "partition_delete_marked", "snapshot"}) {
    std::vector<uint8_t> b = GoldenBytes(name);
    b[2] = 1;
    ExpectCorruption(b, "version 1 of ");
    ExpectCorruption(b, "at position 2 is not supported (versions 0..0)");
  }
  std::vector<uint8_t> over = {1, 0, 0x80, 0x80, 0x04};  // version 65536
  ExpectCorruption(over, "version 65536 at position 2 is too large");
}

TEST(RemoteLogMetadataSerdeTest, RefusesLyingLengths) {
  // segment_started: frame 0..2, topic name's compact length at 3 ("orders": 7).
  std::vector<uint8_t> b = GoldenBytes("segment_started");
  ASSERT_EQ(b[3], 7);
  b[3] = 0x7f;  // 125 bytes, more than are left
  ExpectCorruption(b, "RemoteLogSegmentMetadataRecord");
  ExpectCorruption(b, "position 4");
  b[3] = 0;  // compact null: the name is not nullable
  ExpectCorruption(b, "null");

  // The SegmentLeaderEpochs array's compact count at 84: 3 (two entries).
  b = GoldenBytes("segment_started");
  ASSERT_EQ(b[84], 3);
  b[84] = 0x7f;
  ExpectCorruption(b, "SegmentLeaderEpochs");
  b[84] = 0;  // null: not nullable
  ExpectCorruption(b, "SegmentLeaderEpochs");

  // update_delete_started: CustomMetadata's compact length at 60 (4 bytes: 5).
  b = GoldenBytes("update_delete_started");
  ASSERT_EQ(b[60], 5);
  b[60] = 0x7f;
  ExpectCorruption(b, "RemoteLogSegmentMetadataUpdateRecord");

  // segment_finished_txn_empty: the tagged field's size (second to last byte, 1).
  b = GoldenBytes("segment_finished_txn_empty");
  ASSERT_EQ(b[b.size() - 2], 1);
  b[b.size() - 2] = 5;
  ExpectCorruption(b, "tagged field");
  // The tagged field count claims a second field that is not there.
  b = GoldenBytes("segment_finished_txn_empty");
  ASSERT_EQ(b[b.size() - 4], 1);
  b[b.size() - 4] = 2;
  ExpectCorruption(b, "RemoteLogSegmentMetadataRecord");
}

TEST(RemoteLogMetadataSerdeTest, RefusesTrailingBytes) {
  std::vector<uint8_t> b = GoldenBytes("partition_delete_marked");
  const size_t end = b.size();
  b.push_back(0);
  ExpectCorruption(b,
                   "1 byte(s) after the RemotePartitionDeleteMetadataRecord ending at position " +
                       std::to_string(end));
}

TEST(RemoteLogMetadataSerdeTest, RefusesUnknownStates) {
  // The state is the byte before the tagged fields (segment_started: ... state 0, no tags).
  std::vector<uint8_t> b = GoldenBytes("segment_started");
  ASSERT_EQ(b[b.size() - 2], 0);
  b[b.size() - 2] = 4;
  ExpectCorruption(b, "RemoteLogSegmentState 4");
  b = GoldenBytes("partition_delete_finished");
  ASSERT_EQ(b[b.size() - 2], 2);
  b[b.size() - 2] = 3;
  ExpectCorruption(b, "RemotePartitionDeleteState 3");
  b[b.size() - 2] = 0xff;
  ExpectCorruption(b, "RemotePartitionDeleteState -1");

  RemoteLogSegmentMetadataUpdateRecord u;
  u.remote_log_segment_state = 9;
  Result<std::vector<uint8_t>> e = EncodeRemoteLogMetadata(u);
  ASSERT_FALSE(e.ok());
  EXPECT_TRUE(e.status().IsInvalidArgument()) << e.status().ToString();
  EXPECT_NE(e.status().message().find("RemoteLogSegmentState 9"), std::string_view::npos);
  RemotePartitionDeleteMetadataRecord d;
  d.remote_partition_delete_state = -1;
  EXPECT_TRUE(EncodeRemoteLogMetadata(d).status().IsInvalidArgument());
}

TEST(RemoteLogMetadataSerdeTest, PartitionsAsKafka) {
  ASSERT_EQ(std::size(kGoldenPartitions), 60u);
  for (const GoldenPartition& g : kGoldenPartitions) {
    Result<Uuid> id = Uuid::Parse(g.topic_id);
    ASSERT_TRUE(id.ok()) << g.topic_id;
    EXPECT_EQ(RemoteLogMetadataPartitionFor(*id, g.partition, g.num_partitions),
              g.metadata_partition)
        << g.topic_id << " " << g.partition << " " << g.num_partitions;
  }
  // The cases' topics are the golden lines' topics, in order.
  EXPECT_EQ(testing::PartitionCaseTopics()[0].ToString(), kGoldenPartitions[0].topic_id);
}

TEST(RemoteLogMetadataSerdeTest, PartitionIsInRange) {
  for (uint32_t seed = 0; seed < 2000; ++seed) {
    const Uuid id = testing::JavaUuid(0x9e3779b97f4a7c15ULL * (seed + 1), ~uint64_t{seed} << 7);
    const int32_t p = RemoteLogMetadataPartitionFor(id, static_cast<int32_t>(seed * 7919), 50);
    ASSERT_GE(p, 0);
    ASSERT_LT(p, 50);
    EXPECT_EQ(RemoteLogMetadataPartitionFor(id, static_cast<int32_t>(seed * 7919), 1), 0);
  }
}

}  // namespace
}  // namespace seglog::protocol
