// Idempotent producers: the snapshot format, the sequence and epoch checks, duplicates, and the
// producer state across rolls, restarts (clean and unclean), damaged snapshots, retention,
// DeleteRecords and expiration.
#include "log/producer_state_manager.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "base/coding.h"
#include "io/fault_injection_env.h"
#include "io/file_names.h"
#include "seglog/validation_error.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::ReadFileBytes;
using testing::TempDir;

constexpr int64_t kT0 = 1700000000000;
constexpr int64_t kPid = 4000;

// A batch as an idempotent producer sends it: `count` records from sequence `base_seq`.
std::vector<uint8_t> IdempotentBatch(int64_t pid, int16_t epoch, int32_t base_seq, int count,
                                     int64_t timestamp, bool transactional = false) {
  BatchOptions o;
  o.producer_id = pid;
  o.producer_epoch = epoch;
  o.base_sequence = base_seq;
  o.is_transactional = transactional;
  RecordBatchBuilder b(o);
  for (int i = 0; i < count; ++i) {
    const std::string v = "value-" + std::to_string(i);
    EXPECT_TRUE(b.Append(timestamp, std::nullopt,
                         Bytes(reinterpret_cast<const uint8_t*>(v.data()), v.size()))
                    .ok());
  }
  return *b.Build();
}

std::string ExceptionOf(const Status& s) { return ValidationError::FromStatus(s).exception; }
int16_t CodeOf(const Status& s) { return ValidationError::FromStatus(s).error_code; }

// ---------------------------------------------------------------------------------------------
// The file format

TEST(ProducerSnapshotTest, EmptySnapshotIsKafkasTenBytes) {
  const std::vector<uint8_t> bytes = SerializeProducerSnapshot({});
  EXPECT_EQ(bytes, (std::vector<uint8_t>{0x00, 0x01, 0x48, 0x67, 0x4B, 0xC7, 0, 0, 0, 0}));
}

TEST(ProducerSnapshotTest, RoundTripsEveryField) {
  std::map<int64_t, ProducerStateEntry> m;
  ProducerStateEntry e;
  e.producer_id = 7;
  e.producer_epoch = 3;
  e.coordinator_epoch = 9;
  e.current_txn_first_offset = 40;
  e.AddBatch(3, 14, 120, 4, kT0);
  e.AddBatch(3, 19, 125, 4, kT0 + 5);
  m[7] = e;
  ProducerStateEntry wrap;
  wrap.producer_id = 8;
  wrap.AddBatch(0, 1, 60, 4, kT0);  // sequences INT32_MAX-2 .. 1
  m[8] = wrap;
  const std::vector<uint8_t> bytes = SerializeProducerSnapshot(m);
  ASSERT_EQ(bytes.size(), producer_snapshot::kHeaderSize + 2 * producer_snapshot::kEntrySize);
  auto parsed = ParseProducerSnapshot(bytes, "x.snapshot");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  ASSERT_EQ(parsed->size(), 2u);
  const ProducerStateEntry& a = (*parsed)[0];
  EXPECT_EQ(a.producer_id, 7);
  EXPECT_EQ(a.producer_epoch, 3);
  EXPECT_EQ(a.coordinator_epoch, 9);
  EXPECT_EQ(a.current_txn_first_offset, 40);
  EXPECT_EQ(a.last_timestamp, kT0 + 5);
  // Only the newest batch is stored.
  ASSERT_EQ(a.batches.size(), 1u);
  EXPECT_EQ(a.batches[0], (BatchMetadata{19, 125, 4, kT0 + 5}));
  EXPECT_EQ(a.FirstSeq(), 15);
  EXPECT_EQ((*parsed)[1].FirstSeq(), INT32_MAX - 2);
}

