// Tests for a coordinator partition's load and append: what a replay hands over (records from
// the log start, control batches, nothing below), batch options, and what each policy does with
// a log whose tail is torn or whose batch does not decode.
#include "coordinator/coordinator_log.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "seglog/log_config.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

constexpr int64_t kT0 = 1794024676000;

CoordinatorRecord Rec(const std::string& key, std::optional<std::string> value) {
  CoordinatorRecord r;
  r.key.assign(key.begin(), key.end());
  if (value) r.value = std::vector<uint8_t>(value->begin(), value->end());
  return r;
}

std::string Str(Bytes b) { return std::string(reinterpret_cast<const char*>(b.data()), b.size()); }

class CoordinatorLogTest : public ::testing::Test {
 protected:
  void SetUp() override { Reopen(); }
  // Opens the partition again; `clean`: as after a clean shutdown (no recovery of the tail).
  void Reopen(bool clean = false) {
    log_.reset();
    LogConfig config;
    config.cleanup_compact = true;  // and delete: DeleteRecords moves the log start
    LogOptions options;
    options.had_clean_shutdown = clean;
    auto log = Log::Open(dir_.path() + "/__consumer_offsets-0", config, options);
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    log_ = std::move(log).value();
  }
  // Every record the replay hands over, as "key=value" ("key=" for a tombstone), and control
  // batches as "control@offset".
  std::vector<std::string> Replay(ReplayPolicy policy, Status* status = nullptr,
                                  std::vector<std::string>* warnings = nullptr) {
    std::vector<std::string> seen;
    ReplayHandler h;
    h.record = [&](const RecordBatchView& batch, const Record& r) {
      std::string s = fmt::format("{}={}", Str(*r.key), r.value ? Str(*r.value) : std::string());
      if (batch.is_transactional()) s += fmt::format("@{}", batch.producer_id());
      seen.push_back(s);
    };
    h.control = [&](const RecordBatchView& batch) {
      seen.push_back(fmt::format("control@{}", batch.base_offset()));
    };
    h.logger = [&](const std::string& line) {
      if (warnings) warnings->push_back(line);
    };
    auto r = ReplayCoordinatorLog(*log_, "__consumer_offsets-0", policy, h);
    if (status) *status = r.status();
    if (r.ok()) {
      const auto controls = std::count_if(seen.begin(), seen.end(), [](const std::string& s) {
        return s.rfind("control@", 0) == 0;
      });
      EXPECT_EQ(r->records, static_cast<int64_t>(seen.size()) - controls);
    }
    return seen;
  }

  testing::TempDir dir_;
  std::unique_ptr<Log> log_;
};

TEST_F(CoordinatorLogTest, AppendsABatchAndReplaysEveryRecordInOrder) {
  std::vector<CoordinatorRecord> batch1 = {Rec("a", "1"), Rec("b", "2")};
  auto info = AppendCoordinatorRecords(*log_, batch1, CoordinatorBatch{kT0});
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->first_offset, 0);
  std::vector<CoordinatorRecord> batch2 = {Rec("a", std::nullopt)};
  ASSERT_TRUE(AppendCoordinatorRecords(*log_, batch2, CoordinatorBatch{kT0}).ok());
  // A transactional batch of producer 7 (base sequence 0, as the group coordinator writes it),
  // then its COMMIT marker.
  CoordinatorBatch txn{kT0, 7, 1, 0};
  std::vector<CoordinatorRecord> batch3 = {Rec("c", "3")};
  ASSERT_TRUE(AppendCoordinatorRecords(*log_, batch3, txn).ok());
  BatchOptions o;
  o.producer_id = 7;
  o.producer_epoch = 1;
  o.is_transactional = true;
  o.is_control = true;
  RecordBatchBuilder marker(o);
  ASSERT_TRUE(marker.AppendEndTxnMarker(ControlRecordType::kCommit, 0, kT0).ok());
  ASSERT_TRUE(log_->AppendAsLeader(*marker.Build(), 0, AppendOrigin::kCoordinator).ok());

  Status st;
  EXPECT_EQ(Replay(ReplayPolicy::kLenient, &st),
            (std::vector<std::string>{"a=1", "b=2", "a=", "c=3@7", "control@4"}));
  EXPECT_TRUE(st.ok());
  // From a later log start: nothing below it.
  auto deleted = log_->DeleteRecords(2);
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_EQ(Replay(ReplayPolicy::kStrict, &st),
            (std::vector<std::string>{"a=", "c=3@7", "control@4"}));
  EXPECT_TRUE(st.ok());
  ASSERT_TRUE(log_->DeleteRecords(4).ok());
  EXPECT_EQ(Replay(ReplayPolicy::kStrict), (std::vector<std::string>{"control@4"}));
}

TEST_F(CoordinatorLogTest, AnEmptyLogReplaysNothing) {
  Status st;
  EXPECT_TRUE(Replay(ReplayPolicy::kStrict, &st).empty());
  EXPECT_TRUE(st.ok());
}

// A batch that does not parse (its magic byte flipped on disk, in a log that was shut down
// cleanly, so no recovery truncates it): the lenient load keeps what comes before it and stops
// there; the strict load fails, naming where.
TEST_F(CoordinatorLogTest, ABatchThatDoesNotParseEndsALenientLoadAndFailsAStrictOne) {
  std::vector<CoordinatorRecord> good = {Rec("a", "1")};
  std::vector<CoordinatorRecord> bad = {Rec("b", "2")};
  ASSERT_TRUE(AppendCoordinatorRecords(*log_, good, CoordinatorBatch{kT0}).ok());
  ASSERT_TRUE(AppendCoordinatorRecords(*log_, bad, CoordinatorBatch{kT0}).ok());
  ASSERT_TRUE(log_->Flush(log_->log_end_offset()).ok());
  log_.reset();
  const std::string segment = dir_.path() + "/__consumer_offsets-0/00000000000000000000.log";
  const auto size = std::filesystem::file_size(segment);
  ASSERT_EQ(size % 2, 0u);  // two batches of the same size
  {
    std::fstream f(segment, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(size / 2 + 16));  // the second batch's magic
    f.put('\x01');
  }
  Reopen(/*clean=*/true);
  Status st;
  std::vector<std::string> warnings;
  EXPECT_EQ(Replay(ReplayPolicy::kLenient, &st, &warnings), std::vector<std::string>{"a=1"});
  EXPECT_TRUE(st.ok()) << st.ToString();
  Replay(ReplayPolicy::kStrict, &st);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.ToString().find("after offset 1"), std::string::npos) << st.ToString();
}

}  // namespace
}  // namespace seglog
