// seglog_write_share_group_records DIR: opens a LogManager over DIR with a topic "orders" of
// three partitions and has seglog's group coordinator run share groups on it (KIP-932): two
// members join a share group (the coordinator initializes the share state of every partition
// through seglog's share coordinator, then assigns them), one leaves, the other is fenced by
// its session timeout, and the empty group is deleted; a second group's member is fenced and the
// group stays. Prints "<partition dir>" for each partition of __consumer_offsets and
// __share_group_state with records, one per line, for check_share_group_records.sh to dump with
// Kafka's DumpLogSegments --offsets-decoder and --share-group-state-decoder.
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/scheduler.h"
#include "group/group_coordinator.h"
#include "manager/log_manager.h"
#include "node/share_state_persister.h"
#include "seglog/log.h"
#include "sharestate/share_coordinator.h"

namespace {

struct Config : seglog::LogManagerConfig {
  seglog::GroupCoordinatorConfig group;
  seglog::ShareCoordinatorConfig share;
};

int Fail(const std::string& what) {
  std::fprintf(stderr, "%s\n", what.c_str());
  return 1;
}

seglog::protocol::ShareGroupHeartbeatRequestData Heartbeat(const std::string& group,
                                                           const std::string& member, int32_t epoch,
                                                           bool subscribe) {
  seglog::protocol::ShareGroupHeartbeatRequestData req;
  req.group_id = group;
  req.member_id = member;
  req.member_epoch = epoch;
  if (subscribe) req.subscribed_topic_names = std::vector<std::string>{"orders"};
  return req;
}

}  // namespace

int main(int argc, char** argv) {
  using seglog::GroupCoordinator;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  std::map<std::string, std::string> props = {
      {"log.dirs", argv[1]},
      {"offsets.topic.num.partitions", "1"},
      {"share.coordinator.state.topic.num.partitions", "1"}};
  Config config;
  std::vector<std::string> errors;
  seglog::LogManagerConfig::Parse(
      props,
      [&](const std::string& k, const std::string& v) -> std::optional<seglog::Status> {
        if (auto s = config.group.Set(k, v)) return s;
        return config.share.Set(k, v);
      },
      &config, &errors);
  if (seglog::Status s = config.Finish(errors); !s.ok()) return Fail(s.ToString());
  seglog::MockScheduler scheduler(1700000000000);
  auto logs = seglog::LogManager::Open(config, &scheduler, {});
  if (!logs.ok()) return Fail(logs.status().ToString());
  seglog::LogManager* lm = logs->get();
  if (seglog::Status s = lm->CreateTopic("orders", 3); !s.ok()) return Fail(s.ToString());
  auto share = seglog::ShareCoordinator::Open(
      config.share, lm, &scheduler,
      [lm](const seglog::Uuid& id) -> std::optional<int32_t> {
        auto name = lm->TopicNameForId(id.ToString());
        if (!name) return std::nullopt;
        return lm->FindTopicIdentity(*name)->partitions;
      },
      nullptr);
  if (!share.ok()) return Fail(share.status().ToString());
  auto groups = GroupCoordinator::Open(config.group, lm, &scheduler, nullptr);
  if (!groups.ok()) return Fail(groups.status().ToString());
  GroupCoordinator& g = **groups;
  g.SetShareStateAdmin(std::make_shared<seglog::SharePersister>(share->get()));
  if (seglog::Status s = g.EnsureOffsetsTopic(); !s.ok()) return Fail(s.ToString());
  const GroupCoordinator::Client client{"writer", "/127.0.0.1"};
  auto beat = [&](const std::string& group, const std::string& member, int32_t epoch,
                  bool subscribe) {
    auto r = g.ShareGroupHeartbeat(client, Heartbeat(group, member, epoch, subscribe));
    if (r.error_code != 0) {
      std::fprintf(stderr, "heartbeat %s/%s: error %d %s\n", group.c_str(), member.c_str(),
                   r.error_code, r.error_message.value_or("").c_str());
    }
    return r;
  };
  // Two members join "sa": the first heartbeat initializes the share state, the next ones are
  // given the partitions.
  auto a = beat("sa", "member-a", 0, true);
  auto b = beat("sa", "member-b", 0, true);
  if (a.error_code != 0 || b.error_code != 0) return 1;
  // group.share.assignment.interval.ms (1 s) apart, as members heartbeat every few seconds.
  // The answer carries an assignment only when it changed.
  auto given = [](const seglog::protocol::ShareGroupHeartbeatResponseData& r) {
    return r.assignment && !r.assignment->topic_partitions.empty();
  };
  bool a_given = false, b_given = false;
  for (int i = 0; i < 3; ++i) {
    scheduler.Advance(config.group.group_share_assignment_interval_ms);
    a = beat("sa", "member-a", a.member_epoch, false);
    b = beat("sa", "member-b", b.member_epoch, false);
    if (a.error_code != 0 || b.error_code != 0) return 1;
    a_given = a_given || given(a);
    b_given = b_given || given(b);
  }
  auto c = beat("sb", "member-c", 0, true);
  if (c.error_code != 0) return 1;
  scheduler.Advance(config.group.group_share_assignment_interval_ms);
  c = beat("sb", "member-c", c.member_epoch, false);
  if (!a_given || !b_given || !given(c)) return Fail("a member was not given partitions");
  // member-a leaves; member-b and member-c stop heartbeating and are fenced by their session
  // timeout (sb stays, empty).
  if (beat("sa", "member-a", -1, false).error_code != 0) return 1;
  scheduler.Advance(config.group.group_share_session_timeout_ms + 1000);
  if (int16_t e = g.DeleteGroup("sa"); e != 0) return Fail("DeleteGroup sa: " + std::to_string(e));
  g.Shutdown();
  (*share)->Shutdown();
  groups->reset();
  share->reset();
  if (seglog::Status s = lm->Shutdown(); !s.ok()) return Fail(s.ToString());
  std::printf("%s/__consumer_offsets-0\n%s/__share_group_state-0\n", argv[1], argv[1]);
  return 0;
}