TEST(ProducerSnapshotTest, DamageIsCorruptSnapshotException) {
  std::map<int64_t, ProducerStateEntry> m;
  m[1].producer_id = 1;
  m[1].AddBatch(0, 4, 4, 4, kT0);
  const std::vector<uint8_t> good = SerializeProducerSnapshot(m);
  auto expect_corrupt = [](std::vector<uint8_t> bytes, const char* what) {
    auto r = ParseProducerSnapshot(bytes, "00000000000000000005.snapshot");
    ASSERT_FALSE(r.ok()) << what;
    EXPECT_TRUE(r.status().IsCorruption()) << what;
    EXPECT_THAT(std::string(r.status().message()), HasSubstr("CorruptSnapshotException"));
    EXPECT_THAT(std::string(r.status().message()), HasSubstr("00000000000000000005.snapshot"));
  };
  expect_corrupt({}, "empty");
  expect_corrupt({0x00}, "one byte");
  expect_corrupt(std::vector<uint8_t>(good.size(), 0), "zero-filled");
  expect_corrupt(std::vector<uint8_t>(good.begin(), good.end() - 1), "truncated entry");
  expect_corrupt(std::vector<uint8_t>(good.begin(), good.begin() + 8), "truncated header");
  std::vector<uint8_t> flipped = good;
  flipped[20] ^= 0x10;
  expect_corrupt(flipped, "flipped bit");
  std::vector<uint8_t> version = good;
  version[1] = 2;
  expect_corrupt(version, "version 2");
  std::vector<uint8_t> negative = good;
  StoreBE32(negative.data() + producer_snapshot::kCountOffset, 0xffffffffu);
  expect_corrupt(negative, "count -1");
}

TEST(ProducerSnapshotTest, ReadsSnapshotsARealKafkaWrote) {
  // Kafka 4.4.0 broker, producer 0 epoch 0, batches of 100 records (tests/data/kafka_written).
  const std::vector<uint8_t> bytes = ReadFileBytes(
      testing::SourcePath("tests/data/kafka_written/kw-none-0/00000000000000000950.snapshot"));
  auto parsed = ParseProducerSnapshot(bytes, "950.snapshot");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  ASSERT_EQ(parsed->size(), 1u);
  const ProducerStateEntry& e = (*parsed)[0];
  EXPECT_EQ(e.producer_id, 0);
  EXPECT_EQ(e.producer_epoch, 0);
  EXPECT_EQ(e.LastSeq(), 949);
  EXPECT_EQ(e.LastDataOffset(), 949);
  EXPECT_EQ(e.LastOffsetDelta(), 99);
  EXPECT_EQ(e.FirstSeq(), 850);
  EXPECT_EQ(e.coordinator_epoch, -1);
  EXPECT_EQ(e.current_txn_first_offset, -1);
  // And seglog writes the same bytes for that state.
  std::map<int64_t, ProducerStateEntry> m{{0, e}};
  EXPECT_EQ(SerializeProducerSnapshot(m), bytes);
}

// ---------------------------------------------------------------------------------------------
// Appends through the log

class ProducerStateLogTest : public ::testing::Test {
 protected:
  std::unique_ptr<Log> OpenLog(LogConfig config = {}, bool clean = true) {
    LogOptions o;
    o.clock = [this] { return now_.load(); };
    o.had_clean_shutdown = clean;
    o.producer_id_expiration_ms = expiration_ms_;
    o.logger = [this](const std::string& line) { lines_.push_back(line); };
    auto log = Log::Open(dir(), config, o);
    EXPECT_TRUE(log.ok()) << log.status().ToString();
    return log.ok() ? std::move(log).value() : nullptr;
  }
  std::string dir() const { return tmp_.path() + "/t-0"; }
  std::string SnapshotPath(int64_t offset) const { return SnapshotFilePath(dir(), offset); }
  std::vector<std::string> SnapshotFiles() const {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(dir())) {
      const std::string name = e.path().filename().string();
      if (name.find(".snapshot") != std::string::npos) out.push_back(name);
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  Result<LogAppendInfo> Send(Log* log, int16_t epoch, int32_t seq, int count, int64_t pid = kPid) {
    return log->AppendAsLeader(IdempotentBatch(pid, epoch, seq, count, now_.load()));
  }
  static std::optional<ActiveProducer> Find(const Log& log, int64_t pid) {
    for (const ActiveProducer& p : log.active_producers()) {
      if (p.producer_id == pid) return p;
    }
    return std::nullopt;
  }

  TempDir tmp_;
  std::atomic<int64_t> now_{kT0};
  int64_t expiration_ms_ = 86400000;
  std::vector<std::string> lines_;
};

TEST_F(ProducerStateLogTest, SequencesContinueAndWrapAtInt32Max) {
  auto log = OpenLog();
  ASSERT_TRUE(Send(log.get(), 0, 0, 3).ok());
  ASSERT_TRUE(Send(log.get(), 0, 3, 2).ok());
  auto p = Find(*log, kPid);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->last_sequence, 4);
  EXPECT_EQ(p->last_offset, 4);
  EXPECT_EQ(p->retained_batches, 2);
  // A producer whose sequences wrap: INT32_MAX-1, INT32_MAX, then 0 (a producer without state
  // may start at any sequence).
  ASSERT_TRUE(Send(log.get(), 0, INT32_MAX - 1, 2, kPid + 2).ok());
  auto wrapped = Send(log.get(), 0, 0, 2, kPid + 2);
  ASSERT_TRUE(wrapped.ok()) << wrapped.status().ToString();
  p = Find(*log, kPid + 2);
  EXPECT_EQ(p->first_sequence, INT32_MAX - 1);
  EXPECT_EQ(p->last_sequence, 1);
  // A batch that itself wraps.
  ASSERT_TRUE(Send(log.get(), 0, INT32_MAX - 1, 4, kPid + 3).ok());
  EXPECT_EQ(Find(*log, kPid + 3)->last_sequence, 1);
  EXPECT_TRUE(Send(log.get(), 0, 2, 1, kPid + 3).ok());
}

