// Golden bytes from Kafka 4.4.0's own classes (tests/data/protocol/golden_messages.txt, made by
// interop/kafka/src/GoldenMessages.java): seglog decodes each message to the values Kafka was
// given and encodes it back to exactly Kafka's bytes.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "protocol/generated/api_versions_response.h"
#include "protocol/generated/fetch_response.h"
#include "protocol/generated/message_samples.h"
#include "protocol/generated/metadata_response.h"
#include "protocol/generated/produce_request.h"
#include "protocol/generated/request_header.h"
#include "tests/support/source_path.h"

namespace seglog::protocol {
namespace {

struct Golden {
  std::string name;
  int16_t version;
  std::vector<uint8_t> bytes;
};

std::vector<Golden> LoadGolden() {
  std::ifstream in(seglog::testing::SourcePath("tests/data/protocol/golden_messages.txt"));
  std::vector<Golden> out;
  std::string name, hex;
  int version = 0;
  while (in >> name >> version >> hex) {
    Golden g{name, static_cast<int16_t>(version), {}};
    for (size_t i = 0; i + 1 < hex.size(); i += 2) {
      g.bytes.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    }
    out.push_back(std::move(g));
  }
  return out;
}

template <typename T>
T MustParse(const Golden& g) {
  auto r = T::Parse(g.bytes, g.version);
  EXPECT_TRUE(r.ok()) << g.name << " v" << g.version << ": " << r.status().ToString();
  ProtocolWriter w;
  EXPECT_TRUE(r.value().Encode(&w, g.version).ok());
  EXPECT_EQ(w.bytes(), g.bytes) << g.name << " v" << g.version << " re-encoded differently";
  return r.ok() ? std::move(r).value() : T{};
}

TEST(GoldenMessagesTest, EveryGoldenMessageRoundTripsToKafkasBytes) {
  std::vector<Golden> golden = LoadGolden();
  ASSERT_EQ(golden.size(), 17u);
  for (const Golden& g : golden) {
    bool found = false;
    for (const auto& c : testing::AllMessageCases()) {
      if (c.name != g.name) continue;
      found = true;
      std::vector<uint8_t> again;
      Status s = c.decode_check(g.version, testing::kNoSeed, g.bytes, &again);
      ASSERT_TRUE(s.ok()) << g.name << " v" << g.version << ": " << s.ToString();
      EXPECT_EQ(again, g.bytes) << g.name << " v" << g.version;
    }
    EXPECT_TRUE(found) << g.name;
  }
}

TEST(GoldenMessagesTest, FieldsAreKafkasValues) {
  const Uuid topic_id = [] {
    Uuid u;
    const uint8_t b[16] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
                           0x0f, 0xed, 0xcb, 0xa9, 0x87, 0x65, 0x43, 0x21};
    std::copy(b, b + 16, u.bytes.begin());
    return u;
  }();
  for (const Golden& g : LoadGolden()) {
    SCOPED_TRACE(g.name + " v" + std::to_string(g.version));
    if (g.name == "RequestHeader") {
      auto h = MustParse<RequestHeaderData>(g);
      EXPECT_EQ(h.request_api_key, 0);
      EXPECT_EQ(h.request_api_version, 9);
      EXPECT_EQ(h.correlation_id, 7);
      EXPECT_EQ(h.client_id, "producer-1");
    } else if (g.name == "ProduceRequest") {
      auto p = MustParse<ProduceRequestData>(g);
      EXPECT_FALSE(p.transactional_id.has_value());
      EXPECT_EQ(p.acks, -1);
      EXPECT_EQ(p.timeout_ms, 30000);
      ASSERT_EQ(p.topic_data.size(), 1u);
      EXPECT_EQ(p.topic_data[0].name, "orders");
      EXPECT_EQ(p.topic_data[0].partition_data[0].index, 2);
      EXPECT_EQ(p.topic_data[0].partition_data[0].records->size_bytes(), 17);
    } else if (g.name == "MetadataResponse") {
      auto m = MustParse<MetadataResponseData>(g);
      EXPECT_EQ(m.brokers[0].host, "127.0.0.1");
      EXPECT_EQ(m.brokers[0].port, 9092);
      EXPECT_EQ(m.controller_id, 1);
      EXPECT_EQ(m.cluster_id.has_value(), g.version >= 2);
      ASSERT_EQ(m.topics[0].partitions.size(), 2u);
      EXPECT_EQ(m.topics[0].partitions[1].leader_epoch, g.version >= 7 ? 3 : -1);
      if (g.version >= 10) {
        EXPECT_EQ(m.topics[0].topic_id, topic_id);
      }
    } else if (g.name == "FetchResponse") {
      auto f = MustParse<FetchResponseData>(g);
      const auto& p = f.responses[0].partitions[0];
      EXPECT_EQ(p.high_watermark, 100);
      EXPECT_EQ(p.log_start_offset, g.version >= 5 ? 10 : -1);  // v5+
      EXPECT_FALSE(p.aborted_transactions.has_value());
      EXPECT_EQ(p.records->size_bytes(), 17);
      if (g.version >= 12) {
        EXPECT_EQ(p.current_leader.leader_epoch, 3);
      }  // a tagged field
      if (g.version >= 13) {
        EXPECT_EQ(f.responses[0].topic_id, topic_id);
      }
      if (g.version >= 16) {
        EXPECT_EQ(f.node_endpoints.size(), 1u);
      }
    } else if (g.name == "ApiVersionsResponse") {
      auto a = MustParse<ApiVersionsResponseData>(g);
      ASSERT_EQ(a.api_keys.size(), 2u);
      EXPECT_EQ(a.api_keys[0].max_version, 13);
      if (g.version >= 3) {
        ASSERT_EQ(a.supported_features.size(), 1u);
        EXPECT_EQ(a.supported_features[0].name, "metadata.version");
        EXPECT_EQ(a.finalized_features_epoch, 12);
      }
    }
  }
}

}  // namespace
}  // namespace seglog::protocol
