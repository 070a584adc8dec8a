// Tests for the share group offset admin APIs in the GroupCoordinator
// (group_coordinator_share_offsets.cc), over a real LogManager with a fake ShareStateAdmin
// that keeps share state in memory: AlterShareGroupOffsets creates the group and initializes
// the state at the given offsets, is refused for a group with members (nothing changed) and
// for another group type; DescribeShareGroupOffsets gives start offsets and the lag against
// the high watermark; DeleteShareGroupOffsets deletes the state; and every error path.
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <tuple>

#include "group/coordinator_test_base.h"
#include "group/group_coordinator.h"
#include "manager/log_manager.h"
#include "protocol/kafka_error.h"
#include "seglog/log.h"
#include "seglog/record_batch.h"

namespace seglog {
namespace {

namespace ke = kafka_error;
namespace p = protocol;

// Keeps the share state it is given; fails every call while `fail` is set.
class StateKeepingAdmin : public ShareStateAdmin {
 public:
  using Key = std::tuple<std::string, std::string, int32_t>;  // group, topic id, partition
  struct State {
    int32_t state_epoch = 0;
    int64_t start_offset = 0;
    int32_t delivery_complete_count = 0;
    bool operator==(const State&) const = default;
  };
  Status InitializeShareState(const std::string& group, int32_t state_epoch,
                              const std::vector<InitializeTopic>& topics) override {
    std::lock_guard<std::mutex> l(mu);
    ++calls;
    if (fail) return Status::IOError("share coordinator unavailable");
    for (const auto& t : topics) {
      for (int32_t p : t.partitions) {
        state[{group, t.topic_id.ToString(), p}] = State{state_epoch, t.start_offset, 0};
      }
    }
    return Status::OK();
  }
  Status DeleteShareState(const std::string& group,
                          const std::vector<TopicPartitions>& topics) override {
    std::lock_guard<std::mutex> l(mu);
    ++calls;
    if (fail) return Status::IOError("share coordinator unavailable");
    for (const auto& t : topics) {
      for (int32_t p : t.partitions) state.erase({group, t.topic_id.ToString(), p});
    }
    return Status::OK();
  }
  Result<std::vector<TopicSummary>> ReadShareStateSummary(
      const std::string& group, const std::vector<TopicPartitions>& topics) override {
    std::lock_guard<std::mutex> l(mu);
    ++calls;
    if (fail) return Status::IOError("share coordinator unavailable");
    std::vector<TopicSummary> out = NoStateSummary(topics);
    for (TopicSummary& t : out) {
      for (PartitionSummary& ps : t.partitions) {
        auto it = state.find({group, t.topic_id.ToString(), ps.partition});
        if (it == state.end()) continue;
        ps.start_offset = it->second.start_offset;
        ps.state_epoch = it->second.state_epoch;
        ps.delivery_complete_count = it->second.delivery_complete_count;
      }
    }
    return out;
  }
  std::mutex mu;
  bool fail = false;
  int calls = 0;
  std::map<Key, State> state;
};

class ShareOffsetsCoordinatorTest : public CoordinatorTestBase {
 protected:
  void SetUp() override {
    Open({{"group.share.assignment.interval.ms", "0"}});
    coordinator_->SetShareStateAdmin(admin_);
    ASSERT_TRUE(logs_->CreateTopic("t", 3, {}).ok());
  }
  Uuid TopicId(const std::string& name) { return *Uuid::Parse(logs_->FindTopic(name)->topic_id); }
  void Produce(int32_t partition, int count) {
    auto log = *logs_->GetLog({"t", partition});
    BatchOptions o;
    RecordBatchBuilder b(o);
    const std::vector<uint8_t> value = {1, 2, 3};
    for (int i = 0; i < count; ++i)
      ASSERT_TRUE(b.Append(kCoordinatorTestT0, std::nullopt, Bytes(value)).ok());
    ASSERT_TRUE(log->AppendAsLeader(*b.Build(), 0).ok());
  }
  p::AlterShareGroupOffsetsResponseData Alter(
      const std::string& group, const std::string& topic,
      const std::vector<std::pair<int32_t, int64_t>>& offsets) {
    p::AlterShareGroupOffsetsRequestData req;
    req.group_id = group;
    auto& t = req.topics.emplace_back();
    t.topic_name = topic;
    for (auto [partition, offset] : offsets) {
      auto& part = t.partitions.emplace_back();
      part.partition_index = partition;
      part.start_offset = offset;
    }
    return coordinator_->AlterShareGroupOffsets(req);
  }
  p::DescribeShareGroupOffsetsResponseData::DescribeShareGroupOffsetsResponseGroup Describe(
      const std::string& group,
      std::optional<std::vector<std::pair<std::string, std::vector<int32_t>>>> topics =
          std::nullopt) {
    p::DescribeShareGroupOffsetsRequestData::DescribeShareGroupOffsetsRequestGroup req;
    req.group_id = group;
    req.topics = std::nullopt;
    if (topics) {
      std::vector<p::DescribeShareGroupOffsetsRequestData::DescribeShareGroupOffsetsRequestTopic>
          named;
      for (auto& [name, partitions] : *topics) {
        auto& t = named.emplace_back();
        t.topic_name = name;
        t.partitions = partitions;
      }
      req.topics = std::move(named);
    }
    return coordinator_->DescribeShareGroupOffsets(req);
  }
  p::DeleteShareGroupOffsetsResponseData Delete(const std::string& group,
                                                const std::vector<std::string>& topics) {
    p::DeleteShareGroupOffsetsRequestData req;
    req.group_id = group;
    for (const auto& name : topics) req.topics.emplace_back().topic_name = name;
    return coordinator_->DeleteShareGroupOffsets(req);
  }
  p::ShareGroupHeartbeatResponseData Join(const std::string& group, const std::string& member) {
    p::ShareGroupHeartbeatRequestData req;
    req.group_id = group;
    req.member_id = member;
    req.member_epoch = 0;
    req.subscribed_topic_names = std::vector<std::string>{"t"};
    return coordinator_->ShareGroupHeartbeat({"client", "/127.0.0.1"}, req);
  }
  int64_t OffsetsLogEnd(const std::string& group) {
    return (*logs_->GetLog({kConsumerOffsetsTopic, coordinator_->PartitionFor(group)}))
        ->log_end_offset();
  }