TEST_F(ProducerStateLogTest, UnknownProducerMayStartAtAnySequence) {
  // Kafka 4.x (KIP-360) no longer answers UnknownProducerIdException: a producer id without
  // state (its data deleted, or expired) is accepted at any sequence.
  auto log = OpenLog();
  auto r = Send(log.get(), 0, 57, 3);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Find(*log, kPid)->last_sequence, 59);
}

TEST_F(ProducerStateLogTest, OutOfOrderSequenceIsRefusedAndNothingIsWritten) {
  auto log = OpenLog();
  ASSERT_TRUE(Send(log.get(), 0, 0, 3).ok());
  for (int32_t seq : {4, 2, 1, 0 /* overlaps */, INT32_MAX}) {
    auto r = Send(log.get(), 0, seq, 1);
    ASSERT_FALSE(r.ok()) << seq;
    EXPECT_EQ(ExceptionOf(r.status()), "OutOfOrderSequenceException") << seq;
    EXPECT_EQ(CodeOf(r.status()), 45);
    EXPECT_THAT(std::string(r.status().message()),
                HasSubstr(fmt::format("Out of order sequence number for producer {} at offset 3 "
                                      "in partition t-0: {} (incoming seq. number), 2 (current "
                                      "end sequence number)",
                                      kPid, seq)));
  }
  EXPECT_EQ(log->log_end_offset(), 3);
  EXPECT_EQ(Find(*log, kPid)->last_sequence, 2);
  EXPECT_TRUE(Send(log.get(), 0, 3, 1).ok());
}

TEST_F(ProducerStateLogTest, EpochFencing) {
  auto log = OpenLog();
  ASSERT_TRUE(Send(log.get(), 1, 0, 2).ok());
  // An older epoch is fenced.
  auto old = Send(log.get(), 0, 2, 1);
  ASSERT_FALSE(old.ok());
  EXPECT_EQ(ExceptionOf(old.status()), "InvalidProducerEpochException");
  EXPECT_EQ(CodeOf(old.status()), 47);
  EXPECT_THAT(std::string(old.status().message()),
              HasSubstr(fmt::format("Epoch of producer {} at offset 2 in t-0 is 0, which is < the "
                                    "last seen epoch 1",
                                    kPid)));
  // A new epoch must start at sequence 0.
  auto bump = Send(log.get(), 2, 5, 1);
  ASSERT_FALSE(bump.ok());
  EXPECT_EQ(ExceptionOf(bump.status()), "OutOfOrderSequenceException");
  EXPECT_THAT(std::string(bump.status().message()),
              HasSubstr("Invalid sequence number for new epoch of producer"));
  ASSERT_TRUE(Send(log.get(), 2, 0, 1).ok());
  auto p = Find(*log, kPid);
  EXPECT_EQ(p->producer_epoch, 2);
  EXPECT_EQ(p->retained_batches, 1);  // the old epoch's batches are dropped
  // And then the old epoch is fenced too.
  EXPECT_EQ(ExceptionOf(Send(log.get(), 1, 2, 1).status()), "InvalidProducerEpochException");
  EXPECT_EQ(log->log_end_offset(), 3);
}

