#include "log/file_batch_walker.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <random>
#include <vector>

#include "base/coding.h"
#include "io/file.h"
#include "tests/support/batches.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kT0 = 1700000000000;

using testing::WalkFile;

class FileBatchWalkerTest : public ::testing::Test {
 protected:
  // Batches of varied sizes, with their offsets assigned, written one after another.
  void WriteBatches(int n) {
    std::mt19937 rng(7);
    auto f = File::Open(tmp_.path() + "/00000000000000000000.log", File::Mode::kCreate);
    ASSERT_TRUE(f.ok());
    file_ = std::move(f).value();
    int64_t offset = 0;
    for (int i = 0; i < n; ++i) {
      const int count = 1 + static_cast<int>(rng() % 5);
      auto b = testing::ProducerBatch(0, count, static_cast<int>(rng() % 700), kT0);
      StoreBE64(b.data(), static_cast<uint64_t>(offset));  // base offset: outside the CRC
      offset += count;
      ASSERT_TRUE(file_->WriteAt(size_, b).ok());
      size_ += static_cast<int64_t>(b.size());
    }
  }
  testing::TempDir tmp_;
  std::unique_ptr<File> file_;
  int64_t size_ = 0;
};

TEST_F(FileBatchWalkerTest, ReadAheadSeesTheSameBatchesAsThePlainWalk) {
  WriteBatches(200);
  Status plain_status;
  const auto plain = WalkFile(*file_, size_, 0, &plain_status);
  ASSERT_TRUE(plain_status.ok()) << plain_status.ToString();
  ASSERT_EQ(plain.size(), 200u);
  // Windows smaller than most batches (each must then grow to hold one), about a batch, and
  // larger than the file.
  for (int64_t read_ahead : {int64_t{1}, int64_t{100}, int64_t{777}, int64_t{4096}, size_ * 2}) {
    Status s;
    const auto seen = WalkFile(*file_, size_, read_ahead, &s);
    ASSERT_TRUE(s.ok()) << read_ahead << ": " << s.ToString();
    EXPECT_EQ(seen, plain) << "read-ahead " << read_ahead;
  }
}

TEST_F(FileBatchWalkerTest, ReadAheadEndsSilentlyAtAPartialBatchAndReportsALyingLength) {
  WriteBatches(30);
  Status s;
  const auto all = WalkFile(*file_, size_, 0, &s);
  ASSERT_EQ(all.size(), 30u);
  // A cut inside the last batch: the walk ends before it, without an error.
  const int64_t cut = all.back().position + 30;
  for (int64_t read_ahead : {int64_t{64}, int64_t{1 << 20}}) {
    const auto seen = WalkFile(*file_, cut, read_ahead, &s);
    EXPECT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(seen.size(), 29u);
  }
  // A length field below the minimum in batch 10: an error naming the file and position.
  const int64_t at = all[10].position;
  uint8_t bad[4];
  StoreBE32(bad, 3);
  ASSERT_TRUE(file_->WriteAt(at + 8, bad).ok());
  for (int64_t read_ahead : {int64_t{64}, int64_t{1 << 20}}) {
    const auto seen = WalkFile(*file_, size_, read_ahead, &s);
    EXPECT_EQ(seen.size(), 10u);
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_THAT(s.ToString(), HasSubstr(fmt::format("batch at position {}", at)));
    EXPECT_THAT(s.ToString(), HasSubstr("00000000000000000000.log"));
  }
  // A length that points past the end of the file: a partial batch, so the end.
  StoreBE32(bad, 1 << 30);
  ASSERT_TRUE(file_->WriteAt(at + 8, bad).ok());
  const auto seen = WalkFile(*file_, size_, 4096, &s);
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(seen.size(), 10u);
}

}  // namespace
}  // namespace seglog
