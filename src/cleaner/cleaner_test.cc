// The cleaner against the seeds' compaction examples.
#include "cleaner/cleaner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <filesystem>

#include "base/coding.h"
#include "io/file_names.h"
#include "tests/support/batches.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using testing::FileSize;
using ::testing::HasSubstr;
using testing::TempDir;

struct Kv {
  std::string key;
  std::optional<std::string> value;  // nullopt: a tombstone
};

std::vector<uint8_t> Batch(const std::vector<Kv>& records, int64_t timestamp) {
  RecordBatchBuilder b{BatchOptions{}};
  for (const Kv& r : records) {
    NullableBytes value;
    if (r.value) value = Bytes(reinterpret_cast<const uint8_t*>(r.value->data()), r.value->size());
    EXPECT_TRUE(b.Append(timestamp,
                         Bytes(reinterpret_cast<const uint8_t*>(r.key.data()), r.key.size()), value)
                    .ok());
  }
  return *b.Build();
}

// (offset, key, value or "null") of every record, in order.
std::vector<std::string> Records(Log* log) {
  std::vector<std::string> out;
  Status s = testing::ForEachBatch(log, [&](const RecordBatchView& v, Bytes) {
    RecordIterator it(v);
    while (it.Next()) {
      const Record& r = it.record();
      auto text = [](const NullableBytes& b) {
        return b ? std::string(reinterpret_cast<const char*>(b->data()), b->size()) : "null";
      };
      out.push_back(fmt::format("{} {} {}", r.offset, text(r.key), text(r.value)));
    }
  });
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

class CleanerTest : public ::testing::Test {
 protected:
  std::unique_ptr<Log> Open(std::map<std::string, std::string> configs) {
    configs["cleanup.policy"] = "compact";
    auto c = LogConfig::FromProperties(configs);
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    LogOptions o;
    o.clock = [this] { return now_; };
    auto log = Log::Open(tmp_.path() + "/cmp-0", *c, o);
    EXPECT_TRUE(log.ok()) << log.status().ToString();
    return std::move(log).value();
  }
  Result<Cleaner::Result_> CleanOnce(Log* log, std::optional<int64_t> dirty = std::nullopt) {
    auto range = CleanableRange(*log, dirty, now_);
    if (!range.ok()) return range.status();
    Cleaner cleaner(0, &map_, [this](const std::string& l) { lines_.push_back(l); });
    return cleaner.Clean(*log, "cmp-0", *range, now_);
  }
  TempDir tmp_;
  int64_t now_ = 1794024829000;  // Example 3 ran on 2026-11-07
  SkimpyOffsetMap map_{24 * 1024, 0.9};
  std::vector<std::string> lines_;
};

// seed 000, Example 3: three keys written three times, then a tombstone for user2, in one
// batch as the console producer sends them; segment.ms=5000 rolls the segment on the next
// record six seconds later.
TEST_F(CleanerTest, ExampleThreeKeepsOffsetsSixEightAndNine) {
  auto log = Open({{"segment.ms", "5000"}, {"min.cleanable.dirty.ratio", "0.01"}});
  ASSERT_TRUE(log->AppendAsLeader(Batch({{"user1", "a1"},
                                         {"user2", "b1"},
                                         {"user3", "c1"},
                                         {"user1", "a2"},
                                         {"user2", "b2"},
                                         {"user3", "c2"},
                                         {"user1", "a3"},
                                         {"user2", "b3"},
                                         {"user3", "c3"},
                                         {"user2", std::nullopt}},
                                        now_))
                  .ok());
  EXPECT_EQ(FileSize(LogFilePath(log->dir(), 0)), 199);  // as the seed's segment 0
  now_ += 6000;
  ASSERT_TRUE(log->AppendAsLeader(Batch({{"user4", "d1"}}, now_)).ok());
  ASSERT_EQ(log->segment_base_offsets(), (std::vector<int64_t>{0, 10}));

  auto range = CleanableRange(*log, std::nullopt, now_);
  ASSERT_TRUE(range.ok());
  EXPECT_EQ(range->first_dirty_offset, 0);
  EXPECT_EQ(range->first_uncleanable_offset, 10);
  EXPECT_TRUE(range->Eligible(0.01));
  auto r = CleanOnce(log.get());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->end_offset, 10);  // the checkpoint then holds "cmp 0 10"
  EXPECT_EQ(Records(log.get()),
            (std::vector<std::string>{"6 user1 a3", "8 user3 c3", "9 user2 null", "10 user4 d1"}));
  // The swap left the live names only, and the size the seed's broker printed (the batch now
  // carries the tombstone's delete horizon as its base timestamp).
  EXPECT_EQ(FileSize(LogFilePath(log->dir(), 0)), 110);
  for (const auto& e : std::filesystem::directory_iterator(log->dir())) {
    const std::string n = e.path().filename().string();
    EXPECT_EQ(n.find(".cleaned"), std::string::npos) << n;
    EXPECT_EQ(n.find(".swap"), std::string::npos) << n;
  }
  EXPECT_THAT(lines_.front(), HasSubstr("Cleaner 0: Beginning cleaning of log cmp-0"));
  EXPECT_EQ(lines_[1],
            "Cleaner 0: Building offset map for log cmp-0 for 1 segments in offset range [0, 10).");
  // A second pass with nothing new changes nothing.
  auto again = CleanOnce(log.get(), 10);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(Records(log.get()).size(), 4u);
  // Reopened, it reads the same.
  ASSERT_TRUE(log->Close().ok());
  log = Open({{"segment.ms", "5000"}});
  EXPECT_EQ(Records(log.get()).size(), 4u);
}

