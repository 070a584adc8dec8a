// Tests for the aborted-transaction index: Kafka's byte layout, the append rule, collection for
// read_committed fetches (range and the completeness rule), truncation, the checks run at load
// (a wrong version, entries below the segment or going backwards, a partial tail), a read-only
// index, and a failed write that leaves the file as it was.
#include "index/transaction_index.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>

#include "io/fault_injection_env.h"

namespace seglog {
namespace {

using ::testing::HasSubstr;

class TransactionIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() /
            ("seglog_txn_index_test_" + std::to_string(::getpid())))
               .string();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    path_ = dir_ + "/00000000000000000100.txnindex";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::vector<uint8_t> FileBytes() {
    std::ifstream in(path_, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
  }
  void WriteFile(const std::vector<uint8_t>& bytes) {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
  }
  std::string dir_, path_;
};

TEST_F(TransactionIndexTest, EntryBytesAreKafkas) {
  const AbortedTxn t{0x0102030405060708, 100, 0x1122, 0x3344};
  EXPECT_EQ(EncodeAbortedTxn(t),
            (std::vector<uint8_t>{0, 0, 1, 2, 3, 4, 5,    6,    7, 8, 0, 0, 0, 0, 0,    0,   0, 100,
                                  0, 0, 0, 0, 0, 0, 0x11, 0x22, 0, 0, 0, 0, 0, 0, 0x33, 0x44}));
  auto back = DecodeAbortedTxn(EncodeAbortedTxn(t), "p", 0);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, t);
}

TEST_F(TransactionIndexTest, CreatedAtTheFirstAbortAndAppendedInOrder) {
  TransactionIndex idx(Env::Default(), 100, path_);
  EXPECT_TRUE(idx.AllAbortedTxns()->empty());
  EXPECT_FALSE(std::filesystem::exists(path_));  // no abort, no file
  ASSERT_TRUE(idx.Append({7, 90, 120, 121}).ok());
  ASSERT_TRUE(idx.Append({8, 110, 130, 131}).ok());
  EXPECT_EQ(FileBytes().size(), 2 * kAbortedTxnSize);
  // Not above the last one: Kafka's IllegalArgumentException.
  EXPECT_THAT(idx.Append({9, 125, 130, 131}).ToString(), HasSubstr("must increase sequentially"));
  EXPECT_EQ(FileBytes().size(), 2 * kAbortedTxnSize);
  ASSERT_TRUE(idx.Flush().ok());
  ASSERT_TRUE(idx.Close().ok());
  // Reopened (the last offset read back from the file).
  TransactionIndex again(Env::Default(), 100, path_);
  EXPECT_THAT(again.Append({9, 125, 129, 131}).ToString(), HasSubstr("must increase"));
  ASSERT_TRUE(again.Append({9, 125, 140, 141}).ok());
  EXPECT_EQ(*again.AllAbortedTxns(),
            (std::vector<AbortedTxn>{{7, 90, 120, 121}, {8, 110, 130, 131}, {9, 125, 140, 141}}));
}

// collectAbortedTxns: last offset >= the fetch offset and first offset < the upper bound;
// complete once an entry's LSO reaches the upper bound.
TEST_F(TransactionIndexTest, CollectsTheTransactionsAFetchOverlaps) {
  TransactionIndex idx(Env::Default(), 100, path_);
  ASSERT_TRUE(idx.Append({1, 100, 105, 106}).ok());
  ASSERT_TRUE(idx.Append({2, 103, 110, 103}).ok());  // LSO held back by another open txn
  ASSERT_TRUE(idx.Append({3, 112, 120, 121}).ok());
  auto c = idx.CollectAbortedTxns(106, 115);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->txns, (std::vector<AbortedTxn>{{2, 103, 110, 103}, {3, 112, 120, 121}}));
  EXPECT_TRUE(c->complete);  // entry 3's LSO 121 >= 115
  c = idx.CollectAbortedTxns(0, 200);
  EXPECT_EQ(c->txns.size(), 3u);
  EXPECT_FALSE(c->complete);  // a later segment may still hold one
  c = idx.CollectAbortedTxns(121, 200);
  EXPECT_TRUE(c->txns.empty());
  c = idx.CollectAbortedTxns(0, 100);  // nothing starts below 100
  EXPECT_TRUE(c->txns.empty());
  EXPECT_TRUE(c->complete);
}

TEST_F(TransactionIndexTest, TruncateAndReset) {
  TransactionIndex idx(Env::Default(), 100, path_);
  ASSERT_TRUE(idx.Append({1, 100, 105, 106}).ok());
  ASSERT_TRUE(idx.Append({2, 103, 110, 111}).ok());
  ASSERT_TRUE(idx.TruncateTo(110).ok());  // the entry whose marker is at 110 goes
  EXPECT_EQ(*idx.AllAbortedTxns(), (std::vector<AbortedTxn>{{1, 100, 105, 106}}));
  ASSERT_TRUE(idx.Append({2, 103, 108, 109}).ok());  // the last offset is 105 again
  ASSERT_TRUE(idx.Reset().ok());
  EXPECT_TRUE(idx.AllAbortedTxns()->empty());
  EXPECT_EQ(FileBytes().size(), 0u);
  ASSERT_TRUE(idx.Append({1, 100, 101, 102}).ok());
  ASSERT_TRUE(idx.DeleteIfExists().ok());
  EXPECT_FALSE(std::filesystem::exists(path_));
  EXPECT_TRUE(idx.DeleteIfExists().ok());  // twice is fine
}