TEST_F(ProducerStateLogTest, EachOfTheLastFiveBatchesIsADuplicate) {
  auto log = OpenLog();
  std::vector<LogAppendInfo> sent;
  for (int i = 0; i < 6; ++i) {
    now_ += 10;
    auto r = Send(log.get(), 0, i * 2, 2);
    ASSERT_TRUE(r.ok());
    sent.push_back(*r);
  }
  const int64_t end = log->log_end_offset();
  const int64_t size = log->size_in_bytes();
  for (int i = 1; i < 6; ++i) {
    auto dup = Send(log.get(), 0, i * 2, 2);
    ASSERT_TRUE(dup.ok()) << i << ": " << dup.status().ToString();
    EXPECT_TRUE(dup->duplicate) << i;
    EXPECT_EQ(dup->first_offset, sent[i].first_offset) << i;
    EXPECT_EQ(dup->last_offset, sent[i].last_offset) << i;
    EXPECT_EQ(dup->log_append_time, kT0 + 10 * (i + 1)) << i;
    EXPECT_EQ(dup->batch_count, 0);
  }
  EXPECT_EQ(log->log_end_offset(), end);
  EXPECT_EQ(log->size_in_bytes(), size);
  // The sixth-oldest is no longer retained: Kafka answers it OutOfOrderSequenceException.
  auto old = Send(log.get(), 0, 0, 2);
  ASSERT_FALSE(old.ok());
  EXPECT_EQ(ExceptionOf(old.status()), "OutOfOrderSequenceException");
  // An overlapping range is not a duplicate.
  EXPECT_EQ(ExceptionOf(Send(log.get(), 0, 10, 1).status()), "OutOfOrderSequenceException");
  EXPECT_EQ(log->log_end_offset(), end);
}

TEST_F(ProducerStateLogTest, ReplicationAndCoordinatorOriginsSkipSequenceChecks) {
  auto log = OpenLog();
  ASSERT_TRUE(Send(log.get(), 3, 0, 2).ok());
  // A coordinator's batch is held to the epoch but not to sequences.
  auto coord = log->AppendAsLeader(IdempotentBatch(kPid, 3, 40, 1, now_.load()), 0,
                                   AppendOrigin::kCoordinator);
  ASSERT_TRUE(coord.ok()) << coord.status().ToString();
  EXPECT_FALSE(coord->duplicate);
  auto fenced = log->AppendAsLeader(IdempotentBatch(kPid, 2, 41, 1, now_.load()), 0,
                                    AppendOrigin::kCoordinator);
  EXPECT_EQ(ExceptionOf(fenced.status()), "InvalidProducerEpochException");
  // A replica's batch is taken as it is (offsets assigned), old epoch included.
  BatchOptions o;
  o.base_offset = log->log_end_offset();
  o.producer_id = kPid;
  o.producer_epoch = 1;
  o.base_sequence = 99;
  RecordBatchBuilder b(o);
  ASSERT_TRUE(b.Append(now_.load(), std::nullopt, std::nullopt).ok());
  auto replica = log->AppendWithAssignedOffsets(*b.Build());
  ASSERT_TRUE(replica.ok()) << replica.status().ToString();
  EXPECT_EQ(Find(*log, kPid)->last_sequence, 99);
}

