// Crash harness: a child process appends to three partitions of one log directory -
// rolling often, with small indexes, and checkpointing recovery points every few appends - and
// is killed with SIGKILL at a random moment (mid-append, during a roll, while it writes index
// entries or a checkpoint). The parent then reopens the directory as after an unclean shutdown
// and checks that it opens; every batch is valid and exactly the batch the child wrote at that
// offset; offsets are contiguous from the log start; everything below the checkpointed recovery
// point is still there; and a second unclean reopen changes nothing. The child also runs
// retention on them, and writes to a compacted partition that it cleans as it goes (the
// table's records must be exactly those written, with every key's latest one present).
//
// A SIGKILL loses no page-cache data, so this proves the software side (ordering of writes,
// indexes, checkpoints, markers); torn writes from power loss are covered by the loader tests
// that cut, zero-fill and garble files directly.
//
// Trials: SEGLOG_CRASH_TRIALS (default 200); see docs/design/recovery.md for longer runs.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <thread>

#include "base/coding.h"
#include "base/scheduler.h"
#include "cleaner/cleaner.h"
#include "log/checkpoint_file.h"
#include "manager/log_directory.h"
#include "record/batch_walker.h"
#include "seglog/log.h"
#include "tests/support/batches.h"

namespace seglog {
namespace {

constexpr int kPartitions = 3;
constexpr int64_t kT0 = 1700000000000;

LogConfig Config() {
  LogConfig c;
  (void)c.Set("internal.segment.bytes", "65536");  // roll every ~64 KiB
  (void)c.Set("segment.index.bytes", "1024");      // and when an index fills
  (void)c.Set("index.interval.bytes", "512");
  // Retention deletes the oldest segments as the child goes (renamed .deleted, removed a few
  // ms later on the scheduler), so kills also land in the middle of deletions.
  (void)c.Set("retention.bytes", "200000");
  (void)c.Set("file.delete.delay.ms", "3");
  return c;
}

int Count(int64_t base) { return 1 + static_cast<int>(base % 5); }

// A compacted partition ("table-0") gets keys that repeat, and the child cleans it as it goes:
// kills also land in the middle of a cleaning round and its swap.
constexpr int kTableKeys = 37;
LogConfig TableConfig() {
  LogConfig c;
  (void)c.Set("cleanup.policy", "compact");
  (void)c.Set("internal.segment.bytes", "16384");
  (void)c.Set("file.delete.delay.ms", "3");
  return c;
}
std::string TableKey(int64_t o) { return fmt::format("k{}", o % kTableKeys); }
std::string TableValue(int64_t o) {
  return std::string(static_cast<size_t>(20 + (o * 13) % 300), static_cast<char>('a' + o % 26));
}
std::vector<uint8_t> TableBatchAt(int64_t base) {
  RecordBatchBuilder b{BatchOptions{}};
  for (int i = 0; i < Count(base); ++i) {
    const int64_t o = base + i;
    const std::string key = TableKey(o), value = TableValue(o);
    (void)b.Append(kT0 + o, Bytes(reinterpret_cast<const uint8_t*>(key.data()), key.size()),
                   Bytes(reinterpret_cast<const uint8_t*>(value.data()), value.size()));
  }
  return *b.Build();
}

// The batch a partition gets at `base`: its record count and bytes depend only on (p, base).
std::vector<uint8_t> BatchAt(int p, int64_t base) {
  RecordBatchBuilder b{BatchOptions{}};
  for (int i = 0; i < Count(base); ++i) {
    const int64_t o = base + i;
    const std::string key = fmt::format("p{}-{}", p, o);
    const std::string value(static_cast<size_t>(50 + (o * 37 + p) % 400),
                            static_cast<char>('a' + o % 26));
    (void)b.Append(kT0 + o, Bytes(reinterpret_cast<const uint8_t*>(key.data()), key.size()),
                   Bytes(reinterpret_cast<const uint8_t*>(value.data()), value.size()));
  }
  auto bytes = *b.Build();
  StoreBE64(bytes.data(), static_cast<uint64_t>(base));  // what the log writes: base offset
  StoreBE32(bytes.data() + 12, 0);                       // and leader epoch 0
  return bytes;
}

LogDirectoryOptions Options() {
  LogDirectoryOptions o;
  o.log_options.clock = [] { return kT0 + 1000; };
  return o;
}

[[noreturn]] void ChildAppends(const std::string& dir) {
  // Rolled segments are flushed by flush-log tasks on a background thread, as in a broker, so
  // kills also land while a task is flushing and moving the recovery point.
  static ThreadScheduler scheduler(1);
  LogDirectoryOptions o = Options();
  o.log_options.scheduler = &scheduler;
  auto d = LogDirectory::Open(dir, o);
  if (!d.ok()) ::_exit(3);
  std::vector<std::shared_ptr<Log>> logs;
  for (int p = 0; p < kPartitions; ++p) {
    auto log = (*d)->GetLog({"crash", p}, Config());
    if (!log.ok()) ::_exit(4);
    logs.push_back(*log);
  }
  auto table = (*d)->GetLog({"table", 0}, TableConfig());
  if (!table.ok()) ::_exit(8);
  SkimpyOffsetMap map(24 * 4096, 0.9);
  for (int64_t i = 0;; ++i) {
    if (i % 4 == 3) {
      auto batch = TableBatchAt((*table)->log_end_offset());
      StoreBE64(batch.data(), 0);
      if (!(*table)->AppendAsLeader(batch).ok()) ::_exit(9);
    }
    if (i % 23 == 22) {
      auto range = CleanableRange(**table, (*d)->CleanerCheckpoint({"table", 0}), kT0 + 1000);
      if (!range.ok()) ::_exit(10);
      if (range->cleanable_bytes > 0) {
        Cleaner cleaner(0, &map);
        auto r = cleaner.Clean(**table, "table-0", *range, kT0 + 1000);
        if (!r.ok() || !(*d)->SetCleanerCheckpoint({"table", 0}, r->end_offset).ok()) ::_exit(11);
      }
    }
    Log* log = logs[static_cast<size_t>(i % kPartitions)].get();
    auto batch = BatchAt(static_cast<int>(i % kPartitions), log->log_end_offset());
    StoreBE64(batch.data(), 0);  // a client sends base offset 0
    if (!log->AppendAsLeader(batch).ok()) ::_exit(5);
    if (i % 7 == 6 && !(*d)->CheckpointRecoveryPoints().ok()) ::_exit(6);
    if (i % 11 == 10 && !log->DeleteOldSegments().ok()) ::_exit(7);
  }
}

// Checks one partition; returns its log end offset.
int64_t Verify(Log* log, int p, int64_t must_reach) {
  EXPECT_GE(log->log_end_offset(), must_reach) << "partition " << p << " lost checkpointed data";
  EXPECT_EQ(log->log_start_offset(), log->segment_base_offsets().front())
      << "partition " << p << ": retention deletes whole segments";
  int64_t expected_base = log->log_start_offset();
  Status read = testing::ForEachBatch(log, [&](const RecordBatchView& view, Bytes bytes) {
    EXPECT_TRUE(view.ValidateCrc().ok()) << "partition " << p << " at " << view.base_offset();
    EXPECT_EQ(view.base_offset(), expected_base) << "partition " << p << ": offsets not contiguous";
    const auto want = BatchAt(p, expected_base);
    EXPECT_TRUE(std::equal(want.begin(), want.end(), bytes.begin(), bytes.end()))
        << "partition " << p << ": batch at " << expected_base << " differs from what was written";
    expected_base += Count(expected_base);
  });
  EXPECT_TRUE(read.ok()) << "partition " << p << ": " << read.ToString();
  if (!read.ok()) return -1;
  EXPECT_EQ(expected_base, log->log_end_offset()) << "partition " << p;
  return log->log_end_offset();
}

// The compacted partition: every record is the one written at its offset, offsets increase,
// and each key's latest record up to the log end is there (cleaning never removes it).
int64_t VerifyTable(Log* log, int64_t must_reach, int64_t* compacted_away) {
  EXPECT_GE(log->log_end_offset(), must_reach) << "table lost checkpointed data";
  std::map<std::string, int64_t> last;
  int64_t prev = -1;
  Status read = testing::ForEachBatch(log, [&](const RecordBatchView& view, Bytes) {
    EXPECT_TRUE(view.ValidateCrc().ok()) << "table batch at " << view.base_offset();
    RecordIterator it(view);
    while (it.Next()) {
      const Record& r = it.record();
      EXPECT_GT(r.offset, prev) << "table offsets do not increase";
      prev = r.offset;
      const std::string key(reinterpret_cast<const char*>(r.key->data()), r.key->size());
      const std::string value(reinterpret_cast<const char*>(r.value->data()), r.value->size());
      EXPECT_EQ(key, TableKey(r.offset)) << "table record at " << r.offset;
      EXPECT_EQ(value, TableValue(r.offset)) << "table record at " << r.offset;
      last[key] = r.offset;
    }
  });
  EXPECT_TRUE(read.ok()) << "table: " << read.ToString();
  const int64_t end = log->log_end_offset();
  int64_t records = 0;
  (void)testing::ForEachBatch(
      log, [&](const RecordBatchView& view, Bytes) { records += view.records_count(); });
  *compacted_away += end - records;
  for (int64_t o = end - 1; o >= std::max<int64_t>(0, end - kTableKeys); --o) {
    EXPECT_EQ(last[TableKey(o)], o) << "table lost the latest record of " << TableKey(o);
  }
  return end;
}

TEST(CrashHarnessTest, SigkillAtRandomMomentsNeverLosesCheckpointedData) {
  const char* env = std::getenv("SEGLOG_CRASH_TRIALS");
  const int trials = env ? std::atoi(env) : 200;
  const std::string root =
      (std::filesystem::temp_directory_path() / ("seglog_crash_" + std::to_string(::getpid())))
          .string();
  std::mt19937 rng(20261129);
  int64_t appended = 0, recovered_segments = 0, quarantined = 0, retained_from = 0,
          compacted_away = 0;
  for (int trial = 0; trial < trials; ++trial) {
    const std::string dir = root + "/dir-" + std::to_string(trial / 25);  // fresh every 25 trials
    std::filesystem::create_directories(dir);
    // What the last completed checkpoint promised, before the child runs (it only grows).
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) ChildAppends(dir);
    std::this_thread::sleep_for(std::chrono::microseconds(2000 + rng() % 40000));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "child exited early with " << WEXITSTATUS(status);

    OffsetMap promised;
    if (std::filesystem::exists(dir + "/" + kRecoveryPointCheckpointFile)) {
      auto m = ReadOffsetCheckpoint(dir + "/" + kRecoveryPointCheckpointFile);
      ASSERT_TRUE(m.ok()) << "trial " << trial << ": " << m.status().ToString();
      promised = *m;
    }
    std::vector<int64_t> ends;
    int64_t table_end = 0;
    // Clean only if the child died before it removed the previous clean-shutdown marker, or
    // before it created any partition (nothing to recover).
    const bool expect_clean = std::filesystem::exists(dir + "/" + kCleanShutdownFile) ||
                              !std::filesystem::exists(dir + "/crash-0");
    {
      auto d = LogDirectory::Open(dir, Options());
      ASSERT_TRUE(d.ok()) << "trial " << trial << ": " << d.status().ToString();
      EXPECT_EQ((*d)->had_clean_shutdown(), expect_clean) << "trial " << trial;
      for (int p = 0; p < kPartitions; ++p) {
        auto log = (*d)->GetLog({"crash", p}, Config());
        ASSERT_TRUE(log.ok()) << "trial " << trial << ": " << log.status().ToString();
        const int64_t must = promised.count({"crash", p}) ? promised[{"crash", p}] : 0;
        ends.push_back(Verify(log->get(), p, must));
        recovered_segments += (*log)->load_report().segments_recovered;
        retained_from += (*log)->log_start_offset() > 0 ? 1 : 0;
        quarantined += (*log)->load_report().bytes_quarantined;
        appended += ends.back();
      }
      auto table = (*d)->GetLog({"table", 0}, TableConfig());
      ASSERT_TRUE(table.ok()) << "trial " << trial << ": " << table.status().ToString();
      const int64_t must = promised.count({"table", 0}) ? promised[{"table", 0}] : 0;
      table_end = VerifyTable(table->get(), must, &compacted_away);
      // Dropped without Close: as if this process crashed too.
    }
    {
      auto d = LogDirectory::Open(dir, Options());
      ASSERT_TRUE(d.ok());
      for (int p = 0; p < kPartitions; ++p) {
        auto log = (*d)->GetLog({"crash", p}, Config());
        ASSERT_TRUE(log.ok());
        EXPECT_EQ((*log)->log_end_offset(), ends[static_cast<size_t>(p)]) << "second reopen moved";
        EXPECT_EQ((*log)->load_report().bytes_quarantined, 0) << "second reopen cut bytes";
      }
      auto table = (*d)->GetLog({"table", 0}, TableConfig());
      ASSERT_TRUE(table.ok());
      EXPECT_EQ((*table)->log_end_offset(), table_end) << "second reopen moved the table";
      ASSERT_TRUE((*d)->Close().ok());  // clean: the next child starts from a clean shutdown
    }
    if (::testing::Test::HasFailure()) break;
  }
  std::printf(
      "crash harness: %d trials, %lld offsets verified, %lld segment recoveries, %lld "
      "bytes quarantined, %lld partitions reopened after retention deleted segments, %lld "
      "records found compacted away\n",
      trials, static_cast<long long>(appended), static_cast<long long>(recovered_segments),
      static_cast<long long>(quarantined), static_cast<long long>(retained_from),
      static_cast<long long>(compacted_away));
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace seglog
