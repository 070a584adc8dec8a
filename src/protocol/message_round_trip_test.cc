// Round trips of every message Kafka's schemas define (the coordinators' records included), at
// every version: a sample with a value in every field the version has (tagged fields and unknown
// tags included) encodes, decodes to an equal message, and encodes again to the same bytes;
// every shorter prefix of an encoding is refused. The bytes Kafka's own Java classes make of the
// same samples are checked by the interop test (interop.kafka_reads_seglog_protocol_messages).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "protocol/generated/api_messages.h"
#include "protocol/generated/message_samples.h"
#include "protocol/generated/produce_request.h"
#include "protocol/generated/request_header.h"

namespace seglog::protocol {
namespace {

using testing::AllMessageCases;
using testing::MessageCase;

TEST(MessageRoundTripTest, EveryMessageEveryVersion) {
  int checked = 0;
  for (const MessageCase& c : AllMessageCases()) {
    for (int16_t v = c.lowest_version; v <= c.highest_version; ++v) {
      for (uint32_t seed : {1u, 2u, 3u, 4u}) {
        SCOPED_TRACE(std::string(c.name) + " v" + std::to_string(v) + " seed " +
                     std::to_string(seed));
        std::vector<uint8_t> first;
        Status s = c.encode_sample(v, seed, &first);
        ASSERT_TRUE(s.ok()) << s.ToString();
        std::vector<uint8_t> second;
        s = c.decode_check(v, seed, first, &second);
        ASSERT_TRUE(s.ok()) << s.ToString();
        EXPECT_EQ(first, second);
        ++checked;
      }
    }
  }
  // 696 message versions in Kafka 4.4.0: 641 of kafka-clients, 55 of the coordinators' records.
  EXPECT_GT(checked, 4 * 690);
}

TEST(MessageRoundTripTest, EveryPrefixIsRefused) {
  for (const MessageCase& c : AllMessageCases()) {
    for (int16_t v = c.lowest_version; v <= c.highest_version; ++v) {
      SCOPED_TRACE(std::string(c.name) + " v" + std::to_string(v));
      std::vector<uint8_t> full;
      ASSERT_TRUE(c.encode_sample(v, 2, &full).ok());
      std::vector<uint8_t> scratch;
      for (size_t n = 0; n < full.size(); ++n) {
        std::vector<uint8_t> prefix(full.begin(), full.begin() + static_cast<ptrdiff_t>(n));
        EXPECT_TRUE(c.decode_check(v, testing::kNoSeed, prefix, &scratch).IsCorruption())
            << "prefix of " << n << " of " << full.size() << " bytes decoded";
      }
      // And one byte too many is left over.
      full.push_back(0);
      EXPECT_TRUE(c.decode_check(v, testing::kNoSeed, full, &scratch).IsCorruption());
    }
  }
}

TEST(MessageRoundTripTest, FlexibleVersionsChangeTheEncoding) {
  ProduceRequestData request;
  request.transactional_id = std::nullopt;
  request.acks = -1;
  request.timeout_ms = 30000;
  auto& topic = request.topic_data.emplace_back();
  topic.name = "t";
  auto& partition = topic.partition_data.emplace_back();
  partition.index = 0;
  static const uint8_t kBatch[] = {9, 9, 9};
  partition.records = Records::View(kBatch);
  ProtocolWriter v8;
  ASSERT_TRUE(request.Encode(&v8, 8).ok());
  // null transactional id (int16 -1), acks, timeout, 1 topic, "t", 1 partition, 0, 3 bytes.
  const std::vector<uint8_t> want8 = {0xff, 0xff, 0xff, 0xff, 0,   0, 0x75, 0x30, 0, 0,
                                      0,    1,    0,    1,    't', 0, 0,    0,    1, 0,
                                      0,    0,    0,    0,    0,   0, 3,    9,    9, 9};
  EXPECT_EQ(v8.bytes(), want8);
  ProtocolWriter v9;
  ASSERT_TRUE(request.Encode(&v9, 9).ok());
  // compact null (0), acks, timeout, compact 1 topic (2), compact "t", compact 1 partition,
  // index, compact 3 bytes (4), then empty tagged sections for partition, topic, request.
  const std::vector<uint8_t> want9 = {0, 0xff, 0xff, 0, 0, 0x75, 0x30, 2, 2, 't', 2,
                                      0, 0,    0,    0, 4, 9,    9,    9, 0, 0,   0};
  EXPECT_EQ(v9.bytes(), want9);
  // v13 has topic ids instead of names: a non-default name is ignorable, so it is dropped.
  ProtocolWriter v13;
  EXPECT_TRUE(request.Encode(&v13, 13).ok());
}

TEST(MessageRoundTripTest, NonIgnorableFieldOutsideItsVersionsFails) {
  RequestHeaderData header;
  header.request_api_key = 18;
  header.client_id = "console-producer";
  ProtocolWriter w;
  // ClientId is in versions 1+; at v0 a non-default one cannot be written.
  EXPECT_TRUE(header.Encode(&w, 0).IsInvalidArgument());
}

TEST(MessageRoundTripTest, UnknownTaggedFieldsAreKeptAndResent) {
  RequestHeaderData header;
  header.request_api_key = 3;
  header.request_api_version = 12;
  header.correlation_id = 7;
  header.client_id = "c";
  header.unknown_tagged_fields.push_back(RawTaggedField{5, {1, 2}});
  header.unknown_tagged_fields.push_back(RawTaggedField{2, {3}});
  ProtocolWriter w;
  ASSERT_TRUE(header.Encode(&w, 2).ok());
  // ClientId stays a non-compact string in header v2 (flexibleVersions "none").
  const std::vector<uint8_t> want = {0, 3, 0, 12, 0, 0, 0, 7, 0, 1, 'c', 2, 2, 1, 3, 5, 2, 1, 2};
  EXPECT_EQ(w.bytes(), want);
  auto parsed = RequestHeaderData::Parse(w.bytes(), 2);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  ASSERT_EQ(parsed.value().unknown_tagged_fields.size(), 2u);
  EXPECT_EQ(parsed.value().unknown_tagged_fields[0].tag, 2u);  // as written: sorted by tag
}

TEST(ApiMessagesTest, HeaderVersions) {
  // Produce v8 is not flexible, v9 is; ApiVersions' response header is always v0 (KIP-511).
  EXPECT_EQ(RequestHeaderVersion(0, 8), 1);
  EXPECT_EQ(RequestHeaderVersion(0, 9), 2);
  EXPECT_EQ(ResponseHeaderVersion(0, 8), 0);
  EXPECT_EQ(ResponseHeaderVersion(0, 9), 1);
  EXPECT_EQ(RequestHeaderVersion(18, 3), 2);
  EXPECT_EQ(ResponseHeaderVersion(18, 3), 0);
  const ApiMessageInfo* fetch = FindApi(1);
  ASSERT_NE(fetch, nullptr);
  EXPECT_EQ(fetch->name, "Fetch");
  EXPECT_EQ(fetch->lowest_version, 4);
  EXPECT_EQ(FindApi(9999), nullptr);
}

}  // namespace
}  // namespace seglog::protocol