TEST_F(ProducerStateLogTest, NonTransactionalWriteDuringATransactionIsInvalidTxnState) {
  auto log = OpenLog();
  ASSERT_TRUE(
      log->AppendAsLeader(IdempotentBatch(kPid, 0, 0, 2, kT0, /*transactional=*/true)).ok());
  EXPECT_EQ(Find(*log, kPid)->current_txn_first_offset, 0);
  auto r = Send(log.get(), 0, 2, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(ExceptionOf(r.status()), "InvalidTxnStateException");
  EXPECT_EQ(CodeOf(r.status()), 48);
}

TEST_F(ProducerStateLogTest, RollWritesASnapshotAtTheNewBaseOffsetAndCloseOneAtTheEnd) {
  auto log = OpenLog();
  ASSERT_TRUE(Send(log.get(), 0, 0, 5).ok());
  ASSERT_TRUE(log->Roll().ok());
  ASSERT_TRUE(Send(log.get(), 0, 5, 5).ok());
  EXPECT_THAT(SnapshotFiles(), ElementsAre("00000000000000000005.snapshot"));
  auto at_roll = ParseProducerSnapshot(ReadFileBytes(SnapshotPath(5)), "5");
  ASSERT_TRUE(at_roll.ok());
  ASSERT_EQ(at_roll->size(), 1u);
  EXPECT_EQ((*at_roll)[0].LastSeq(), 4);
  ASSERT_TRUE(log->Close().ok());
  EXPECT_THAT(SnapshotFiles(),
              ElementsAre("00000000000000000005.snapshot", "00000000000000000010.snapshot"));
  auto at_close = ParseProducerSnapshot(ReadFileBytes(SnapshotPath(10)), "10");
  ASSERT_TRUE(at_close.ok());
  EXPECT_EQ((*at_close)[0].LastSeq(), 9);
  EXPECT_EQ((*at_close)[0].LastDataOffset(), 9);
}

TEST_F(ProducerStateLogTest, CleanRestartKeepsStateAndDuplicates) {
  {
    auto log = OpenLog();
    ASSERT_TRUE(Send(log.get(), 0, 0, 3).ok());
    ASSERT_TRUE(Send(log.get(), 0, 3, 3).ok());
    ASSERT_TRUE(log->Close().ok());
  }
  auto log = OpenLog();
  auto p = Find(*log, kPid);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->last_sequence, 5);
  // The snapshot keeps the newest batch, so its retry is still a duplicate...
  auto dup = Send(log.get(), 0, 3, 3);
  ASSERT_TRUE(dup.ok());
  EXPECT_TRUE(dup->duplicate);
  EXPECT_EQ(dup->first_offset, 3);
  EXPECT_EQ(dup->last_offset, 5);
  // ... and the sequence continues.
  EXPECT_EQ(ExceptionOf(Send(log.get(), 0, 7, 1).status()), "OutOfOrderSequenceException");
  EXPECT_TRUE(Send(log.get(), 0, 6, 1).ok());
}

TEST_F(ProducerStateLogTest, UncleanRestartReplaysTheBatchesAfterTheNewestSnapshot) {
  {
    auto log = OpenLog();
    ASSERT_TRUE(Send(log.get(), 0, 0, 3).ok());
    ASSERT_TRUE(log->Roll().ok());  // snapshot at 3
    ASSERT_TRUE(Send(log.get(), 0, 3, 3).ok());
    ASSERT_TRUE(Send(log.get(), 0, 6, 3, kPid + 1).ok());
    // No Close: a crash.
  }
  EXPECT_THAT(SnapshotFiles(), ElementsAre("00000000000000000003.snapshot"));
  auto log = OpenLog({}, /*clean=*/false);
  EXPECT_EQ(log->log_end_offset(), 9);
  auto p = Find(*log, kPid);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->last_sequence, 5);
  EXPECT_EQ(Find(*log, kPid + 1)->last_sequence, 8);
  // Replay retains the batches read back: the last one is a duplicate.
  auto dup = Send(log.get(), 0, 3, 3);
  ASSERT_TRUE(dup.ok());
  EXPECT_TRUE(dup->duplicate);
  EXPECT_EQ(dup->first_offset, 3);
  // The rebuild wrote snapshots at the last segment's base and the log end.
  EXPECT_THAT(SnapshotFiles(),
              ElementsAre("00000000000000000003.snapshot", "00000000000000000009.snapshot"));
}

TEST_F(ProducerStateLogTest, CorruptTruncatedOrZeroFilledSnapshotIsDeletedAndStateRebuilt) {
  for (const char* damage : {"flip", "truncate", "zero", "empty"}) {
    SCOPED_TRACE(damage);
    std::filesystem::remove_all(dir());
    {
      auto log = OpenLog();
      ASSERT_TRUE(Send(log.get(), 0, 0, 2).ok());
      ASSERT_TRUE(log->Roll().ok());  // snapshot at 2
      ASSERT_TRUE(Send(log.get(), 0, 2, 2).ok());
      ASSERT_TRUE(log->Close().ok());  // snapshot at 4
    }
    const std::string newest = SnapshotPath(4);
    std::vector<uint8_t> bytes = ReadFileBytes(newest);
    if (std::string(damage) == "flip") bytes[15] ^= 1;
    if (std::string(damage) == "truncate") bytes.resize(bytes.size() - 3);
    if (std::string(damage) == "zero") std::fill(bytes.begin(), bytes.end(), 0);
    if (std::string(damage) == "empty") bytes.clear();
    {
      std::ofstream out(newest, std::ios::binary | std::ios::trunc);
      out.write(reinterpret_cast<const char*>(bytes.data()),
                static_cast<std::streamsize>(bytes.size()));
    }
    lines_.clear();
    auto log = OpenLog();
    bool warned = false;
    for (const std::string& l : lines_) {
      warned |= l.find("WARN Failed to load producer snapshot") != std::string::npos &&
                l.find("CorruptSnapshotException") != std::string::npos;
    }
    EXPECT_TRUE(warned);
    // Rebuilt from the snapshot at 2 and the batch after it; a good snapshot at 4 again.
    auto p = Find(*log, kPid);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->last_sequence, 3);
    EXPECT_TRUE(ParseProducerSnapshot(ReadFileBytes(newest), newest).ok());
    EXPECT_TRUE(Send(log.get(), 0, 4, 1).ok());
    ASSERT_TRUE(log->Close().ok());
  }
}

