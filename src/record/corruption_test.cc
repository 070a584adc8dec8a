// Every single-bit flip and every truncation of real batches (Kafka's golden vectors, one per
// codec, and batches of ours) must end in a clean Corruption status, never a crash or an
// over-read; the asan-ubsan build runs this too.
//
// Kafka's format protects bytes [16, end) (magic and the CRC-covered part; a flipped CRC byte
// mismatches). Bytes [0, 16) - base offset, length, partition leader epoch - have no checksum
// in Kafka's format: a flipped base offset or epoch bit is undetectable by any reader, and a
// flipped length bit either points past the buffer or cuts the CRC-covered range. The test
// checks exactly that.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "record/batch_walker.h"
#include "seglog/record_batch.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using testing::ReadFileBytes;
using testing::SourcePath;

Status ReadAll(std::span<const uint8_t> bytes) {
  auto view = RecordBatchView::Parse(bytes);
  if (!view.ok()) return view.status();
  if (view->size_in_bytes() != bytes.size()) {
    return Status::Corruption("batch shorter than its bytes");
  }
  SEGLOG_RETURN_IF_ERROR(view->ValidateDeep());
  RecordIterator it(*view);
  while (it.Next()) {
  }
  return it.status();
}

const char* kVectors[] = {
    "batches/none_smallkey_smallval_hdr.bin",
    "batches/gzip_smallkey_smallval_hdr.bin",
    "batches/snappy_smallkey_smallval_hdr.bin",
    "batches/lz4_smallkey_smallval_hdr.bin",
    "batches/zstd_smallkey_smallval_hdr.bin",
    "batches/none_control_commit.bin",
    "batches/zstd_many_records.bin",
    "batches/gzip_multi_ts.bin",
};

TEST(CorruptionTest, EverySingleBitFlipIsDetectedWhereTheFormatCanDetectIt) {
  for (const char* name : kVectors) {
    auto original = ReadFileBytes(SourcePath(std::string("tests/data/golden/") + name));
    ASSERT_GT(original.size(), 61u) << name;
    ASSERT_TRUE(ReadAll(original).ok()) << name;
    const size_t limit = std::min<size_t>(original.size(), 4096);
    for (size_t byte = 0; byte < limit; ++byte) {
      for (int bit = 0; bit < 8; ++bit) {
        auto x = original;
        x[byte] ^= static_cast<uint8_t>(1u << bit);
        Status s = ReadAll(x);
        if (byte >= 16 || (byte >= 8 && byte < 12)) {
          EXPECT_TRUE(s.IsCorruption())
              << name << " byte " << byte << " bit " << bit << ": " << s.ToString();
        } else {
          // Base offset or leader epoch: not covered by Kafka's CRC; decodes with the new value.
          EXPECT_TRUE(s.ok()) << name << " byte " << byte << ": " << s.ToString();
        }
      }
    }
  }
}

TEST(CorruptionTest, EveryTruncationIsDetected) {
  for (const char* name : kVectors) {
    auto original = ReadFileBytes(SourcePath(std::string("tests/data/golden/") + name));
    for (size_t n = 0; n < original.size(); ++n) {
      // Copy into an exact-size buffer so ASan catches any read past the cut.
      std::vector<uint8_t> cut(original.begin(), original.begin() + static_cast<ptrdiff_t>(n));
      Status s = ReadAll(cut);
      EXPECT_TRUE(s.IsCorruption()) << name << " cut at " << n;
      LogBatchWalker w(cut);
      EXPECT_FALSE(w.Next()) << name << " cut at " << n;  // partial batch: silently nothing
      EXPECT_TRUE(w.status().ok());
    }
  }
}

// Inputs the fuzzer once crashed on (tests/data/fuzz_regressions), run through the same parsers
// as fuzz/record_batch_fuzzer.cc; under the asan-ubsan preset any undefined behaviour aborts.
TEST(CorruptionTest, FuzzRegressionsParseWithoutUndefinedBehaviour) {
  int files = 0;
  for (const auto& e :
       std::filesystem::directory_iterator(SourcePath("tests/data/fuzz_regressions"))) {
    auto bytes = ReadFileBytes(e.path().string());
    ReadOptions options;
    options.max_decompressed_bytes = 1 << 20;
    LogBatchWalker walker(bytes);
    while (walker.Next()) {
      auto view = RecordBatchView::Parse(walker.current_bytes(), walker.current().position);
      if (!view.ok()) continue;
      (void)view->ValidateDeep(options);
      RecordIterator it(*view, options);
      while (it.Next()) {
      }
      (void)view->last_offset();
      (void)view->next_offset();
    }
    if (auto view = RecordBatchView::Parse(bytes); view.ok()) {
      RecordIterator it(*view, options);
      while (it.Next()) {
      }
    }
    ++files;
  }
  EXPECT_GE(files, 1);
}

}  // namespace
}  // namespace seglog
