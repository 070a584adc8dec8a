// ParseRequestBody's allocation budget: a request may decode to at most kDecodedSizeFactor
// times its bytes (plus kDecodedSizeSlack), so a small frame cannot cost the broker a large
// multiple of itself in memory; requests real clients send stay well inside it.
#include "protocol/request_body.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "protocol/generated/fetch_request.h"
#include "protocol/generated/metadata_request.h"
#include "protocol/protocol_writer.h"

namespace seglog::protocol {
namespace {

using ::testing::HasSubstr;

template <typename Message>
std::vector<uint8_t> Encoded(const Message& m, int16_t version) {
  ProtocolWriter w;
  EXPECT_TRUE(m.Encode(&w, version).ok());
  return w.bytes();
}

TEST(RequestBody, AFetchOfMillionsOfEmptyTopicsIsRefusedNotDecoded) {
  FetchRequestData fetch;
  fetch.max_wait_ms = 60000;
  fetch.topics.resize(300000);  // 3 bytes each on the wire (v12: "", no partitions, no tags)
  const std::vector<uint8_t> body = Encoded(fetch, 12);
  ASSERT_LT(body.size(), 1000000u);
  size_t decoded = 0;
  Result<FetchRequestData> r = ParseRequestBody<FetchRequestData>(body, 12, nullptr, &decoded);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
  EXPECT_THAT(r.status().ToString(), HasSubstr("FetchRequestData.Topics"));
  EXPECT_EQ(decoded, 0u);  // refused before the array was made
  // Without the budget the same bytes decode to over 30 times their size.
  FetchRequestData unbounded;
  ProtocolReader reader(body);
  ASSERT_TRUE(unbounded.Decode(&reader, 12).ok());
  EXPECT_GT(unbounded.topics.size() * sizeof(FetchRequestData::FetchTopic), 30 * body.size());
}

TEST(RequestBody, OrdinaryRequestsDecodeWithinTheBudgetAndReportTheirSize) {
  MetadataRequestData metadata;
  metadata.topics.emplace();
  for (int i = 0; i < 10000; ++i) {
    auto& t = metadata.topics->emplace_back();
    t.name = fmt::format("t{}", i % 10);  // short names: the densest ordinary request
  }
  const std::vector<uint8_t> body = Encoded(metadata, 12);
  size_t decoded = 0;
  Result<MetadataRequestData> r =
      ParseRequestBody<MetadataRequestData>(body, 12, nullptr, &decoded);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->topics->size(), 10000u);
  EXPECT_EQ(decoded, 10000 * sizeof(MetadataRequestData::MetadataRequestTopic));
  EXPECT_LE(decoded, body.size() * kDecodedSizeFactor);

  FetchRequestData fetch;
  for (int t = 0; t < 100; ++t) {
    auto& topic = fetch.topics.emplace_back();
    topic.topic = fmt::format("topic-{}", t);
    topic.partitions.resize(50);
  }
  const std::vector<uint8_t> fetch_body = Encoded(fetch, 12);
  Result<FetchRequestData> f = ParseRequestBody<FetchRequestData>(fetch_body, 12);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->topics.size(), 100u);
}

}  // namespace
}  // namespace seglog::protocol
