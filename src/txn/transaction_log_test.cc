// __transaction_state records: Kafka's bytes, round trips, tombstones, versions this build
// does not know, and corrupt values.
#include "txn/transaction_log.h"

#include <gtest/gtest.h>

#include "tests/support/bytes.h"

namespace seglog {
namespace {

TransactionMetadata Ongoing() {
  TransactionMetadata m;
  m.transactional_id = "t1";
  m.producer_id = 7;
  m.previous_producer_id = 7;
  m.producer_epoch = 3;
  m.txn_timeout_ms = 60000;
  m.state = TransactionState::kOngoing;
  m.partitions = {{"b", 1}, {"a", 0}, {"a", 2}};
  m.txn_start_timestamp_ms = 1000;
  m.txn_last_update_timestamp_ms = 2000;
  return m;
}

TEST(TransactionLogTest, KeyAndVersion0ValueHaveKafkasBytes) {
  TransactionLogRecord r = TransactionRecord(Ongoing(), 0);
  EXPECT_EQ(r.key, (std::vector<uint8_t>{0, 0, 0, 2, 't', '1'}));
  ASSERT_TRUE(r.value.has_value());
  // version 0 | pid 7 | epoch 3 | timeout 60000 | status 1 | 2 topics: a [0,2], b [1] |
  // last update 2000 | start 1000 (the last update comes first).
  std::vector<uint8_t> want = {0, 0, 0,   0, 0, 0, 0,    0,    0, 7, 0, 3, 0, 0, 0xEA, 0x60,
                               1, 0, 0,   0, 2,                                      // topics
                               0, 1, 'a', 0, 0, 0, 2,    0,    0, 0, 0, 0, 0, 0, 2,  // a: 0, 2
                               0, 1, 'b', 0, 0, 0, 1,    0,    0, 0, 1,              // b: 1
                               0, 0, 0,   0, 0, 0, 0x07, 0xD0, 0, 0, 0, 0, 0, 0, 0x03, 0xE8};
  EXPECT_EQ(*r.value, want);
}

TEST(TransactionLogTest, EmptyIsWrittenWithoutPartitions) {
  TransactionMetadata m = Ongoing();
  m.state = TransactionState::kEmpty;
  m.partitions.clear();
  m.txn_start_timestamp_ms = -1;
  TransactionLogRecord r = TransactionRecord(m, 0);
  // The partition array is null (-1) in version 0.
  ASSERT_GE(r.value->size(), 21u);
  EXPECT_EQ(std::vector<uint8_t>(r.value->begin() + 17, r.value->begin() + 21),
            (std::vector<uint8_t>{0xFF, 0xFF, 0xFF, 0xFF}));
  auto back = DecodeTransactionRecord(r.key, std::span<const uint8_t>(*r.value));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_TRUE(back->metadata.has_value());
  EXPECT_EQ(*back->metadata, m);
}

TEST(TransactionLogTest, AnEmptyRecordListingPartitionsIsReadWithoutThem) {
  // Found by transaction_log_fuzzer: Kafka never writes such a record; read as Empty, it must
  // survive a round trip like every state it can be in.
  TransactionMetadata m = Ongoing();
  TransactionLogRecord r = TransactionRecord(m, 0);
  std::vector<uint8_t> value = *r.value;
  value[16] = static_cast<uint8_t>(TransactionState::kEmpty);
  auto back = DecodeTransactionRecord(r.key, std::span<const uint8_t>(value));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->metadata->state, TransactionState::kEmpty);
  EXPECT_TRUE(back->metadata->partitions.empty());
  TransactionLogRecord again = TransactionRecord(*back->metadata, 0);
  auto twice = DecodeTransactionRecord(again.key, std::span<const uint8_t>(*again.value));
  ASSERT_TRUE(twice.ok());
  EXPECT_EQ(*twice->metadata, *back->metadata);
}

TEST(TransactionLogTest, BothValueVersionsRoundTrip) {
  for (int16_t version : {0, 1}) {
    TransactionMetadata m = Ongoing();
    if (version == 1) {
      m.previous_producer_id = 6;
      m.next_producer_id = 9;
      m.client_transaction_version = 2;
    }
    TransactionLogRecord r = TransactionRecord(m, version);
    auto back = DecodeTransactionRecord(r.key, std::span<const uint8_t>(*r.value));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->transactional_id, "t1");
    ASSERT_TRUE(back->metadata.has_value());
    EXPECT_EQ(*back->metadata, m) << "version " << version;
  }
}

TEST(TransactionLogTest, TombstonesAndUnknownVersions) {
  TransactionLogRecord t = TransactionTombstone("gone");
  auto back = DecodeTransactionRecord(t.key, std::nullopt);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->transactional_id, "gone");
  EXPECT_FALSE(back->metadata.has_value());
  EXPECT_TRUE(back->skipped.empty());

  const std::vector<uint8_t> key1 = {0, 1, 0, 1, 'x'};
  auto skipped = DecodeTransactionRecord(key1, std::nullopt);
  ASSERT_TRUE(skipped.ok());
  EXPECT_NE(skipped->skipped.find("Unknown message key version 1"), std::string::npos);

  TransactionLogRecord r = TransactionRecord(Ongoing(), 0);
  std::vector<uint8_t> v9 = *r.value;
  v9[1] = 9;
  auto later = DecodeTransactionRecord(r.key, std::span<const uint8_t>(v9));
  ASSERT_TRUE(later.ok());
  EXPECT_NE(later->skipped.find("Unknown message value version 9"), std::string::npos);
}

TEST(TransactionLogTest, CorruptRecordsAreRefused) {
  TransactionLogRecord r = TransactionRecord(Ongoing(), 0);
  EXPECT_TRUE(
      DecodeTransactionRecord(std::vector<uint8_t>{0}, std::nullopt).status().IsCorruption());
  // A key whose string length lies.
  EXPECT_TRUE(DecodeTransactionRecord(std::vector<uint8_t>{0, 0, 0, 9, 'x'}, std::nullopt)
                  .status()
                  .IsCorruption());
  // Every truncation of the value.
  for (size_t n = 0; n < r.value->size(); ++n) {
    std::span<const uint8_t> cut(r.value->data(), n);
    EXPECT_FALSE(DecodeTransactionRecord(r.key, cut).ok()) << n;
  }
  // Trailing bytes, a state id that is never written (Dead), one that does not exist.
  std::vector<uint8_t> longer = *r.value;
  longer.push_back(0);
  EXPECT_FALSE(DecodeTransactionRecord(r.key, std::span<const uint8_t>(longer)).ok());
  for (uint8_t state : {6, 7, 8, 0xFF}) {
    std::vector<uint8_t> bad = *r.value;
    bad[16] = state;
    auto d = DecodeTransactionRecord(r.key, std::span<const uint8_t>(bad));
    EXPECT_TRUE(d.status().IsCorruption()) << int{state};
  }
}

TEST(TransactionLogTest, StateNames) {
  EXPECT_EQ(TransactionStateName(TransactionState::kPrepareCommit), "PrepareCommit");
  EXPECT_EQ(TransactionStateFromName("CompleteAbort"), TransactionState::kCompleteAbort);
  EXPECT_EQ(TransactionStateFromName("completeabort"), std::nullopt);
  EXPECT_EQ(TransactionStateFromId(8), std::nullopt);
}

}  // namespace
}  // namespace seglog