// seed 003: one partition before and after a pass - one record per key, at its own offset.
TEST_F(CleanerTest, SeedThreeBeforeAndAfter) {
  auto log = Open({});
  const std::vector<Kv> writes = {{"c-7", "Oslo"},  {"c-2", "Lima"},  {"c-7", "Bergen"},
                                  {"c-9", "Quito"}, {"c-2", "Cusco"}, {"c-7", "Tromso"},
                                  {"c-4", "Pune"},  {"c-9", "Loja"}};
  for (const Kv& w : writes) ASSERT_TRUE(log->AppendAsLeader(Batch({w}, now_)).ok());
  ASSERT_TRUE(log->Roll().ok());
  auto r = CleanOnce(log.get());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Records(log.get()),
            (std::vector<std::string>{"4 c-2 Cusco", "5 c-7 Tromso", "6 c-4 Pune", "7 c-9 Loja"}));
  // A reader asking for offset 1 is handed the record at 4.
  auto read = log->Read(1, 1 << 20);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->first_batch.base_offset, 4);
}

// seed 003's tombstone timeline, on a fake clock (delete.retention.ms = 24 h).
TEST_F(CleanerTest, SeedThreeTombstoneSurvivesTheFirstCleaningAndGoesAfterTheHorizon) {
  constexpr int64_t kHour = 3600 * 1000;
  const int64_t mon_10 = 1795651200000 - 3 * 24 * kHour + 10 * kHour;  // Mon 2026-11-23 10:00
  now_ = mon_10;
  auto log = Open({});
  ASSERT_TRUE(log->AppendAsLeader(Batch({{"c-7", "Oslo"}}, now_)).ok());        // 0
  ASSERT_TRUE(log->AppendAsLeader(Batch({{"c-1", "Rome"}}, now_)).ok());        // 1
  ASSERT_TRUE(log->AppendAsLeader(Batch({{"c-7", "Bergen"}}, now_)).ok());      // 2
  ASSERT_TRUE(log->AppendAsLeader(Batch({{"c-3", "Lyon"}}, now_)).ok());        // 3
  ASSERT_TRUE(log->AppendAsLeader(Batch({{"c-5", "Kiev"}}, now_)).ok());        // 4
  ASSERT_TRUE(log->AppendAsLeader(Batch({{"c-7", "Tromso"}}, now_)).ok());      // 5
  ASSERT_TRUE(log->AppendAsLeader(Batch({{"c-7", std::nullopt}}, now_)).ok());  // 6: tombstone
  now_ = mon_10 + 16 * kHour;  // Tue 02:00: the segment rolls
  ASSERT_TRUE(log->Roll().ok());
  ASSERT_TRUE(log->AppendAsLeader(Batch({{"c-8", "Nice"}}, now_)).ok());  // 7, active
  now_ = mon_10 + 17 * kHour;  // Tue 03:00: a pass drops 0, 2 and 5, keeps and stamps 6
  auto first = CleanOnce(log.get());
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(Records(log.get()), (std::vector<std::string>{"1 c-1 Rome", "3 c-3 Lyon", "4 c-5 Kiev",
                                                          "6 c-7 null", "7 c-8 Nice"}));
  bool stamped = false;
  ASSERT_TRUE(testing::ForEachBatch(log.get(), [&](const RecordBatchView& v, Bytes) {
                if (v.base_offset() == 6) stamped = v.delete_horizon_ms() == now_ + 24 * kHour;
              }).ok());
  EXPECT_TRUE(stamped);
  // More writes make the log dirty again; a pass before the horizon keeps the tombstone ...
  ASSERT_TRUE(log->Roll().ok());
  ASSERT_TRUE(log->AppendAsLeader(Batch({{"c-9", "Oslo"}}, now_)).ok());
  now_ = mon_10 + 40 * kHour;  // Wed 02:00
  ASSERT_TRUE(CleanOnce(log.get(), first->end_offset).ok());
  EXPECT_THAT(Records(log.get()), ::testing::Contains("6 c-7 null"));
  // ... and the first pass after it (Wed 03:05) removes it: nothing for c-7 remains.
  ASSERT_TRUE(log->Roll().ok());
  ASSERT_TRUE(log->AppendAsLeader(Batch({{"c-6", "Pisa"}}, now_)).ok());
  now_ = mon_10 + 41 * kHour + 5 * 60000;
  ASSERT_TRUE(CleanOnce(log.get(), 8).ok());
  for (const std::string& r : Records(log.get())) EXPECT_EQ(r.find("c-7"), std::string::npos) << r;
}

