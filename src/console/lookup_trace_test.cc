// Lookup traces against logs written here: every trace's answer is the log's own lookup, every
// probe reads the real index entry at its slot, and the walks are the batches on disk.
#include "console/lookup_trace.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>

#include "base/scheduler.h"
#include "log/log_cleaner_access.h"
#include "log/log_segment.h"
#include "manager/log_manager.h"
#include "seglog/record_batch.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using testing::TempDir;

constexpr int64_t kT0 = 1794024676000;

class LookupTraceTest : public ::testing::Test {
 protected:
  // A topic with one partition, `batches` batches of `per_batch` records each; record n has
  // timestamp kT0 + 10 * n, except that batch 7's records all go back in time by 5 s (a
  // producer's clock: timestamps need not grow with offsets).
  std::shared_ptr<Log> Write(std::map<std::string, std::string> topic_config, int batches,
                             int per_batch) {
    auto config = LogManagerConfig::FromProperties({{"log.dirs", dir_.path()}});
    EXPECT_TRUE(config.ok());
    scheduler_ = std::make_unique<MockScheduler>(kT0);
    auto m = LogManager::Open(*config, scheduler_.get(), Logger());
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    manager_ = std::move(m).value();
    EXPECT_TRUE(manager_->CreateTopic("orders", 1, topic_config).ok());
    auto log = manager_->GetLog({"orders", 0});
    EXPECT_TRUE(log.ok());
    const std::string value(60, 'v');
    for (int b = 0; b < batches; ++b) {
      RecordBatchBuilder builder{BatchOptions{}};
      for (int i = 0; i < per_batch; ++i) {
        const int n = b * per_batch + i;
        const std::string key = fmt::format("k-{:06d}", n);
        const int64_t ts = kT0 + 10 * n - (b == 7 ? 5000 : 0);
        EXPECT_TRUE(builder
                        .Append(ts, Bytes(reinterpret_cast<const uint8_t*>(key.data()), key.size()),
                                Bytes(reinterpret_cast<const uint8_t*>(value.data()), value.size()))
                        .ok());
      }
      auto batch = builder.Build();
      EXPECT_TRUE(batch.ok());
      EXPECT_TRUE((*log)->AppendAsLeader(*batch).ok());
    }
    return *log;
  }

  // Every probe and the result of `s` are the entries at their slots in `seg`'s index.
  static void CheckSearch(LogSegment& seg, const IndexSearch& s, bool time) {
    if (time) {
      TimeIndex* ti = *seg.time_index();
      for (const IndexProbe& p : s.probes) {
        const TimestampOffset e = ti->EntryAt(p.slot);
        EXPECT_EQ(p.key, e.timestamp);
        EXPECT_EQ(p.value, e.offset);
      }
    } else {
      OffsetIndex* oi = *seg.offset_index();
      for (const IndexProbe& p : s.probes) {
        const OffsetPosition e = oi->EntryAt(p.slot);
        EXPECT_EQ(p.key, e.offset);
        EXPECT_EQ(p.value, e.position);
      }
    }
    // A binary search: at most two first looks and log2(n) + 1 probes.
    EXPECT_LE(static_cast<double>(s.probes.size()),
              2 + std::ceil(std::log2(std::max(1, s.entries))) + 1);
  }

  std::shared_ptr<LogSegment> SegmentAt(Log& log, int64_t base) {
    for (const auto& s : LogCleanerAccess::Segments(log)) {
      if (s->base_offset() == base) return s;
    }
    ADD_FAILURE() << "no segment " << base;
    return nullptr;
  }

  TempDir dir_;
  std::unique_ptr<MockScheduler> scheduler_;
  std::unique_ptr<LogManager> manager_;
};

