// Kafka's feature flags as this node has them (features.cc): ApiVersions' features and
// UpdateFeatures' checks, in Kafka 4.4.0's order and words, each response encodable at every
// served version.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/scheduler.h"
#include "manager/metadata_store.h"
#include "protocol/generated/api_messages.h"
#include "protocol/kafka_error.h"
#include "protocol/protocol_writer.h"
#include "seglog/record_batch.h"
#include "server/expect_encodes.h"
#include "server/features.h"
#include "server/handlers.h"
#include "server/handlers_test_base.h"
#include "share/share_session_cache.h"
#include "tests/support/batches.h"
#include "tests/support/files.h"
#include "txn/transaction_marker.h"

namespace seglog {
namespace {

namespace ke = kafka_error;
namespace p = protocol;

// A node with cluster id "cluster-x" at transaction.version 2 on the manual clock, and a topic
// "t" of 2 partitions.
class FeaturesTest : public HandlersTest {
 protected:
  void SetUp() override {
    HandlersTest::SetUp();
    ctx_.cluster_id = "cluster-x";
    ctx_.transaction_version = 2;
    ctx_.clock = [this] { return scheduler_->NowMs(); };
    ASSERT_TRUE(logs_->CreateTopic("t", 2).ok());
  }
};

TEST_F(FeaturesTest, FeaturesAsKafkaListsThem) {
  p::ApiVersionsResponseData v4, v3;
  AddFeatures(ctx_, 4, &v4);
  AddFeatures(ctx_, 3, &v3);
  std::vector<std::string> supported;
  for (const auto& f : v4.supported_features) supported.push_back(f.name);
  EXPECT_THAT(supported,
              ::testing::ElementsAre("group.version", "kraft.version", "metadata.version",
                                     "share.version", "streams.version", "transaction.version",
                                     "eligible.leader.replicas.version"));
  // v3 clients get only features whose minimum is above 0.
  ASSERT_EQ(v3.supported_features.size(), 1u);
  EXPECT_EQ(v3.supported_features[0].name, "metadata.version");
  bool tv = false;
  for (const auto& f : v4.finalized_features) {
    if (f.name == "transaction.version") tv = f.max_version_level == 2;
    // A static quorum: kraft.version 0, not listed (a --standalone directory's 1 is:
    // interop.kraft_takeover_standalone).
    EXPECT_NE(f.name, "kraft.version");
  }
  EXPECT_TRUE(tv);
}

TEST_F(FeaturesTest, UpdateFeaturesChecksInKafkasOrder) {
  auto update = [&](const std::string& name, int16_t level, int8_t type, int16_t version = 1) {
    p::UpdateFeaturesRequestData req;
    auto& u = req.feature_updates.emplace_back();
    u.feature = name;
    u.max_version_level = level;
    u.upgrade_type = type;
    return HandleUpdateFeatures(ctx_, rc_, req, version);
  };
  const std::string prefix =
      "The update failed for all features since the following feature had an error: ";
  auto r = update("transaction.version", 2, 1);  // the level it runs at
  EXPECT_EQ(r.error_code, 0);
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_EQ(r.results[0].error_message, "NONE");
  EXPECT_TRUE(update("transaction.version", 2, 1, 2).results.empty());  // v2: no results
  EXPECT_EQ(update("nope", 1, 1).error_message,
            prefix +
                "Invalid update version 1 for feature nope. Local controller 1 does not "
                "support this feature.");
  // A supported feature at another level than the one the node runs at: seglog's own refusal.
  EXPECT_EQ(update("group.version", 0, 2).error_message,
            prefix +
                "Invalid update version 0 for feature group.version. seglog runs at "
                "group.version 1 and cannot change it while it runs.");
  EXPECT_EQ(update("transaction.version", 3, 1).error_message,
            prefix +
                "Invalid update version 3 for feature transaction.version. Local "
                "controller 1 only supports versions 0-2");
  EXPECT_EQ(update("transaction.version", 1, 1).error_message,
            prefix +
                "Invalid update version 1 for feature transaction.version. Can't downgrade "
                "the version of this feature without setting the upgrade type to either "
                "safe or unsafe downgrade.");
  EXPECT_EQ(update("group.version", 1, 4).error_code, ke::kInvalidUpdateVersion);
  EXPECT_THAT(*update("group.version", 1, 4).error_message,
              ::testing::HasSubstr("The controller does not support the given upgrade type."));
  EXPECT_THAT(*update("group.version", -1, 1).error_message,
              ::testing::HasSubstr("A feature version cannot be less than 0."));
  // A level seglog can run at but does not now: refused, saying how.
  auto down = update("transaction.version", 1, 2);
  EXPECT_EQ(down.error_code, ke::kInvalidUpdateVersion);
  EXPECT_THAT(*down.error_message, ::testing::HasSubstr("set transaction.version=1"));
  EXPECT_TRUE(down.results.empty());
  testing::ExpectEncodes(r, p::ApiKey::kUpdateFeatures);
}

// share.version and streams.version move within their ranges: the metadata log records each
// change and the node serves at it from the next request; validateOnly changes nothing.
TEST_F(FeaturesTest, ShareAndStreamsVersionsChangeThroughTheMetadataLog) {
  MetadataStore* metadata = logs_->metadata();
  ASSERT_NE(metadata, nullptr);
  ctx_.features->share_version = metadata->FeatureLevel("share.version");
  ctx_.features->streams_version = metadata->FeatureLevel("streams.version");
  ASSERT_EQ(ctx_.share_version(), 2);  // the bootstrap's, as Kafka 4.4.0 formats
  ASSERT_EQ(ctx_.streams_version(), 1);
  const int64_t end = metadata->end_offset();
  auto update = [&](std::vector<std::pair<std::string, int16_t>> levels, int8_t type,
                    bool validate_only = false, int16_t version = 1) {
    p::UpdateFeaturesRequestData req;
    req.validate_only = validate_only;
    for (const auto& [name, level] : levels) {
      auto& u = req.feature_updates.emplace_back();
      u.feature = name;
      u.max_version_level = level;
      u.upgrade_type = type;
    }
    return HandleUpdateFeatures(ctx_, rc_, req, version);
  };
  const std::string prefix =
      "The update failed for all features since the following feature had an error: ";
  // Kafka's checks still hold.
  EXPECT_EQ(update({{"share.version", 0}}, 1).error_message,
            prefix +
                "Invalid update version 0 for feature share.version. Can't downgrade the "
                "version of this feature without setting the upgrade type to either safe or "
                "unsafe downgrade.");
  EXPECT_EQ(update({{"share.version", 3}}, 1).error_message,
            prefix +
                "Invalid update version 3 for feature share.version. Local controller 1 only "
                "supports versions 0-2");
  EXPECT_EQ(update({{"streams.version", 2}}, 1).error_message,
            prefix +
                "Invalid update version 2 for feature streams.version. Local controller 1 "
                "only supports versions 0-1");
  // One refused update refuses them all: nothing is written.
  EXPECT_EQ(update({{"share.version", 1}, {"group.version", 0}}, 2).error_code,
            ke::kInvalidUpdateVersion);
  // validateOnly: answered, not applied.
  auto checked = update({{"share.version", 0}}, 2, /*validate_only=*/true);
  EXPECT_EQ(checked.error_code, 0);
  EXPECT_EQ(ctx_.share_version(), 2);
  EXPECT_EQ(metadata->end_offset(), end);
  // A safe downgrade of both, in one request.
  auto down = update({{"share.version", 0}, {"streams.version", 0}}, 2);
  EXPECT_EQ(down.error_code, 0);
  ASSERT_EQ(down.results.size(), 2u);
  EXPECT_EQ(ctx_.share_version(), 0);
  EXPECT_EQ(ctx_.streams_version(), 0);
  EXPECT_EQ(metadata->FeatureLevel("share.version"), 0);
  EXPECT_EQ(metadata->FeatureLevel("streams.version"), 0);
  EXPECT_EQ(metadata->end_offset(), end + 2);
  p::ApiVersionsResponseData av;
  AddFeatures(ctx_, 4, &av);
  // The epoch is the change's offset: clients keep the features of the highest epoch.
  EXPECT_EQ(av.finalized_features_epoch, end + 1);
  for (const auto& f : av.finalized_features) {
    EXPECT_NE(f.name, "share.version");
    EXPECT_NE(f.name, "streams.version");
  }
  // Up to 1, then 2 (an upgrade from an old directory's unfinalized 0).
  EXPECT_EQ(update({{"share.version", 1}}, 1, false, 2).error_code, 0);
  EXPECT_EQ(ctx_.share_version(), 1);
  EXPECT_EQ(update({{"share.version", 2}, {"streams.version", 1}}, 1).error_code, 0);
  EXPECT_EQ(ctx_.share_version(), 2);
  EXPECT_EQ(ctx_.streams_version(), 1);
  EXPECT_EQ(metadata->FeatureLevel("share.version"), 2);
  EXPECT_EQ(metadata->FeatureLevel("streams.version"), 1);
  av = {};
  AddFeatures(ctx_, 4, &av);
  int16_t share = 0;
  for (const auto& f : av.finalized_features) {
    if (f.name == "share.version") share = f.max_version_level;
  }
  EXPECT_EQ(share, 2);
  // The same level again: Kafka records it anyway.
  EXPECT_EQ(update({{"share.version", 2}}, 1).error_code, 0);
  EXPECT_EQ(ctx_.share_version(), 2);
}

// share.version below 1 forgets the share sessions, as Kafka's onShareVersionToggle does; an
// upgrade keeps them.
TEST_F(FeaturesTest, ShareVersionZeroForgetsTheShareSessions) {
  ShareSessionCache sessions;
  ctx_.share_sessions = &sessions;
  ctx_.features->share_version = 2;
  const ShareTopicIdPartition p0{Uuid::FromHalves(1, 2), 0};
  const std::vector<ShareTopicIdPartition> to_fetch = {p0};
  sessions.NewContext("g", "m1", 0, to_fetch, {}, false, "conn-1");
  ASSERT_EQ(sessions.size(), 1u);
  auto update = [&](int16_t level, int8_t type) {
    p::UpdateFeaturesRequestData req;
    auto& u = req.feature_updates.emplace_back();
    u.feature = "share.version";
    u.max_version_level = level;
    u.upgrade_type = type;
    return HandleUpdateFeatures(ctx_, rc_, req, 1);
  };
  EXPECT_EQ(update(1, 2).error_code, 0);  // still serving share groups
  EXPECT_EQ(sessions.size(), 1u);
  EXPECT_EQ(update(0, 3).error_code, 0);  // an unsafe downgrade is accepted as well
  EXPECT_EQ(sessions.size(), 0u);
  EXPECT_EQ(ctx_.share_version(), 0);
  EXPECT_EQ(logs_->metadata()->FeatureLevel("share.version"), 0);
  ctx_.share_sessions = nullptr;
}

}  // namespace
}  // namespace seglog