TEST_F(TransactionIndexTest, SanityCheckAndBadFiles) {
  // An entry below the segment's base offset (100): Kafka's CorruptIndexException.
  WriteFile(EncodeAbortedTxn({1, 50, 99, 100}));
  TransactionIndex below(Env::Default(), 100, path_);
  EXPECT_THAT(below.SanityCheck().ToString(), HasSubstr("is less than start offset 100"));
  // Entries that go backwards.
  std::vector<uint8_t> two = EncodeAbortedTxn({1, 100, 120, 121});
  std::vector<uint8_t> back = EncodeAbortedTxn({2, 100, 110, 111});
  two.insert(two.end(), back.begin(), back.end());
  WriteFile(two);
  TransactionIndex backwards(Env::Default(), 100, path_);
  EXPECT_THAT(backwards.SanityCheck().ToString(), HasSubstr("go backwards"));
  // An entry whose marker lies past the segment (the next one starts at 120).
  WriteFile(EncodeAbortedTxn({1, 100, 120, 121}));
  TransactionIndex past(Env::Default(), 100, path_);
  EXPECT_TRUE(past.SanityCheck(121).ok());
  EXPECT_THAT(past.SanityCheck(120).ToString(), HasSubstr("past its segment"));
  // A version Kafka does not know (first byte 1).
  std::vector<uint8_t> v1 = EncodeAbortedTxn({1, 100, 120, 121});
  v1[0] = 1;
  WriteFile(v1);
  TransactionIndex version(Env::Default(), 100, path_);
  EXPECT_THAT(version.AllAbortedTxns().status().ToString(),
              HasSubstr("Unexpected aborted transaction version 1"));
  // A partial tail (a crash mid-append) is not an entry; the next append overwrites it.
  std::vector<uint8_t> partial = EncodeAbortedTxn({1, 100, 120, 121});
  partial.insert(partial.end(), {0, 0, 0, 0, 0});
  WriteFile(partial);
  TransactionIndex tail(Env::Default(), 100, path_);
  EXPECT_TRUE(tail.SanityCheck().ok());
  EXPECT_EQ(tail.AllAbortedTxns()->size(), 1u);
  ASSERT_TRUE(tail.Append({2, 121, 130, 131}).ok());
  EXPECT_EQ(FileBytes().size(), 2 * kAbortedTxnSize);
  EXPECT_EQ(tail.AllAbortedTxns()->size(), 2u);
}

TEST_F(TransactionIndexTest, ReadOnlyIndexReadsAndRefusesChanges) {
  WriteFile(EncodeAbortedTxn({1, 100, 120, 121}));
  TransactionIndex idx(Env::Default(), 100, path_, /*writable=*/false);
  EXPECT_EQ(idx.AllAbortedTxns()->size(), 1u);
  EXPECT_FALSE(idx.Append({2, 121, 130, 131}).ok());
  EXPECT_FALSE(idx.TruncateTo(0).ok());
  EXPECT_EQ(FileBytes().size(), kAbortedTxnSize);
}

TEST_F(TransactionIndexTest, FailedWriteLeavesTheIndexAsItWas) {
  FaultInjectionEnv env(Env::Default());
  TransactionIndex idx(&env, 100, path_);
  ASSERT_TRUE(idx.Append({1, 100, 105, 106}).ok());
  env.Fail(EnvOp::kWrite, ".txnindex", ENOSPC, 1);
  Status s = idx.Append({2, 106, 110, 111});
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.ToString(), HasSubstr("txnindex"));
  EXPECT_EQ(idx.AllAbortedTxns()->size(), 1u);
  ASSERT_TRUE(idx.Append({2, 106, 110, 111}).ok());  // the same entry, once the disk has room
  EXPECT_EQ(idx.AllAbortedTxns()->size(), 2u);
}

TEST_F(TransactionIndexTest, RenameMovesTheFile) {
  TransactionIndex idx(Env::Default(), 100, path_);
  ASSERT_TRUE(idx.Append({1, 100, 105, 106}).ok());
  ASSERT_TRUE(idx.RenameTo(path_ + ".deleted").ok());
  EXPECT_FALSE(std::filesystem::exists(path_));
  EXPECT_EQ(idx.AllAbortedTxns()->size(), 1u);
  EXPECT_EQ(idx.path(), path_ + ".deleted");
}

}  // namespace
}  // namespace seglog