// A map that fills cleans only up to where it got, as Kafka's; the rest waits for next time.
TEST_F(CleanerTest, AFullMapCleansOnlyUpToWhereItGot) {
  SkimpyOffsetMap small(24 * 10, 0.5);  // room for 5 keys
  auto log = Open({});
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(log->AppendAsLeader(Batch({{fmt::format("k{}", i % 10), "v"}}, now_)).ok());
  }
  ASSERT_TRUE(log->Roll().ok());
  auto range = CleanableRange(*log, std::nullopt, now_);
  ASSERT_TRUE(range.ok());
  Cleaner cleaner(0, &small);
  auto r = cleaner.Clean(*log, "cmp-0", *range, now_);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->end_offset, 5);  // k0..k4 mapped at 0..4; k5 would be the 6th key
  EXPECT_DOUBLE_EQ(r->stats.map_utilization, 0.5);
  // Offsets 0..4 are each their key's latest within the map's range: all records stay (later
  // duplicates beyond the map are kept too).
  EXPECT_EQ(Records(log.get()).size(), 20u);
}

// Records without a key cannot be compacted: they are dropped and counted.
TEST_F(CleanerTest, SmallSegmentsAreCleanedInGroupsThatFitASegment) {
  // 12 segments of one distinct-key batch each (77 bytes): nothing to drop, so the cleaning
  // only regroups them. Groups fill up to segment.bytes (240 here, 3 batches) in order, as
  // Kafka's groupSegmentsBySize does; every record survives at its offset.
  auto log = Open({{"internal.segment.bytes", "240"}, {"min.cleanable.dirty.ratio", "0.01"}});
  std::vector<std::string> want;
  for (int i = 0; i < 12; ++i) {
    const std::string key = fmt::format("key-{:02d}", i), value = fmt::format("v{:02d}", i);
    ASSERT_TRUE(log->AppendAsLeader(Batch({{key, value}}, now_)).ok());
    want.push_back(fmt::format("{} {} {}", i, key, value));
    ASSERT_TRUE(log->Roll().ok());
  }
  ASSERT_EQ(log->segment_base_offsets().size(), 13u);  // 12 full ones and the empty active one
  const int64_t batch_size = FileSize(LogFilePath(log->dir(), 0));
  ASSERT_GT(batch_size * 3, 0);
  ASSERT_LE(batch_size * 3, 240);
  ASSERT_GT(batch_size * 4, 240);
  auto r = CleanOnce(log.get());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Records(log.get()), want);
  EXPECT_EQ(log->segment_base_offsets(), (std::vector<int64_t>{0, 3, 6, 9, 12}));
  for (int64_t base : {0, 3, 6, 9}) {
    EXPECT_EQ(FileSize(LogFilePath(log->dir(), base)), 3 * batch_size) << base;
  }
}

