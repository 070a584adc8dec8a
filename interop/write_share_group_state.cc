// seglog_write_share_group_state DIR: opens a LogManager over DIR with a topic "data" of two
// partitions and has seglog's ShareCoordinator write share state for it - initializations, a
// new leader's read, writes with every delivery state (enough of them that one becomes a
// snapshot), a delete (a tombstone) - into __share_group_state with two partitions. Prints,
// one per line, "dir <partition dir> <records>" for each partition of __share_group_state that
// got records, then "state <group> <partition> <snapshot epoch> <start offset> <batches>" for
// each share-partition left ("deleted" for the deleted one), for check_share_group_state.sh to
// hold against Kafka's DumpLogSegments --share-group-state-decoder.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "base/scheduler.h"
#include "manager/log_manager.h"
#include "seglog/log.h"
#include "sharestate/share_coordinator.h"

namespace {

struct Config : seglog::LogManagerConfig {
  seglog::ShareCoordinatorConfig share;
};

int Fail(const std::string& what) {
  std::fprintf(stderr, "%s\n", what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  using seglog::ShareCoordinator;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  std::map<std::string, std::string> props = {
      {"log.dirs", argv[1]},
      {"share.coordinator.state.topic.num.partitions", "2"},
      {"share.coordinator.snapshot.update.records.per.snapshot", "2"}};
  Config config;
  std::vector<std::string> errors;
  seglog::LogManagerConfig::Parse(
      props, [&](const std::string& k, const std::string& v) { return config.share.Set(k, v); },
      &config, &errors);
  if (seglog::Status s = config.Finish(errors); !s.ok()) return Fail(s.ToString());
  seglog::MockScheduler scheduler(1700000000000);
  auto logs = seglog::LogManager::Open(config, &scheduler, {});
  if (!logs.ok()) return Fail(logs.status().ToString());
  if (seglog::Status s = (*logs)->CreateTopic("data", 2); !s.ok()) return Fail(s.ToString());
  auto id = seglog::Uuid::Parse((*logs)->FindTopicIdentity("data")->topic_id);
  if (!id.ok()) return Fail(id.status().ToString());
  auto coordinator = ShareCoordinator::Open(
      config.share, logs->get(), &scheduler,
      [&](const seglog::Uuid& t) -> std::optional<int32_t> {
        if (t != *id) return std::nullopt;
        return 2;
      },
      nullptr);
  if (!coordinator.ok()) return Fail(coordinator.status().ToString());
  ShareCoordinator& c = **coordinator;
  auto ok = [](const ShareCoordinator::Outcome& o, const char* what) {
    if (o.error_code != 0) {
      std::fprintf(stderr, "%s: error %d %s\n", what, o.error_code,
                   o.error_message.value_or("").c_str());
      return false;
    }
    return true;
  };
  std::map<int32_t, int> records;  // by partition of __share_group_state
  for (const std::string group : {"share-a", "share-b:with:colons", "share-\xc3\xa9"}) {
    for (int32_t p = 0; p < 2; ++p) {
      const seglog::SharePartitionKey key{.group_id = group, .topic_id = *id, .partition = p};
      const int32_t home = c.PartitionFor(key);
      if (!ok(c.Initialize(key, 0, -1), "initialize")) return 1;
      if (!ok(c.Initialize(key, 1, 0), "initialize again")) return 1;
      if (!ok(c.Read(key, 3), "read")) return 1;
      records[home] += 3;
      for (int i = 0; i < 3; ++i) {
        ShareCoordinator::WriteData w;
        w.state_epoch = 1;
        w.leader_epoch = 3;
        w.start_offset = 10 * i;
        w.delivery_complete_count = i;
        w.state_batches = {{.first_offset = 10 * i,
                            .last_offset = 10 * i + 3,
                            .delivery_state = 2,
                            .delivery_count = 1},
                           {.first_offset = 10 * i + 4,
                            .last_offset = 10 * i + 5,
                            .delivery_state = 0,
                            .delivery_count = 2},
                           {.first_offset = 10 * i + 6,
                            .last_offset = 10 * i + 6,
                            .delivery_state = 4,
                            .delivery_count = 5}};
        if (!ok(c.Write(key, w), "write")) return 1;
        ++records[home];
      }
      if (group == "share-a" && p == 1) {
        if (!ok(c.Delete(key), "delete")) return 1;
        ++records[home];
      }
    }
  }
  std::vector<std::string> states;
  for (const std::string group : {"share-a", "share-b:with:colons", "share-\xc3\xa9"}) {
    for (int32_t p = 0; p < 2; ++p) {
      const seglog::SharePartitionKey key{.group_id = group, .topic_id = *id, .partition = p};
      std::optional<seglog::ShareGroupOffset> s = c.StateOf(key);
      std::string line = "state " + group + " " + std::to_string(p) + " ";
      if (!s) {
        line += "deleted";
      } else {
        line += std::to_string(s->snapshot_epoch) + " " + std::to_string(s->start_offset) + " ";
        for (const seglog::PersisterStateBatch& b : s->state_batches) {
          line += std::to_string(b.first_offset) + "-" + std::to_string(b.last_offset) + ":" +
                  std::to_string(b.delivery_state) + "x" + std::to_string(b.delivery_count) + ",";
        }
      }
      states.push_back(line);
    }
  }
  c.Shutdown();
  coordinator->reset();
  if (seglog::Status s = (*logs)->Shutdown(); !s.ok()) return Fail(s.ToString());
  for (const auto& [p, n] : records) {
    std::printf("dir %s/__share_group_state-%d %d\n", argv[1], p, n);
  }
  for (const std::string& line : states) std::printf("%s\n", line.c_str());
  return 0;
}