TEST_F(LookupTraceTest, EveryOffsetIsFoundWhereTheLogFindsItStepByStep) {
  std::shared_ptr<Log> log =
      Write({{"internal.segment.bytes", "3000"}, {"index.interval.bytes", "250"}}, 60, 3);
  ASSERT_GE(log->num_segments(), 5);
  const std::vector<int64_t> bases = log->segment_base_offsets();
  for (int64_t n = 0; n < log->log_end_offset(); ++n) {
    SCOPED_TRACE(n);
    auto t = TraceOffsetLookup(*log, n);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    auto want = log->LookupOffset(n);
    ASSERT_TRUE(want.ok() && want->has_value());
    ASSERT_TRUE(t->found.has_value()) << t->note;
    EXPECT_EQ(t->found->segment_base_offset, (*want)->segment_base_offset);
    EXPECT_EQ(t->found->position, (*want)->position);
    EXPECT_EQ(t->found->size, (*want)->size);
    EXPECT_EQ(t->found->base_offset, (*want)->base_offset);
    EXPECT_EQ(t->found->last_offset, (*want)->last_offset);
    // The floor lookup.
    EXPECT_EQ(t->segment_bases, bases);
    const int64_t floor = *(std::upper_bound(bases.begin(), bases.end(), n) - 1);
    EXPECT_EQ(t->floor_base_offset, floor);
    ASSERT_EQ(t->visits.size(), 1u);
    const SegmentVisit& v = t->visits[0];
    EXPECT_EQ(v.base_offset, floor);
    EXPECT_EQ(v.log_file, fmt::format("{:020d}.log", floor));
    EXPECT_EQ(v.offset_index.file, fmt::format("{:020d}.index", floor));
    std::shared_ptr<LogSegment> seg = SegmentAt(*log, floor);
    ASSERT_NE(seg, nullptr);
    CheckSearch(*seg, v.offset_index, false);
    // The search's answer is the index's own lookup.
    const OffsetPosition looked = (*seg->offset_index())->Lookup(n);
    EXPECT_EQ(v.offset_index.key, looked.offset);
    EXPECT_EQ(v.offset_index.value, looked.position);
    // The walk: from the entry's position, batch after batch, stopping at the batch with n.
    EXPECT_EQ(v.scan_from, looked.position);
    ASSERT_FALSE(v.scan.empty());
    EXPECT_EQ(v.scan.front().position, looked.position);
    for (size_t i = 0; i + 1 < v.scan.size(); ++i) {
      EXPECT_EQ(v.scan[i].position + v.scan[i].size, v.scan[i + 1].position);
      EXPECT_LT(v.scan[i].last_offset, n);
      EXPECT_FALSE(v.scan[i].match);
    }
    EXPECT_TRUE(v.scan.back().match);
    EXPECT_LE(v.scan.back().base_offset, n);
    EXPECT_GE(v.scan.back().last_offset, n);
  }
}

TEST_F(LookupTraceTest, OffsetsOutsideTheLogAreNotFoundAndSaySo) {
  std::shared_ptr<Log> log = Write({{"internal.segment.bytes", "3000"}}, 10, 3);
  for (int64_t n :
       {int64_t{-1}, log->log_end_offset(), log->log_end_offset() + 5, INT64_MAX, INT64_MIN}) {
    auto t = TraceOffsetLookup(*log, n);
    ASSERT_TRUE(t.ok());
    EXPECT_FALSE(t->found.has_value()) << n;
    EXPECT_TRUE(t->visits.empty());
    EXPECT_EQ(t->floor_base_offset, -1);
    EXPECT_NE(t->note.find("outside the log"), std::string::npos) << t->note;
  }
  // After retention moved the log start offset, offsets below it are outside too.
  ASSERT_TRUE(log->DeleteRecords(12).ok());
  auto t = TraceOffsetLookup(*log, 11);
  ASSERT_TRUE(t.ok());
  EXPECT_FALSE(t->found.has_value());
  EXPECT_EQ(t->log_start_offset, 12);
  t = TraceOffsetLookup(*log, 12);
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->found.has_value());
}

TEST_F(LookupTraceTest, TimestampsAreFoundAsListOffsetsFindsThemStepByStep) {
  std::shared_ptr<Log> log =
      Write({{"internal.segment.bytes", "3000"}, {"index.interval.bytes", "250"}}, 60, 3);
  ASSERT_GE(log->num_segments(), 5);
  std::vector<int64_t> targets = {0, kT0 - 100000, kT0, kT0 + 1, kT0 + 10 * 180 + 1000};
  for (int n = 0; n < 180; n += 7) targets.push_back(kT0 + 10 * n - 3);
  for (int n = 18; n < 27; ++n) targets.push_back(kT0 + 10 * n - 5000);  // batch 7's times
  for (int64_t ts : targets) {
    SCOPED_TRACE(ts);
    auto t = TraceTimestampLookup(*log, ts);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    auto want = log->FetchOffsetByTimestamp(ts);
    ASSERT_TRUE(want.ok());
    ASSERT_EQ(t->found.has_value(), want->has_value()) << t->note;
    if (!t->found) {
      EXPECT_FALSE(t->note.empty());
      continue;
    }
    EXPECT_EQ(t->found->offset, (*want)->offset);
    EXPECT_EQ(t->found->timestamp, (*want)->timestamp);
    // The segment checks: all too old but the last, which is chosen.
    ASSERT_FALSE(t->checks.empty());
    for (size_t i = 0; i + 1 < t->checks.size(); ++i) {
      EXPECT_LT(t->checks[i].largest_timestamp, ts);
      EXPECT_FALSE(t->checks[i].chosen);
    }
    EXPECT_TRUE(t->checks.back().chosen);
    EXPECT_GE(t->checks.back().largest_timestamp, ts);
    ASSERT_TRUE(t->visit.has_value());
    std::shared_ptr<LogSegment> seg = SegmentAt(*log, t->visit->base_offset);
    ASSERT_NE(seg, nullptr);
    ASSERT_TRUE(t->visit->time_index.has_value());
    CheckSearch(*seg, *t->visit->time_index, true);
    const TimestampOffset entry = (*seg->time_index())->Lookup(ts);
    EXPECT_EQ(t->visit->time_index->key, entry.timestamp);
    EXPECT_EQ(t->visit->time_index->value, entry.offset);
    EXPECT_EQ(t->offset_searched, std::max(entry.offset, log->log_start_offset()));
    CheckSearch(*seg, t->visit->offset_index, false);
    EXPECT_EQ(t->visit->offset_index.value,
              (*seg->offset_index())->Lookup(t->offset_searched).position);
    // The walk ends at the batch holding the answer, whose records were read up to it.
    ASSERT_FALSE(t->visit->scan.empty());
    const ScanStep& last = t->visit->scan.back();
    EXPECT_TRUE(last.match);
    EXPECT_GE(last.max_timestamp, ts);
    EXPECT_LE(last.base_offset, t->found->offset);
    EXPECT_GE(last.last_offset, t->found->offset);
    ASSERT_FALSE(t->records.empty());
    EXPECT_TRUE(t->records.back().match);
    EXPECT_EQ(t->records.back().offset, t->found->offset);
    for (size_t i = 0; i + 1 < t->records.size(); ++i) EXPECT_LT(t->records[i].timestamp, ts);
  }
}