TEST_F(ProducerStateLogTest, SnapshotsAboveTheLogEndAndStraySnapshotsAreDeleted) {
  {
    auto log = OpenLog();
    ASSERT_TRUE(Send(log.get(), 0, 0, 2).ok());
    ASSERT_TRUE(log->Roll().ok());
    ASSERT_TRUE(Send(log.get(), 0, 2, 2).ok());
    ASSERT_TRUE(log->Close().ok());
  }
  // A snapshot from a future the log does not have, a stray one between segment bases, and a
  // leftover of an interrupted write.
  std::filesystem::copy_file(SnapshotPath(4), SnapshotPath(50));
  std::filesystem::copy_file(SnapshotPath(2), SnapshotPath(1));
  std::filesystem::copy_file(SnapshotPath(2), SnapshotPath(3) + ".tmp");
  auto log = OpenLog();
  EXPECT_THAT(SnapshotFiles(),
              ElementsAre("00000000000000000002.snapshot", "00000000000000000004.snapshot"));
  EXPECT_EQ(Find(*log, kPid)->last_sequence, 3);
}

TEST_F(ProducerStateLogTest, RetentionAndDeleteRecordsDeleteSnapshotsWithTheirSegments) {
  LogConfig config;
  config.retention_ms = -1;
  auto log = OpenLog(config);
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(Send(log.get(), 0, i * 2, 2).ok());
    ASSERT_TRUE(log->Roll().ok());
  }
  EXPECT_THAT(log->producer_snapshot_offsets(), ElementsAre(2, 4, 6, 8));
  // DeleteRecords moves the log start; the snapshots go with the segments in the next pass.
  auto start = log->DeleteRecords(5);
  ASSERT_TRUE(start.ok());
  EXPECT_EQ(log->producer_snapshot_offsets().size(), 4u);
  auto n = log->DeleteOldSegments();
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 2);  // segments 0 and 2
  EXPECT_THAT(log->producer_snapshot_offsets(), ElementsAre(4, 6, 8));
  EXPECT_THAT(SnapshotFiles(),
              ElementsAre("00000000000000000004.snapshot", "00000000000000000006.snapshot",
                          "00000000000000000008.snapshot"));
  // retention.bytes takes another segment (the log stays above the cap without it), and its
  // snapshot.
  LogConfig small = config;
  small.retention_bytes = 1;
  log->UpdateConfig(small);
  ASSERT_TRUE(log->DeleteOldSegments().ok());
  EXPECT_THAT(log->producer_snapshot_offsets(), ElementsAre(6, 8));
  EXPECT_THAT(SnapshotFiles(),
              ElementsAre("00000000000000000006.snapshot", "00000000000000000008.snapshot"));
  // The producer is still known (Kafka keeps it until it expires) and continues.
  EXPECT_TRUE(Send(log.get(), 0, 8, 1).ok());
  ASSERT_TRUE(log->Close().ok());
  auto reopened = OpenLog(small);
  EXPECT_EQ(Find(*reopened, kPid)->last_sequence, 8);
}

