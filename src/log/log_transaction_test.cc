// Tests for transactions in the log (issue 15's storage part): transactional batches open a
// transaction in the producer state, COMMIT/ABORT markers (written by the coordinator) end it;
// an aborted one gets its entry in the active segment's .txnindex with Kafka's last stable
// offset; the log's last stable offset stops at the earliest open transaction; a
// read_committed reader's aborted transactions are collected across segments; and all of it
// survives clean and unclean restarts - a missing or corrupt index is written again from the
// markers in the log.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "index/transaction_index.h"
#include "io/file_names.h"
#include "seglog/log.h"
#include "seglog/record_batch.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

constexpr int64_t kT0 = 1700000000000;
constexpr int64_t kA = 4000;  // producer ids
constexpr int64_t kB = 4001;

class LogTransactionTest : public ::testing::Test {
 protected:
  std::unique_ptr<Log> OpenLog(bool clean = true) {
    LogOptions o;
    o.clock = [this] { return now_; };
    o.had_clean_shutdown = clean;
    auto log = Log::Open(dir(), {}, o);
    EXPECT_TRUE(log.ok()) << log.status().ToString();
    return log.ok() ? std::move(log).value() : nullptr;
  }
  std::string dir() const { return tmp_.path() + "/t-0"; }

  // `count` records of a transaction of `pid` (sequences from `seq`).
  Status Data(Log* log, int64_t pid, int32_t seq, int count, bool transactional = true) {
    BatchOptions o;
    o.producer_id = pid;
    o.producer_epoch = 0;
    o.base_sequence = seq;
    o.is_transactional = transactional;
    RecordBatchBuilder b(o);
    for (int i = 0; i < count; ++i) {
      const std::string v = fmt::format("v{}", i);
      EXPECT_TRUE(
          b.Append(now_, std::nullopt, Bytes(reinterpret_cast<const uint8_t*>(v.data()), v.size()))
              .ok());
    }
    return log->AppendAsLeader(*b.Build()).status();
  }
  // The coordinator's COMMIT or ABORT marker for `pid`.
  Result<LogAppendInfo> Marker(Log* log, int64_t pid, ControlRecordType type) {
    BatchOptions o;
    o.producer_id = pid;
    o.producer_epoch = 0;
    o.is_transactional = true;
    o.is_control = true;
    RecordBatchBuilder b(o);
    EXPECT_TRUE(b.AppendEndTxnMarker(type, 0, now_).ok());
    return log->AppendAsLeader(*b.Build(), 0, AppendOrigin::kCoordinator);
  }
  std::vector<AbortedTxn> IndexOf(int64_t base) {
    TransactionIndex idx(Env::Default(), base, TxnIndexFilePath(dir(), base));
    auto all = idx.AllAbortedTxns();
    EXPECT_TRUE(all.ok()) << all.status().ToString();
    return all.ok() ? *all : std::vector<AbortedTxn>{};
  }

  TempDir tmp_;
  int64_t now_ = kT0;
};

TEST_F(LogTransactionTest, AnAbortIsIndexedAndTheLastStableOffsetFollowsOpenTransactions) {
  auto log = OpenLog();
  ASSERT_TRUE(Data(log.get(), kA, 0, 3).ok());  // A's transaction: 0..2
  EXPECT_EQ(log->last_stable_offset(), 0);
  EXPECT_EQ(log->high_watermark(), 3);
  ASSERT_TRUE(Data(log.get(), kB, 0, 1, /*transactional=*/false).ok());  // 3, not transactional
  EXPECT_EQ(log->last_stable_offset(), 0);
  EXPECT_FALSE(std::filesystem::exists(TxnIndexFilePath(dir(), 0)));
  auto abort = Marker(log.get(), kA, ControlRecordType::kAbort);  // 4
  ASSERT_TRUE(abort.ok()) << abort.status().ToString();
  EXPECT_EQ(abort->first_offset, 4);
  EXPECT_EQ(log->last_stable_offset(), 5);
  EXPECT_EQ(IndexOf(0), (std::vector<AbortedTxn>{{kA, 0, 4, 5}}));
  EXPECT_EQ(*log->CollectAbortedTransactions(0, 5), (std::vector<AbortedTransaction>{{kA, 0}}));
  EXPECT_TRUE(log->CollectAbortedTransactions(5, 5)->empty());
  // A committed transaction leaves no entry.
  ASSERT_TRUE(Data(log.get(), kB, 1, 2).ok());  // 5..6
  EXPECT_EQ(log->last_stable_offset(), 5);
  ASSERT_TRUE(Marker(log.get(), kB, ControlRecordType::kCommit).ok());  // 7
  EXPECT_EQ(log->last_stable_offset(), 8);
  EXPECT_EQ(IndexOf(0).size(), 1u);
}