TEST_F(CleanerTest, KeylessRecordsAreDroppedAndCounted) {
  auto log = Open({});
  RecordBatchBuilder b{BatchOptions{}};
  ASSERT_TRUE(b.Append(now_, std::nullopt, Bytes(reinterpret_cast<const uint8_t*>("x"), 1)).ok());
  // Appended with assigned offsets, as a replica would (the leader refuses keyless records on
  // a compacted topic).
  ASSERT_TRUE(log->AppendWithAssignedOffsets(*b.Build()).ok());
  std::vector<uint8_t> keyed = Batch({{"k", "v"}}, now_);
  StoreBE64(keyed.data(), 1);
  ASSERT_TRUE(log->AppendWithAssignedOffsets(keyed).ok());
  ASSERT_TRUE(log->Roll().ok());
  auto r = CleanOnce(log.get());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->stats.invalid_messages, 1);
  EXPECT_EQ(Records(log.get()), (std::vector<std::string>{"1 k v"}));
}

// An idempotent producer's last batch keeps its place (an empty 61-byte batch) even when
// cleaning empties it, so the producer's sequence survives - unless the producer expired
// (producer.id.expiration.ms after its last batch), as Kafka's active-producer rule.
TEST_F(CleanerTest, LastBatchOfAnActiveProducerStaysAsAnEmptyBatch) {
  auto log = Open({});
  auto producer_batch = [&](int64_t pid, int64_t ts, const std::vector<Kv>& records) {
    BatchOptions o;
    o.producer_id = pid;
    o.producer_epoch = 0;
    o.base_sequence = 0;
    RecordBatchBuilder b(o);
    for (const Kv& r : records) {
      EXPECT_TRUE(
          b.Append(ts, Bytes(reinterpret_cast<const uint8_t*>(r.key.data()), r.key.size()),
                   Bytes(reinterpret_cast<const uint8_t*>(r.value->data()), r.value->size()))
              .ok());
    }
    return *b.Build();
  };
  const int64_t old = now_ - 2 * 86400000;
  // Producer 7 (expired: its last batch is two days old) and producer 8 (active) each write
  // k once; a later write of k by a plain client makes both records obsolete.
  ASSERT_TRUE(log->AppendWithAssignedOffsets(producer_batch(7, old, {{"k", "a"}})).ok());
  auto b8 = producer_batch(8, now_, {{"k", "b"}});
  StoreBE64(b8.data(), 1);
  ASSERT_TRUE(log->AppendWithAssignedOffsets(b8).ok());
  auto plain = Batch({{"k", "c"}}, now_);
  StoreBE64(plain.data(), 2);
  ASSERT_TRUE(log->AppendWithAssignedOffsets(plain).ok());
  ASSERT_TRUE(log->Roll().ok());
  ASSERT_TRUE(log->AppendAsLeader(Batch({{"z", "tail"}}, now_)).ok());
  ASSERT_TRUE(log->Roll().ok());
  ASSERT_TRUE(CleanOnce(log.get()).ok());
  std::vector<std::string> batches;
  ASSERT_TRUE(testing::ForEachBatch(log.get(), [&](const RecordBatchView& v, Bytes b) {
                batches.push_back(fmt::format("{}..{} pid {} records {} size {} base ts {}",
                                              v.base_offset(), v.last_offset(), v.producer_id(),
                                              v.records_count(), b.size(), v.base_timestamp()));
              }).ok());
  EXPECT_EQ(batches, (std::vector<std::string>{
                         "1..1 pid 8 records 0 size 61 base ts -1",  // as writeEmptyHeader
                         "2..2 pid -1 records 1 size " + std::to_string(plain.size()) +
                             " base ts " + std::to_string(now_),
                         fmt::format("3..3 pid -1 records 1 size {} base ts {}",
                                     Batch({{"z", "tail"}}, now_).size(), now_)}));
}