TEST_F(ProducerStateLogTest, AKafkaWrittenDirectoryLoadsItsProducerState) {
  // Kafka 4.4.0 wrote kw-none-0 (clean shutdown): producer 0, epoch 0, offsets 0-2589, the
  // last batch 10 records (sequences 2580-2589); snapshots at 950, 1950 and 2590.
  std::filesystem::copy(testing::SourcePath("tests/data/kafka_written/kw-none-0"), dir());
  now_ = 1700000025890 + 1000;
  auto log = OpenLog();
  auto p = Find(*log, 0);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->producer_epoch, 0);
  EXPECT_EQ(p->last_sequence, 2589);
  EXPECT_EQ(p->last_offset, 2589);
  // Kafka's producer retrying its last batch gets the original offsets.
  auto dup = log->AppendAsLeader(IdempotentBatch(0, 0, 2580, 10, now_.load()));
  ASSERT_TRUE(dup.ok()) << dup.status().ToString();
  EXPECT_TRUE(dup->duplicate);
  EXPECT_EQ(dup->first_offset, 2580);
  EXPECT_EQ(dup->last_offset, 2589);
  EXPECT_EQ(ExceptionOf(log->AppendAsLeader(IdempotentBatch(0, 0, 2591, 1, now_.load())).status()),
            "OutOfOrderSequenceException");
  auto next = log->AppendAsLeader(IdempotentBatch(0, 0, 2590, 1, now_.load()));
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->first_offset, 2590);
}

TEST_F(ProducerStateLogTest, FailedSnapshotWritesCostOnlyAReplay) {
  // A full disk at roll, close and open: no append, close or open fails, nothing is lost.
  FaultInjectionEnv env(Env::Default());
  LogOptions o;
  o.clock = [this] { return now_.load(); };
  o.env = &env;
  {
    auto log = Log::Open(dir(), {}, o);
    ASSERT_TRUE(log.ok());
    ASSERT_TRUE((*log)->AppendAsLeader(IdempotentBatch(kPid, 0, 0, 2, kT0)).ok());
    env.Fail(EnvOp::kWrite, ".snapshot.tmp", ENOSPC);
    ASSERT_TRUE((*log)->Roll().ok());
    ASSERT_TRUE((*log)->AppendAsLeader(IdempotentBatch(kPid, 0, 2, 2, kT0)).ok());
    ASSERT_TRUE((*log)->Close().ok());
  }
  EXPECT_TRUE(SnapshotFiles().empty());
  // After a clean close without any snapshot the loader takes the log for one written before
  // producer state existed and replays nothing (Kafka's rule): kPid is forgotten, and like any
  // producer without state may go on at any sequence (here its retry is appended again).
  auto log = Log::Open(dir(), {}, o);  // still failing: the open does not fail for it
  ASSERT_TRUE(log.ok()) << log.status().ToString();
  EXPECT_TRUE(SnapshotFiles().empty());
  EXPECT_TRUE((*log)->active_producers().empty());
  auto again = (*log)->AppendAsLeader(IdempotentBatch(kPid, 0, 2, 2, kT0));
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->duplicate);
  env.ClearFailures();
  ASSERT_TRUE((*log)->Close().ok());
  EXPECT_THAT(SnapshotFiles(), ElementsAre("00000000000000000006.snapshot"));
  // An unclean open replays the segments instead: the state is back.
  log->reset();
  std::filesystem::remove(SnapshotPath(6));
  o.had_clean_shutdown = false;
  auto replayed = Log::Open(dir(), {}, o);
  ASSERT_TRUE(replayed.ok());
  EXPECT_EQ(Find(**replayed, kPid)->last_sequence, 3);
}

TEST_F(ProducerStateLogTest, ExpirationFollowsTheClock) {
  expiration_ms_ = 60000;
  auto log = OpenLog();
  ASSERT_TRUE(Send(log.get(), 0, 0, 1).ok());
  now_ += 30000;
  ASSERT_TRUE(Send(log.get(), 0, 0, 1, kPid + 1).ok());
  now_ += 29999;
  EXPECT_EQ(*log->RemoveExpiredProducers(), 0);
  now_ += 1;  // producer kPid's last timestamp is exactly 60000 ms old
  EXPECT_EQ(*log->RemoveExpiredProducers(), 1);
  EXPECT_FALSE(Find(*log, kPid));
  EXPECT_TRUE(Find(*log, kPid + 1));
  // Forgotten, it may start again at any sequence.
  EXPECT_TRUE(Send(log.get(), 0, 17, 1).ok());
  ASSERT_TRUE(log->Close().ok());
  // Producers already expired when a snapshot is loaded are left out.
  now_ += 60000;
  auto reopened = OpenLog();
  EXPECT_TRUE(reopened->active_producers().empty());
}

}  // namespace
}  // namespace seglog