// Two open transactions: the earlier one holds the LSO, and the other's abort records it.
TEST_F(LogTransactionTest, AnEarlierOpenTransactionHoldsTheLastStableOffset) {
  auto log = OpenLog();
  ASSERT_TRUE(Data(log.get(), kA, 0, 2).ok());                         // 0..1
  ASSERT_TRUE(Data(log.get(), kB, 0, 2).ok());                         // 2..3
  ASSERT_TRUE(Marker(log.get(), kB, ControlRecordType::kAbort).ok());  // 4
  EXPECT_EQ(log->last_stable_offset(), 0);
  EXPECT_EQ(IndexOf(0), (std::vector<AbortedTxn>{{kB, 2, 4, 0}}));     // LSO: A's first offset
  ASSERT_TRUE(Marker(log.get(), kA, ControlRecordType::kAbort).ok());  // 5
  EXPECT_EQ(log->last_stable_offset(), 6);
  EXPECT_EQ(IndexOf(0), (std::vector<AbortedTxn>{{kB, 2, 4, 0}, {kA, 0, 5, 6}}));
  EXPECT_EQ(*log->CollectAbortedTransactions(0, 6),
            (std::vector<AbortedTransaction>{{kB, 2}, {kA, 0}}));
}

// Each entry goes to the segment its marker is in; a fetch collects from the segment holding
// its start offset onwards, and stops once an entry's LSO reaches its bound.
TEST_F(LogTransactionTest, AbortedTransactionsAreCollectedAcrossSegments) {
  auto log = OpenLog();
  ASSERT_TRUE(Data(log.get(), kA, 0, 2).ok());                         // 0..1
  ASSERT_TRUE(Marker(log.get(), kA, ControlRecordType::kAbort).ok());  // 2
  ASSERT_TRUE(log->Roll().ok());                                       // segment 3
  ASSERT_TRUE(Data(log.get(), kB, 0, 2).ok());                         // 3..4
  ASSERT_TRUE(Marker(log.get(), kB, ControlRecordType::kAbort).ok());  // 5
  EXPECT_EQ(IndexOf(0), (std::vector<AbortedTxn>{{kA, 0, 2, 3}}));
  EXPECT_EQ(IndexOf(3), (std::vector<AbortedTxn>{{kB, 3, 5, 6}}));
  EXPECT_EQ(*log->CollectAbortedTransactions(0, 6),
            (std::vector<AbortedTransaction>{{kA, 0}, {kB, 3}}));
  EXPECT_EQ(*log->CollectAbortedTransactions(3, 6), (std::vector<AbortedTransaction>{{kB, 3}}));
  EXPECT_EQ(*log->CollectAbortedTransactions(0, 2), (std::vector<AbortedTransaction>{{kA, 0}}));
}

// A transaction that starts below a read_committed bound (the LSO, held back by an earlier
// open transaction) but is aborted in a later segment is still reported.
TEST_F(LogTransactionTest, AnAbortInASegmentPastTheBoundIsCollected) {
  auto log = OpenLog();
  ASSERT_TRUE(Data(log.get(), kB, 0, 2).ok());                         // 0..1: B's transaction
  ASSERT_TRUE(Data(log.get(), kA, 0, 2).ok());                         // 2..3: A's, open to the end
  ASSERT_TRUE(log->Roll().ok());                                       // segment 4
  ASSERT_TRUE(Marker(log.get(), kB, ControlRecordType::kAbort).ok());  // 4
  EXPECT_EQ(log->last_stable_offset(), 2);
  EXPECT_EQ(IndexOf(4), (std::vector<AbortedTxn>{{kB, 0, 4, 2}}));
  EXPECT_EQ(*log->CollectAbortedTransactions(0, 2), (std::vector<AbortedTransaction>{{kB, 0}}));
}

TEST_F(LogTransactionTest, AnOpenTransactionSurvivesACleanRestart) {
  {
    auto log = OpenLog();
    ASSERT_TRUE(Data(log.get(), kA, 0, 1, false).ok());  // 0
    ASSERT_TRUE(Data(log.get(), kB, 0, 2).ok());         // 1..2, open
    ASSERT_TRUE(log->Close().ok());
  }
  auto log = OpenLog();
  EXPECT_EQ(log->last_stable_offset(), 1);
  ASSERT_TRUE(Marker(log.get(), kB, ControlRecordType::kAbort).ok());  // 3
  EXPECT_EQ(IndexOf(0), (std::vector<AbortedTxn>{{kB, 1, 3, 4}}));
  EXPECT_EQ(log->last_stable_offset(), 4);
}

// A crash between the marker and its index entry (here: the index file is lost): the
// producer state's replay at the next open writes it again.
TEST_F(LogTransactionTest, AMissingEntryIsWrittenAgainAfterAnUncleanShutdown) {
  {
    auto log = OpenLog();
    ASSERT_TRUE(Data(log.get(), kA, 0, 2).ok());                         // 0..1
    ASSERT_TRUE(Marker(log.get(), kA, ControlRecordType::kAbort).ok());  // 2
    ASSERT_TRUE(Data(log.get(), kB, 0, 2).ok());                         // 3..4, open
    // No Close: a crash.
  }
  std::filesystem::remove(TxnIndexFilePath(dir(), 0));
  auto log = OpenLog(/*clean=*/false);
  EXPECT_EQ(IndexOf(0), (std::vector<AbortedTxn>{{kA, 0, 2, 3}}));
  EXPECT_EQ(log->last_stable_offset(), 3);  // B's transaction is still open
}

