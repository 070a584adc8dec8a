// The cleaner and transactions (docs/design/cleaner.md, "Transactions"; Kafka's
// CleanedTransactionMetadata): aborted records never enter the offset map and are dropped; an
// ABORT marker stays, with its entry in the cleaned segment's .txnindex, while its
// transaction's data is met in the pass, and goes after its delete horizon once the data is
// gone; a COMMIT marker stays while its transaction's records do; nothing at or above the
// last stable offset is cleaned.
//
// Most logs here hold one batch per segment (internal.segment.bytes=100 rolls before every
// second batch, and no two segments fit one cleaned group), so a transaction's data and its
// marker are in different cleaning groups.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "cleaner/cleaner.h"
#include "index/transaction_index.h"
#include "io/file_names.h"
#include "seglog/log.h"
#include "seglog/record_batch.h"
#include "tests/support/batches.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using testing::TempDir;

constexpr int64_t kA = 5000;  // producer ids
constexpr int64_t kB = 5001;
constexpr int64_t kHour = 3600 * 1000;

Bytes AsBytes(const std::string& s) {
  return Bytes(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

class CleanerTransactionTest : public ::testing::Test {
 protected:
  std::unique_ptr<Log> Open(std::map<std::string, std::string> configs = {}) {
    configs["cleanup.policy"] = "compact";
    configs.try_emplace("internal.segment.bytes", "100");
    configs.try_emplace("delete.retention.ms", std::to_string(kHour));
    auto c = LogConfig::FromProperties(configs);
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    LogOptions o;
    o.clock = [this] { return now_; };
    auto log = Log::Open(dir(), *c, o);
    EXPECT_TRUE(log.ok()) << log.status().ToString();
    return log.ok() ? std::move(log).value() : nullptr;
  }
  std::string dir() const { return tmp_.path() + "/txn-0"; }

  // One batch of key=value records: of `pid`'s transaction (sequence `seq`), or plain.
  void Write(Log* log, const std::vector<std::pair<std::string, std::string>>& kvs,
             int64_t pid = kNoProducerId, int32_t seq = 0) {
    BatchOptions o;
    if (pid != kNoProducerId) {
      o.producer_id = pid;
      o.producer_epoch = 0;
      o.base_sequence = seq;
      o.is_transactional = true;
    }
    RecordBatchBuilder b(o);
    for (const auto& [k, v] : kvs) ASSERT_TRUE(b.Append(now_, AsBytes(k), AsBytes(v)).ok());
    auto r = log->AppendAsLeader(*b.Build());
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  // The coordinator's COMMIT or ABORT marker for `pid`.
  void Marker(Log* log, int64_t pid, ControlRecordType type) {
    BatchOptions o;
    o.producer_id = pid;
    o.producer_epoch = 0;
    o.is_transactional = true;
    o.is_control = true;
    RecordBatchBuilder b(o);
    ASSERT_TRUE(b.AppendEndTxnMarker(type, 0, now_).ok());
    auto r = log->AppendAsLeader(*b.Build(), 0, AppendOrigin::kCoordinator);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  // One round from the log start (every segment below the first uncleanable offset is
  // cleaned again). `expiration_ms` 0: no producer is active, so none keeps a batch.
  Result<Cleaner::Result_> Clean(Log* log, int64_t expiration_ms = 0) {
    auto range = CleanableRange(*log, std::nullopt, now_);
    if (!range.ok()) return range.status();
    Cleaner cleaner(0, &map_, {}, expiration_ms);
    return cleaner.Clean(*log, "txn-0", *range, now_);
  }

  // The log as "offset key value" per data record, "offset ABORT|COMMIT" per marker, and
  // "first..last empty" per batch without records.
  std::vector<std::string> Contents(Log* log) {
    std::vector<std::string> out;
    Status s = testing::ForEachBatch(log, [&](const RecordBatchView& v, Bytes) {
      if (v.records_count() == 0) {
        out.push_back(fmt::format("{}..{} empty", v.base_offset(), v.last_offset()));
        return;
      }
      RecordIterator it(v);
      while (it.Next()) {
        const Record& r = it.record();
        if (v.is_control()) {
          auto key = ParseControlRecordKey(r.key);
          out.push_back(
              fmt::format("{} {}", r.offset, key.ok() ? ControlRecordTypeName(key->type()) : "?"));
          continue;
        }
        auto text = [](const NullableBytes& b) {
          return b ? std::string(reinterpret_cast<const char*>(b->data()), b->size()) : "null";
        };
        out.push_back(fmt::format("{} {} {}", r.offset, text(r.key), text(r.value)));
      }
      EXPECT_TRUE(it.status().ok()) << it.status().ToString();
    });
    EXPECT_TRUE(s.ok()) << s.ToString();
    return out;
  }
  // The delete horizon of the batch holding `offset` (nullopt: none, or no such batch).
  std::optional<int64_t> HorizonOf(Log* log, int64_t offset) {
    std::optional<int64_t> out;
    Status s = testing::ForEachBatch(log, [&](const RecordBatchView& v, Bytes) {
      if (v.base_offset() <= offset && offset <= v.last_offset()) out = v.delete_horizon_ms();
    });
    EXPECT_TRUE(s.ok()) << s.ToString();
    return out;
  }
  // The entries of the live .txnindex of the segment at `base` (none when it has no file).
  std::vector<AbortedTxn> IndexOf(int64_t base) {
    TransactionIndex idx(Env::Default(), base, TxnIndexFilePath(dir(), base));
    auto all = idx.AllAbortedTxns();
    EXPECT_TRUE(all.ok()) << all.status().ToString();
    return all.ok() ? *all : std::vector<AbortedTxn>{};
  }
  std::vector<std::string> LeftoverFiles() {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(dir())) {
      const std::string n = e.path().filename().string();
      if (n.find(".cleaned") != std::string::npos || n.find(".swap") != std::string::npos) {
        out.push_back(n);
      }
    }
    return out;
  }

  // B commits k=v1; A's transaction writes k=v2 and j=x around a plain j=c1, and aborts:
  //   0 B:k=v1  1 B:COMMIT  2 A:k=v2  3 j=c1  4 A:j=x  5 A:ABORT  6 f=1 | 7 tail=t (active)
  std::unique_ptr<Log> WriteAbortedOverCommitted() {
    auto log = Open();
    Write(log.get(), {{"k", "v1"}}, kB, 0);
    Marker(log.get(), kB, ControlRecordType::kCommit);
    Write(log.get(), {{"k", "v2"}}, kA, 0);
    Write(log.get(), {{"j", "c1"}});
    Write(log.get(), {{"j", "x"}}, kA, 1);
    Marker(log.get(), kA, ControlRecordType::kAbort);
    Write(log.get(), {{"f", "1"}});
    Write(log.get(), {{"tail", "t"}});
    EXPECT_EQ(log->segment_base_offsets(), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
    EXPECT_EQ(log->last_stable_offset(), 8);
    return log;
  }

  TempDir tmp_;
  int64_t now_ = 1794024829000;
  SkimpyOffsetMap map_{24 * 1024, 0.9};
};

// (a) The aborted writes of k and j are dropped, and the committed values they would have
// shadowed in the offset map stay.
TEST_F(CleanerTransactionTest, AbortedRecordsGoAndNeverShadowCommittedValues) {
  auto log = WriteAbortedOverCommitted();
  auto r = Clean(log.get());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->end_offset, 7);
  EXPECT_EQ(Contents(log.get()), (std::vector<std::string>{"0 k v1", "1 COMMIT", "3 j c1",
                                                           "5 ABORT", "6 f 1", "7 tail t"}));
  // A second round changes nothing but the ABORT marker (its data is gone now).
  ASSERT_TRUE(Clean(log.get()).ok());
  EXPECT_EQ(Contents(log.get()), (std::vector<std::string>{"0 k v1", "1 COMMIT", "3 j c1",
                                                           "5 ABORT", "6 f 1", "7 tail t"}));
}

// (b) While the pass meets the aborted data, the ABORT marker stays and the cleaned segment's
// .txnindex keeps its entry (a read_committed reader still learns of it, also after a
// reopen). Once the data is gone the next pass stamps the marker's delete horizon and drops
// the entry; the first pass at or after the horizon drops the marker.
TEST_F(CleanerTransactionTest, AbortMarkerStaysWhileItsDataRemainsThenGoesAfterTheHorizon) {
  auto log = WriteAbortedOverCommitted();
  const std::vector<AbortedTxn> original = IndexOf(5);
  ASSERT_EQ(original, (std::vector<AbortedTxn>{{kA, 2, 5, 6}}));

  now_ += 60000;
  ASSERT_TRUE(Clean(log.get()).ok());
  EXPECT_EQ(Contents(log.get()), (std::vector<std::string>{"0 k v1", "1 COMMIT", "3 j c1",
                                                           "5 ABORT", "6 f 1", "7 tail t"}));
  EXPECT_EQ(IndexOf(5), original);  // written again into the cleaned segment, swapped in
  EXPECT_EQ(HorizonOf(log.get(), 5), std::nullopt);
  EXPECT_EQ(*log->CollectAbortedTransactions(0, 8), (std::vector<AbortedTransaction>{{kA, 2}}));
  EXPECT_TRUE(LeftoverFiles().empty()) << ::testing::PrintToString(LeftoverFiles());
  ASSERT_TRUE(log->Close().ok());
  log.reset();
  log = Open();
  ASSERT_NE(log, nullptr);
  EXPECT_EQ(*log->CollectAbortedTransactions(0, 8), (std::vector<AbortedTransaction>{{kA, 2}}));

  // The data is gone: the marker may go, after delete.retention.ms (1 h here).
  now_ += 60000;
  ASSERT_TRUE(Clean(log.get()).ok());
  const int64_t horizon = now_ + kHour;
  EXPECT_EQ(HorizonOf(log.get(), 5), horizon);
  EXPECT_THAT(Contents(log.get()), ::testing::Contains("5 ABORT"));
  EXPECT_TRUE(IndexOf(5).empty());
  EXPECT_TRUE(log->CollectAbortedTransactions(0, 8)->empty());

  now_ = horizon - 1;
  ASSERT_TRUE(Clean(log.get()).ok());
  EXPECT_THAT(Contents(log.get()), ::testing::Contains("5 ABORT"));

  now_ = horizon;
  ASSERT_TRUE(Clean(log.get()).ok());
  EXPECT_EQ(Contents(log.get()),
            (std::vector<std::string>{"0 k v1", "1 COMMIT", "3 j c1", "6 f 1", "7 tail t"}));
  EXPECT_TRUE(LeftoverFiles().empty()) << ::testing::PrintToString(LeftoverFiles());
}

// With the aborting producer still active, its last data batch stays as an empty batch (its
// sequence is kept) - and since the pass meets that batch, its ABORT marker and index entry
// stay too, past any horizon.
TEST_F(CleanerTransactionTest, AnActiveProducersEmptiedAbortedBatchKeepsItsMarker) {
  auto log = WriteAbortedOverCommitted();
  for (int round = 0; round < 2; ++round) {
    ASSERT_TRUE(Clean(log.get(), /*expiration_ms=*/86400000).ok());
    EXPECT_EQ(Contents(log.get()),
              (std::vector<std::string>{"0 k v1", "1 COMMIT", "3 j c1", "4..4 empty", "5 ABORT",
                                        "6 f 1", "7 tail t"}))
        << round;
    EXPECT_EQ(IndexOf(5), (std::vector<AbortedTxn>{{kA, 2, 5, 6}})) << round;
    EXPECT_EQ(HorizonOf(log.get(), 5), std::nullopt) << round;
    now_ += 2 * kHour;
  }
}

// (c) A committed transaction's records are compacted as any others; its COMMIT marker stays,
// however old, while a batch of the transaction is met, and once its last record is cleaned
// away it goes after the delete horizon.
TEST_F(CleanerTransactionTest, CommitMarkerGoesOnceItsTransactionsDataIsCleanedAway) {
  auto log = Open();
  Write(log.get(), {{"k", "a1"}, {"m", "a2"}}, kA, 0);  // 0..1
  Marker(log.get(), kA, ControlRecordType::kCommit);    // 2
  Write(log.get(), {{"j", "p"}});                       // 3
  Write(log.get(), {{"f", "1"}});                       // 4
  Write(log.get(), {{"tail", "t"}});                    // 5, active
  ASSERT_TRUE(Clean(log.get()).ok());
  EXPECT_EQ(Contents(log.get()), (std::vector<std::string>{"0 k a1", "1 m a2", "2 COMMIT", "3 j p",
                                                           "4 f 1", "5 tail t"}));
  EXPECT_EQ(HorizonOf(log.get(), 2), std::nullopt);
  // Long after any horizon, with its records still there, the marker still stays.
  now_ += 3 * kHour;
  ASSERT_TRUE(Clean(log.get()).ok());
  EXPECT_THAT(Contents(log.get()), ::testing::Contains("2 COMMIT"));
  EXPECT_EQ(HorizonOf(log.get(), 2), std::nullopt);

  // k is overwritten: the transaction's batch keeps m only; the marker stays.
  Write(log.get(), {{"k", "b1"}});  // 6
  Write(log.get(), {{"g", "2"}});   // 7, active
  ASSERT_TRUE(Clean(log.get()).ok());
  EXPECT_EQ(Contents(log.get()), (std::vector<std::string>{"1 m a2", "2 COMMIT", "3 j p", "4 f 1",
                                                           "5 tail t", "6 k b1", "7 g 2"}));
  // m too: the pass still meets the (then emptied) batch, so the marker stays this time ...
  Write(log.get(), {{"m", "b2"}});  // 8
  Write(log.get(), {{"h", "3"}});   // 9, active
  ASSERT_TRUE(Clean(log.get()).ok());
  EXPECT_EQ(Contents(log.get()), (std::vector<std::string>{"2 COMMIT", "3 j p", "4 f 1", "5 tail t",
                                                           "6 k b1", "7 g 2", "8 m b2", "9 h 3"}));
  EXPECT_EQ(HorizonOf(log.get(), 2), std::nullopt);
  // ... and the next one, meeting none, stamps its horizon; it goes at the horizon.
  ASSERT_TRUE(Clean(log.get()).ok());
  const int64_t horizon = now_ + kHour;
  EXPECT_EQ(HorizonOf(log.get(), 2), horizon);
  EXPECT_THAT(Contents(log.get()), ::testing::Contains("2 COMMIT"));
  now_ = horizon;
  ASSERT_TRUE(Clean(log.get()).ok());
  EXPECT_EQ(Contents(log.get()), (std::vector<std::string>{"3 j p", "4 f 1", "5 tail t", "6 k b1",
                                                           "7 g 2", "8 m b2", "9 h 3"}));
}

// (d) An open transaction holds the last stable offset: neither it nor anything after it is
// cleaned - not even a later plain write of the same key - until it completes.
TEST_F(CleanerTransactionTest, NothingAtOrAboveTheLastStableOffsetIsCleaned) {
  auto log = Open();
  Write(log.get(), {{"k", "v1"}});         // 0
  Write(log.get(), {{"k", "v2"}}, kA, 0);  // 1, A's transaction, open
  Write(log.get(), {{"k", "v3"}});         // 2
  Write(log.get(), {{"tail", "t"}});       // 3, active
  ASSERT_EQ(log->last_stable_offset(), 1);
  ASSERT_EQ(log->high_watermark(), 4);
  auto range = CleanableRange(*log, std::nullopt, now_);
  ASSERT_TRUE(range.ok());
  EXPECT_EQ(range->first_uncleanable_offset, 1);
  auto r = Clean(log.get());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->end_offset, 1);
  const std::vector<std::string> all = {"0 k v1", "1 k v2", "2 k v3", "3 tail t"};
  EXPECT_EQ(Contents(log.get()), all);

  // Committed, the transaction is cleaned as any data below the last stable offset.
  Marker(log.get(), kA, ControlRecordType::kCommit);  // 4, active
  ASSERT_EQ(log->last_stable_offset(), 5);
  r = Clean(log.get());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->end_offset, 4);
  EXPECT_EQ(Contents(log.get()), (std::vector<std::string>{"2 k v3", "3 tail t", "4 COMMIT"}));
}

// An aborted transaction that began below the first dirty offset (it was open during the
// previous round): its data below the first dirty offset is dropped too (every round cleans
// again from the log start), and its keys above it stay out of the map.
TEST_F(CleanerTransactionTest, AbortedDataAcrossTheFirstDirtyOffset) {
  auto log = Open();
  Write(log.get(), {{"k", "v1"}});                   // 0
  Write(log.get(), {{"k", "v2"}}, kA, 0);            // 1
  Write(log.get(), {{"f", "1"}});                    // 2
  ASSERT_TRUE(Clean(log.get()).ok());                // A is open: only [0, 1) is cleanable
  Write(log.get(), {{"k", "v3"}}, kA, 1);            // 3
  Marker(log.get(), kA, ControlRecordType::kAbort);  // 4
  Write(log.get(), {{"g", "2"}});                    // 5
  Write(log.get(), {{"tail", "t"}});                 // 6, active
  auto range = CleanableRange(*log, 2, now_);
  ASSERT_TRUE(range.ok());
  EXPECT_EQ(range->first_dirty_offset, 2);
  EXPECT_EQ(range->first_uncleanable_offset, 6);
  Cleaner cleaner(0, &map_, {}, 0);
  ASSERT_TRUE(cleaner.Clean(*log, "txn-0", *range, now_).ok());
  EXPECT_EQ(Contents(log.get()),
            (std::vector<std::string>{"0 k v1", "2 f 1", "4 ABORT", "5 g 2", "6 tail t"}));
  EXPECT_EQ(IndexOf(4), (std::vector<AbortedTxn>{{kA, 1, 4, 5}}));
}

// The ABORT marker (and so the index entry) may be past the cleaned range - here in the
// active segment: the aborted data below it is still known as aborted and dropped.
TEST_F(CleanerTransactionTest, AbortedDataIsKnownFromAMarkerPastTheCleanedRange) {
  auto log = Open();
  Write(log.get(), {{"k", "v1"}});                   // 0
  Write(log.get(), {{"k", "v2"}}, kA, 0);            // 1
  Write(log.get(), {{"f", "1"}});                    // 2
  Marker(log.get(), kA, ControlRecordType::kAbort);  // 3, active
  ASSERT_EQ(IndexOf(3), (std::vector<AbortedTxn>{{kA, 1, 3, 4}}));
  auto r = Clean(log.get());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->end_offset, 3);
  EXPECT_EQ(Contents(log.get()), (std::vector<std::string>{"0 k v1", "2 f 1", "3 ABORT"}));
  EXPECT_EQ(*log->CollectAbortedTransactions(0, 4), (std::vector<AbortedTransaction>{{kA, 1}}));
}

}  // namespace
}  // namespace seglog
