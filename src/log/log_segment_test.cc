#include "log/log_segment.h"

#include <gtest/gtest.h>

#include "io/file_names.h"
#include "tests/support/batches.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using testing::FileSize;
using testing::ProducerBatch;
using testing::TempDir;

constexpr int64_t kT0 = 1700000000000;

// A batch of `n` records at `base` with all timestamps = ts.
std::vector<uint8_t> Batch(int64_t base, int n, int64_t ts, int value_size = 100) {
  BatchOptions o;
  o.base_offset = base;
  RecordBatchBuilder b(o);
  std::string v(static_cast<size_t>(value_size), 'x');
  for (int i = 0; i < n; ++i) {
    (void)b.Append(ts, std::nullopt, Bytes(reinterpret_cast<const uint8_t*>(v.data()), v.size()));
  }
  return *b.Build();
}

class LogSegmentTest : public ::testing::Test {
 protected:
  std::shared_ptr<LogSegment> Make(int64_t base, SegmentOptions o = {}) {
    if (o.env == nullptr) o.env = Env::Default();
    auto s = LogSegment::Open(tmp_.path(), base, o, false, kT0);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return *s;
  }
  RollParams Params(int64_t size, int64_t ts, int64_t offset) {
    RollParams p;
    p.max_segment_bytes = 10000;
    p.max_segment_ms = 1000;
    p.messages_size = size;
    p.max_timestamp_in_messages = ts;
    p.max_offset_in_messages = offset;
    p.now_ms = kT0;
    return p;
  }
  TempDir tmp_;
};

TEST_F(LogSegmentTest, NoIndexFilesUntilUsed) {
  auto seg = Make(100);
  EXPECT_TRUE(FileExists(LogFilePath(tmp_.path(), 100)));
  EXPECT_FALSE(FileExists(OffsetIndexFilePath(tmp_.path(), 100)));
  EXPECT_FALSE(seg->indexes_loaded());
  ASSERT_TRUE(seg->ShouldRoll(Params(10, kT0, 100)).ok());  // the roll check opens them
  EXPECT_TRUE(FileExists(OffsetIndexFilePath(tmp_.path(), 100)));
}

TEST_F(LogSegmentTest, RollsOnSize) {
  auto seg = Make(0);
  auto b = Batch(0, 10, kT0);
  ASSERT_TRUE(seg->Append(9, b).ok());
  const int64_t size = seg->size();
  RollParams p = Params(0, kT0, 10);
  p.max_segment_bytes = size + 100;
  p.messages_size = 100;  // exactly fills: size > max - messages is false
  EXPECT_FALSE(*seg->ShouldRoll(p));
  p.messages_size = 101;
  EXPECT_TRUE(*seg->ShouldRoll(p));
}

TEST_F(LogSegmentTest, RollsOnRecordTimeNotWallClockAndHonoursJitter) {
  SegmentOptions o;
  o.roll_jitter_ms = 100;
  auto seg = Make(0, o);
  // Empty: never rolls on time, whatever the clock says.
  RollParams p = Params(10, kT0 + 1000000, 0);
  p.now_ms = kT0 + 1000000;
  EXPECT_FALSE(*seg->ShouldRoll(p));
  ASSERT_TRUE(seg->Append(0, Batch(0, 1, kT0)).ok());
  // First batch at kT0: rolls once a batch's max timestamp is > kT0 + (1000 - 100).
  EXPECT_FALSE(*seg->ShouldRoll(Params(10, kT0 + 900, 1)));
  EXPECT_TRUE(*seg->ShouldRoll(Params(10, kT0 + 901, 1)));
}

TEST_F(LogSegmentTest, RollsWhenAnIndexIsFullOrOffsetsOverflow) {
  SegmentOptions o;
  o.index_interval_bytes = 0;  // every batch but the first gets an entry
  o.max_index_size = 36;       // offset index 4 slots; time index 3 slots, full at 2
  auto seg = Make(0, o);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(seg->Append(i, Batch(i, 1, kT0 + i)).ok());
  }
  EXPECT_EQ((*seg->time_index())->entries(), 2);
  EXPECT_TRUE(*seg->ShouldRoll(Params(10, kT0 + 3, 3)));  // time index full (reserved slot)
  auto seg2 = Make(1000);
  EXPECT_FALSE(*seg2->ShouldRoll(Params(10, kT0, 1000LL + INT32_MAX)));
  EXPECT_TRUE(*seg2->ShouldRoll(Params(10, kT0, 1000LL + INT32_MAX + 1)));  // relative overflow
  EXPECT_FALSE(seg2->Append(1000LL + INT32_MAX + 1, Batch(1000, 1, kT0)).ok());
}