TEST_F(LookupTraceTest, SpecialTimestampsAreRefused) {
  std::shared_ptr<Log> log = Write({}, 3, 3);
  for (int64_t ts : {kLatestTimestamp, kEarliestTimestamp, kMaxTimestamp, int64_t{-77}}) {
    auto t = TraceTimestampLookup(*log, ts);
    EXPECT_TRUE(t.status().IsInvalidArgument()) << ts;
  }
}

TEST_F(LookupTraceTest, ALargeIndexIsSearchedThroughItsWarmSectionAsKafkaDoes) {
  // index.interval.bytes=0: every batch but the first has an entry (the count starts at 0 and
  // must pass the interval); 2999 entries are 24 KB of .index, so the warm section (the last
  // 8 KiB, 1024 entries) is searched apart from the rest.
  std::shared_ptr<Log> log = Write({{"index.interval.bytes", "0"}}, 3000, 1);
  ASSERT_EQ(log->num_segments(), 1);
  std::shared_ptr<LogSegment> seg = SegmentAt(*log, 0);
  ASSERT_EQ((*seg->offset_index())->entries(), 2999);
  bool saw_cold = false, saw_warm = false;
  for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{500}, int64_t{1974}, int64_t{1975},
                    int64_t{1976}, int64_t{2500}, int64_t{2999}}) {
    SCOPED_TRACE(n);
    auto t = TraceOffsetLookup(*log, n);
    ASSERT_TRUE(t.ok());
    const IndexSearch& s = t->visits.at(0).offset_index;
    EXPECT_EQ(s.entries, 2999);
    EXPECT_EQ(s.warm_first_slot, 2999 - 1 - 1024);
    ASSERT_FALSE(s.probes.empty());
    EXPECT_EQ(s.probes[0].phase, "warm-check");
    EXPECT_EQ(s.probes[0].slot, s.warm_first_slot);
    (s.probes.size() > 1 && s.probes[1].phase == "first-check" ? saw_cold : saw_warm) = true;
    CheckSearch(*seg, s, false);
    EXPECT_EQ(s.key, n);  // every batch is indexed: the entry is the offset itself (0: none)
    EXPECT_EQ(s.slot, n - 1);
    EXPECT_EQ(t->visits[0].scan.size(), 1u);
    EXPECT_EQ(t->found->base_offset, n);
  }
  EXPECT_TRUE(saw_cold);
  EXPECT_TRUE(saw_warm);
}

TEST_F(LookupTraceTest, LongWalksAreBoundedAndCounted) {
  // No index entries at all beyond the first batch's (a huge index.interval.bytes): the walk to
  // the last offset reads every batch header; the trace keeps kMaxScanSteps of them.
  std::shared_ptr<Log> log = Write({{"index.interval.bytes", "100000000"}}, 300, 1);
  auto t = TraceOffsetLookup(*log, 299);
  ASSERT_TRUE(t.ok());
  const SegmentVisit& v = t->visits.at(0);
  EXPECT_EQ(v.offset_index.slot, -1);
  EXPECT_EQ(v.scan_from, 0);
  EXPECT_EQ(static_cast<int>(v.scan.size()), kMaxScanSteps);
  EXPECT_EQ(v.scan_omitted, 300 - kMaxScanSteps);
  EXPECT_EQ(v.scan.front().base_offset, 0);
  EXPECT_TRUE(v.scan.back().match);
  EXPECT_EQ(v.scan.back().base_offset, 299);
}

}  // namespace
}  // namespace seglog