// log.cleaner.io.max.bytes.per.second paces a round: the sleeps add up to the bytes moved
// over the rate.
TEST_F(CleanerTest, IoLimitSleepsToTheRate) {
  auto log = Open({});
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(
        log->AppendAsLeader(Batch({{fmt::format("k{}", i % 5), std::string(1000, 'v')}}, now_))
            .ok());
  }
  ASSERT_TRUE(log->Roll().ok());
  auto range = CleanableRange(*log, std::nullopt, now_);
  ASSERT_TRUE(range.ok());
  Cleaner cleaner(0, &map_);
  int64_t slept = 0;
  cleaner.SetIoLimit(100000, [&](int64_t ms) { slept += ms; });  // 100 kB/s
  auto r = cleaner.Clean(*log, "cmp-0", *range, now_);
  ASSERT_TRUE(r.ok());
  const int64_t io = r->stats.map_bytes_read + r->stats.bytes_read + r->stats.bytes_written;
  EXPECT_GT(io, 100000);
  // Sleeps make up the time the bytes are due at 100 kB/s (less what the work itself took).
  EXPECT_LE(slept, io * 1000 / 100000);
  EXPECT_GE(slept, io * 1000 / 100000 - static_cast<int64_t>(r->stats.total_seconds * 1000) - 1);
}

// Every crash point of the swap protocol (docs/design/cleaner.md, "The swap and its crash
// points") reopens to the records before the cleaning or those after it - never a mix, never a
// loss.
TEST_F(CleanerTest, EveryCrashPointOfTheSwapRecovers) {
  namespace fs = std::filesystem;
  auto log = Open({});
  for (int i = 0; i < 30; ++i) {
    ASSERT_TRUE(
        log->AppendAsLeader(Batch({{fmt::format("k{}", i % 7), fmt::format("v{}", i)}}, now_))
            .ok());
  }
  ASSERT_TRUE(log->Roll().ok());
  ASSERT_TRUE(log->AppendAsLeader(Batch({{"tail", "t"}}, now_)).ok());
  const auto before = Records(log.get());
  const std::string dir = log->dir();
  ASSERT_TRUE(log->Close().ok());
  log.reset();
  const std::string pre = tmp_.path() + "/pre";
  fs::copy(dir, pre, fs::copy_options::recursive);
  log = Open({});
  ASSERT_TRUE(CleanOnce(log.get()).ok());
  const auto after = Records(log.get());
  ASSERT_LT(after.size(), before.size());
  ASSERT_TRUE(log->Close().ok());
  log.reset();
  const std::string post = tmp_.path() + "/post";
  fs::copy(dir, post, fs::copy_options::recursive);
  const std::vector<std::string> seg0 = {"00000000000000000000.log", "00000000000000000000.index",
                                         "00000000000000000000.timeindex"};
  auto with_suffix = [&](const std::string& d, const std::string& from_dir, const char* suffix) {
    for (const std::string& f : seg0) {
      if (fs::exists(from_dir + "/" + f)) fs::copy_file(from_dir + "/" + f, d + "/" + f + suffix);
    }
  };
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"crash while writing .cleaned: deleted, the originals stand", before},
      {"renamed .cleaned -> .swap, originals live: the swap is completed", after},
      {"originals renamed .deleted, .swap not yet renamed: completed", after},
      {"done, .deleted files not yet removed: removed", after},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    // The files as the crash left them.
    fs::remove_all(dir);
    fs::copy(pre, dir, fs::copy_options::recursive);
    if (i == 0) with_suffix(dir, post, ".cleaned");
    if (i == 1 || i == 2) with_suffix(dir, post, ".swap");
    if (i == 2 || i == 3) {
      for (const std::string& f : seg0) fs::rename(dir + "/" + f, dir + "/" + f + ".deleted");
    }
    if (i == 3) {
      for (const std::string& f : seg0) {
        if (fs::exists(post + "/" + f)) fs::copy_file(post + "/" + f, dir + "/" + f);
      }
    }
    LogOptions o;
    o.had_clean_shutdown = false;
    auto c = LogConfig::FromProperties({{"cleanup.policy", "compact"}});
    auto reopened = Log::Open(dir, *c, o);
    ASSERT_TRUE(reopened.ok()) << cases[i].first << ": " << reopened.status().ToString();
    EXPECT_EQ(Records(reopened->get()), cases[i].second) << cases[i].first;
    for (const auto& e : fs::directory_iterator(dir)) {
      const std::string n = e.path().filename().string();
      EXPECT_TRUE(n.find(".cleaned") == std::string::npos && n.find(".swap") == std::string::npos &&
                  n.find(".deleted") == std::string::npos)
          << cases[i].first << ": " << n;
    }
  }
}

}  // namespace
}  // namespace seglog