TEST_F(LogSegmentTest, ReadTranslatesAndRespectsLimits) {
  auto seg = Make(50);
  std::vector<int64_t> starts;
  for (int i = 0; i < 5; ++i) {
    starts.push_back(seg->size());
    ASSERT_TRUE(seg->Append(50 + i * 10 + 9, Batch(50 + i * 10, 10, kT0 + i)).ok());
  }
  const int32_t batch_size = static_cast<int32_t>(starts[1]);
  auto r = seg->Read(75, 1, seg->size(), /*min_one_message=*/true);
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->first_batch.base_offset, 70);  // whole batch containing 75
  EXPECT_EQ((*r)->slice.position, starts[2]);
  EXPECT_EQ((*r)->slice.length, batch_size);  // at least one message
  EXPECT_FALSE((*r)->first_entry_incomplete);
  auto r2 = seg->Read(75, 10, seg->size(), false);
  EXPECT_EQ((*r2)->slice.length, 10);  // may cut a batch, as on the wire
  EXPECT_TRUE((*r2)->first_entry_incomplete);
  auto r3 = seg->Read(75, 1 << 20, starts[4], false);
  EXPECT_EQ((*r3)->slice.length, starts[4] - starts[2]);              // bounded by max position
  EXPECT_FALSE(seg->Read(100, 100, seg->size(), true)->has_value());  // past the end
  EXPECT_FALSE(seg->Read(75, -1, seg->size(), true).ok());
  auto bytes = (*r)->slice.ReadAll();
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(RecordBatchView::Parse(*bytes)->base_offset(), 70);
  EXPECT_EQ(*seg->ReadNextOffset(), 100);
}

TEST_F(LogSegmentTest, FindOffsetByTimestamp) {
  auto seg = Make(0);
  // Three batches; the middle one has an older timestamp than the first.
  ASSERT_TRUE(seg->Append(9, Batch(0, 10, kT0 + 100)).ok());
  ASSERT_TRUE(seg->Append(19, Batch(10, 10, kT0 + 50)).ok());
  ASSERT_TRUE(seg->Append(29, Batch(20, 10, kT0 + 200)).ok());
  auto at = [&](int64_t ts, int64_t start = 0) { return *seg->FindOffsetByTimestamp(ts, start); };
  EXPECT_EQ(at(kT0)->offset, 0);
  EXPECT_EQ(at(kT0 + 100)->offset, 0);
  EXPECT_EQ(at(kT0 + 101)->offset, 20);
  EXPECT_EQ(at(kT0 + 101)->timestamp, kT0 + 200);
  EXPECT_EQ(at(kT0, 15)->offset, 15);  // offset >= starting offset
  EXPECT_EQ(at(kT0 + 60, 15)->offset, 20);
  EXPECT_FALSE(at(kT0 + 201).has_value());
  EXPECT_EQ((*seg->MaxTimestampAndOffsetSoFar()), (TimestampOffset{kT0 + 200, 29}));
  EXPECT_EQ(*seg->LargestTimestamp(), kT0 + 200);
}

TEST_F(LogSegmentTest, PreallocatedLogIsTrimmedWhenInactive) {
  SegmentOptions o;
  o.preallocate = true;
  o.segment_bytes = 1 << 20;
  auto seg = Make(0, o);
  EXPECT_EQ(FileSize(LogFilePath(tmp_.path(), 0)), 1 << 20);
  EXPECT_EQ(seg->size(), 0);
  ASSERT_TRUE(seg->Append(9, Batch(0, 10, kT0)).ok());
  ASSERT_TRUE(seg->OnBecomeInactiveSegment().ok());
  EXPECT_EQ(FileSize(LogFilePath(tmp_.path(), 0)), seg->size());
}

}  // namespace
}  // namespace seglog