  std::shared_ptr<StateKeepingAdmin> admin_ = std::make_shared<StateKeepingAdmin>();
};

TEST_F(ShareOffsetsCoordinatorTest, AlterCreatesTheGroupThenDescribeShowsOffsetsAndLag) {
  Produce(0, 10);
  Produce(1, 4);
  auto altered = Alter("sg", "t", {{0, 3}, {1, 0}, {7, 0}});
  ASSERT_EQ(altered.error_code, ke::kNone);
  ASSERT_EQ(altered.responses.size(), 1u);
  EXPECT_EQ(altered.responses[0].topic_id, TopicId("t"));
  ASSERT_EQ(altered.responses[0].partitions.size(), 3u);
  EXPECT_EQ(altered.responses[0].partitions[0].error_code, ke::kNone);
  EXPECT_EQ(altered.responses[0].partitions[1].error_code, ke::kNone);
  EXPECT_EQ(altered.responses[0].partitions[2].error_code, ke::kUnknownTopicOrPartition);
  EXPECT_EQ(altered.responses[0].partitions[2].error_message,
            "This server does not host this topic-partition.");
  // The share state at the given offsets, with the new group's epoch (0) as state epoch.
  EXPECT_EQ(admin_->state.size(), 2u);
  EXPECT_EQ((admin_->state[{"sg", TopicId("t").ToString(), 0}].start_offset), 3);
  // The group exists now (empty).
  auto described = coordinator_->DescribeShareGroup("sg");
  EXPECT_EQ(described.error_code, ke::kNone);
  EXPECT_EQ(described.group_state, "Empty");

  auto all = Describe("sg");
  ASSERT_EQ(all.error_code, ke::kNone);
  ASSERT_EQ(all.topics.size(), 1u);
  EXPECT_EQ(all.topics[0].topic_name, "t");
  ASSERT_EQ(all.topics[0].partitions.size(), 2u);
  EXPECT_EQ(all.topics[0].partitions[0].partition_index, 0);
  EXPECT_EQ(all.topics[0].partitions[0].start_offset, 3);
  EXPECT_EQ(all.topics[0].partitions[0].lag, 7);
  EXPECT_EQ(all.topics[0].partitions[1].start_offset, 0);
  EXPECT_EQ(all.topics[0].partitions[1].lag, 4);

  // Delivered records count out of the lag.
  admin_->state[{"sg", TopicId("t").ToString(), 0}].delivery_complete_count = 2;
  auto named = Describe("sg", {{{"t", {0, 2}}, {"gone", {0}}}});
  ASSERT_EQ(named.error_code, ke::kNone);
  ASSERT_EQ(named.topics.size(), 2u);
  EXPECT_EQ(named.topics[0].partitions[0].lag, 5);
  // Partition 2 has no state: start offset -1, no lag.
  EXPECT_EQ(named.topics[0].partitions[1].start_offset, -1);
  EXPECT_EQ(named.topics[0].partitions[1].lag, -1);
  EXPECT_EQ(named.topics[1].topic_name, "gone");
  EXPECT_EQ(named.topics[1].topic_id, Uuid{});
  EXPECT_EQ(named.topics[1].partitions[0].start_offset, -1);

  // Altered again: the new offsets replace the old.
  ASSERT_EQ(Alter("sg", "t", {{0, 9}}).responses[0].partitions[0].error_code, ke::kNone);
  EXPECT_EQ(Describe("sg").topics[0].partitions[0].start_offset, 9);
}

TEST_F(ShareOffsetsCoordinatorTest, AlterRefusedForAGroupWithMembers) {
  auto joined = Join("sg", "m-1");
  ASSERT_EQ(joined.error_code, ke::kNone) << joined.error_message.value_or("");
  const auto state = admin_->state;
  const int64_t end = OffsetsLogEnd("sg");
  auto altered = Alter("sg", "t", {{0, 5}});
  EXPECT_EQ(altered.error_code, ke::kNonEmptyGroup);
  EXPECT_EQ(altered.error_message, "The group is not empty.");
  EXPECT_TRUE(altered.responses.empty());
  EXPECT_EQ(admin_->state, state);
  EXPECT_EQ(OffsetsLogEnd("sg"), end);
  // And DeleteShareGroupOffsets too.
  auto deleted = Delete("sg", {"t"});
  EXPECT_EQ(deleted.error_code, ke::kNonEmptyGroup);
  EXPECT_EQ(OffsetsLogEnd("sg"), end);
}

TEST_F(ShareOffsetsCoordinatorTest, GroupErrors) {
  EXPECT_EQ(Alter("", "t", {{0, 0}}).error_code, ke::kInvalidGroupId);
  p::DeleteShareGroupOffsetsRequestData no_id;
  EXPECT_EQ(coordinator_->DeleteShareGroupOffsets(no_id).error_code, ke::kInvalidGroupId);
  auto missing = Delete("nope", {"t"});
  EXPECT_EQ(missing.error_code, ke::kGroupIdNotFound);
  EXPECT_EQ(missing.error_message, "Group nope not found.");
  // A consumer group of that id is not a share group.
  p::ConsumerGroupHeartbeatRequestData c;
  c.group_id = "cg";
  c.member_id = "c1";
  c.member_epoch = 0;
  c.rebalance_timeout_ms = 30000;
  c.subscribed_topic_names = std::vector<std::string>{"t"};
  c.topic_partitions.emplace();
  ASSERT_EQ(coordinator_->ConsumerGroupHeartbeat(1, {"client", "/127.0.0.1"}, c).error_code,
            ke::kNone);
  auto other = Alter("cg", "t", {{0, 0}});
  EXPECT_EQ(other.error_code, ke::kGroupIdNotFound);
  EXPECT_EQ(other.error_message, "Group cg is not a share group.");
  EXPECT_EQ(Delete("cg", {"t"}).error_message, "Group cg is not a share group.");
  // Describing a group without state is no error: nothing to show.
  auto none = Describe("nope");
  EXPECT_EQ(none.error_code, ke::kNone);
  EXPECT_TRUE(none.topics.empty());
}

TEST_F(ShareOffsetsCoordinatorTest, FailedInitializationIsThePartitionsError) {
  admin_->fail = true;
  auto altered = Alter("sg", "t", {{0, 1}, {9, 1}});
  ASSERT_EQ(altered.error_code, ke::kNone);
  ASSERT_EQ(altered.responses[0].partitions.size(), 2u);
  EXPECT_NE(altered.responses[0].partitions[0].error_code, ke::kNone);
  EXPECT_TRUE(altered.responses[0].partitions[0].error_message.has_value());
  EXPECT_EQ(altered.responses[0].partitions[1].error_code, ke::kUnknownTopicOrPartition);
  // Not initialized: DescribeShareGroupOffsets of all partitions shows none, and a failed
  // summary read is the group's error.
  auto all = Describe("sg");
  EXPECT_EQ(all.error_code, ke::kNone);
  EXPECT_TRUE(all.topics.empty());
  auto named = Describe("sg", {{{"t", {0}}}});
  EXPECT_EQ(named.error_code, ke::kUnknownServerError);
  admin_->fail = false;
  EXPECT_TRUE(Describe("sg").topics.empty());
}

TEST_F(ShareOffsetsCoordinatorTest, DeleteDeletesTheStateOfInitializedTopics) {
  ASSERT_TRUE(logs_->CreateTopic("u", 1, {}).ok());
  ASSERT_EQ(Alter("sg", "t", {{0, 0}, {1, 0}}).error_code, ke::kNone);
  auto deleted = Delete("sg", {"t", "u", "gone"});
  ASSERT_EQ(deleted.error_code, ke::kNone);
  ASSERT_EQ(deleted.responses.size(), 3u);
  EXPECT_EQ(deleted.responses[0].topic_name, "t");
  EXPECT_EQ(deleted.responses[0].topic_id, TopicId("t"));
  EXPECT_EQ(deleted.responses[0].error_code, ke::kNone);
  EXPECT_EQ(deleted.responses[1].topic_name, "u");
  EXPECT_EQ(deleted.responses[1].error_code, ke::kUnknownTopicOrPartition);
  EXPECT_EQ(deleted.responses[1].error_message, "There is no offset information to delete.");
  EXPECT_EQ(deleted.responses[2].topic_name, "gone");
  EXPECT_EQ(deleted.responses[2].error_message, "This server does not host this topic-partition.");
  EXPECT_TRUE(admin_->state.empty());
  EXPECT_TRUE(Describe("sg").topics.empty());
  // Nothing left to delete.
  auto again = Delete("sg", {"t"});
  ASSERT_EQ(again.responses.size(), 1u);
  EXPECT_EQ(again.responses[0].error_message, "There is no offset information to delete.");
  // The group itself stays (DeleteGroups deletes it).
  EXPECT_EQ(coordinator_->DescribeShareGroup("sg").error_code, ke::kNone);
}

TEST_F(ShareOffsetsCoordinatorTest, FailedDeletionKeepsTheTopicDeleting) {
  ASSERT_EQ(Alter("sg", "t", {{0, 0}}).error_code, ke::kNone);
  admin_->fail = true;
  auto failed = Delete("sg", {"t"});
  ASSERT_EQ(failed.error_code, ke::kNone);
  ASSERT_EQ(failed.responses.size(), 1u);
  EXPECT_NE(failed.responses[0].error_code, ke::kNone);
  EXPECT_EQ(failed.responses[0].topic_id, TopicId("t"));
  // Deleting now: asked again, every partition of the topic goes.
  admin_->fail = false;
  auto retried = Delete("sg", {"t"});
  ASSERT_EQ(retried.responses.size(), 1u);
  EXPECT_EQ(retried.responses[0].error_code, ke::kNone);
  EXPECT_TRUE(admin_->state.empty());
}

TEST_F(ShareOffsetsCoordinatorTest, AlteredOffsetsSurviveARestart) {
  Produce(0, 6);
  ASSERT_EQ(Alter("sg", "t", {{0, 2}}).error_code, ke::kNone);
  Reopen();
  coordinator_->SetShareStateAdmin(admin_);
  auto all = Describe("sg");
  ASSERT_EQ(all.topics.size(), 1u);
  EXPECT_EQ(all.topics[0].partitions[0].start_offset, 2);
  EXPECT_EQ(all.topics[0].partitions[0].lag, 4);
}

}  // namespace
}  // namespace seglog