// A corrupt index (an entry below the segment, a version Kafka does not know) fails the check
// at load: the segment is recovered and its entries written again from the log.
TEST_F(LogTransactionTest, ACorruptIndexIsRebuiltAtLoad) {
  {
    auto log = OpenLog();
    ASSERT_TRUE(Data(log.get(), kA, 0, 2).ok());                         // 0..1
    ASSERT_TRUE(Marker(log.get(), kA, ControlRecordType::kAbort).ok());  // 2
    ASSERT_TRUE(log->Roll().ok());
    ASSERT_TRUE(Data(log.get(), kB, 0, 2).ok());                         // 3..4
    ASSERT_TRUE(Marker(log.get(), kB, ControlRecordType::kAbort).ok());  // 5
    ASSERT_TRUE(log->Close().ok());
  }
  std::vector<uint8_t> bad = EncodeAbortedTxn({kB, 3, 5, 6});
  bad[0] = 7;  // a version Kafka refuses
  {
    std::ofstream out(TxnIndexFilePath(dir(), 3), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bad.data()), static_cast<std::streamsize>(bad.size()));
  }
  auto log = OpenLog();
  std::string actions;
  for (const std::string& a : log->load_report().actions) actions += fmt::format("{}\n", a);
  EXPECT_THAT(actions, HasSubstr("corrupt transaction index"));
  EXPECT_EQ(IndexOf(3), (std::vector<AbortedTxn>{{kB, 3, 5, 6}}));
  EXPECT_EQ(IndexOf(0), (std::vector<AbortedTxn>{{kA, 0, 2, 3}}));
  EXPECT_EQ(*log->CollectAbortedTransactions(0, 6),
            (std::vector<AbortedTransaction>{{kA, 0}, {kB, 3}}));
}

// An entry that lies past its segment (it belongs to the next one) fails the check at load too:
// the segment is recovered and its index rebuilt with only its own transaction.
TEST_F(LogTransactionTest, AnEntryPastItsSegmentIsRebuiltAtLoad) {
  {
    auto log = OpenLog();
    ASSERT_TRUE(Data(log.get(), kA, 0, 2).ok());                         // 0..1
    ASSERT_TRUE(Marker(log.get(), kA, ControlRecordType::kAbort).ok());  // 2
    ASSERT_TRUE(log->Roll().ok());
    ASSERT_TRUE(Data(log.get(), kB, 0, 2).ok());                         // 3..4
    ASSERT_TRUE(Marker(log.get(), kB, ControlRecordType::kAbort).ok());  // 5
    ASSERT_TRUE(log->Close().ok());
  }
  std::vector<uint8_t> lying = EncodeAbortedTxn({kA, 0, 2, 3});
  std::vector<uint8_t> next = EncodeAbortedTxn({kB, 3, 5, 6});
  lying.insert(lying.end(), next.begin(), next.end());
  {
    std::ofstream out(TxnIndexFilePath(dir(), 0), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(lying.data()),
              static_cast<std::streamsize>(lying.size()));
  }
  auto log = OpenLog();
  std::string actions;
  for (const std::string& a : log->load_report().actions) actions += fmt::format("{}\n", a);
  EXPECT_THAT(actions, HasSubstr("corrupt transaction index"));
  EXPECT_EQ(IndexOf(0), (std::vector<AbortedTxn>{{kA, 0, 2, 3}}));
  EXPECT_EQ(IndexOf(3), (std::vector<AbortedTxn>{{kB, 3, 5, 6}}));
  EXPECT_EQ(*log->CollectAbortedTransactions(0, 6),
            (std::vector<AbortedTransaction>{{kA, 0}, {kB, 3}}));
}

// Retention takes a segment's .txnindex with it.
TEST_F(LogTransactionTest, TheIndexGoesWithItsSegment) {
  auto log = OpenLog();
  ASSERT_TRUE(Data(log.get(), kA, 0, 2).ok());
  ASSERT_TRUE(Marker(log.get(), kA, ControlRecordType::kAbort).ok());
  ASSERT_TRUE(log->Roll().ok());
  ASSERT_TRUE(Data(log.get(), kB, 0, 1, false).ok());
  ASSERT_TRUE(log->DeleteRecords(3).ok());
  ASSERT_EQ(*log->DeleteOldSegments(), 1);
  EXPECT_FALSE(std::filesystem::exists(TxnIndexFilePath(dir(), 0)));
  EXPECT_TRUE(log->CollectAbortedTransactions(3, 4)->empty());
}

}  // namespace
}  // namespace seglog
