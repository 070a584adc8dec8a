#include "record/compression.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace seglog {
namespace {

using ::testing::HasSubstr;

const CompressionType kCodecs[] = {CompressionType::kGzip, CompressionType::kSnappy,
                                   CompressionType::kLz4, CompressionType::kZstd};

std::vector<uint8_t> Sample(size_t n, uint32_t seed) {
  // Compressible but not trivial: words from a small vocabulary plus random bytes.
  std::mt19937 rng(seed);
  std::vector<uint8_t> out;
  const char* words[] = {"kafka ", "segment ", "offset ", "index ", "batch ", "record "};
  while (out.size() < n) {
    if (rng() % 4 == 0) {
      out.push_back(static_cast<uint8_t>(rng()));
    } else {
      const char* w = words[rng() % 6];
      out.insert(out.end(), w, w + std::strlen(w));
    }
  }
  out.resize(n);
  return out;
}

TEST(CompressionTest, RoundTripsEveryCodecAndSize) {
  for (CompressionType c : kCodecs) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{100}, size_t{32 * 1024}, size_t{64 * 1024 + 1},
                     size_t{300000}}) {
      auto in = Sample(n, static_cast<uint32_t>(n));
      std::vector<uint8_t> z, back;
      ASSERT_TRUE(Compress(c, std::nullopt, in, &z).ok());
      Status s = Decompress(c, z, 1 << 20, &back);
      ASSERT_TRUE(s.ok()) << CompressionName(c) << " " << n << ": " << s.ToString();
      EXPECT_EQ(back, in) << CompressionName(c) << " " << n;
    }
  }
}

TEST(CompressionTest, KafkaFramings) {
  auto in = Sample(100000, 3);
  std::vector<uint8_t> z;
  ASSERT_TRUE(Lz4Compress(9, in, &z).ok());
  EXPECT_EQ(std::vector<uint8_t>(z.begin(), z.begin() + 7),
            (std::vector<uint8_t>{0x04, 0x22, 0x4D, 0x18, 0x60, 0x40, 0x82}));
  EXPECT_EQ(std::vector<uint8_t>(z.end() - 4, z.end()), (std::vector<uint8_t>(4, 0)));
  z.clear();
  ASSERT_TRUE(SnappyCompress(in, &z).ok());
  EXPECT_EQ(std::vector<uint8_t>(z.begin(), z.begin() + 16),
            (std::vector<uint8_t>{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1}));
  z.clear();
  ASSERT_TRUE(GzipCompress(6, in, &z).ok());
  EXPECT_EQ(z[0], 0x1f);
  EXPECT_EQ(z[1], 0x8b);
  z.clear();
  ASSERT_TRUE(ZstdCompress(3, in, &z).ok());
  EXPECT_EQ(z[0], 0x28);  // zstd magic 0xFD2FB528, little-endian
  EXPECT_EQ(z[3], 0xFD);
}

TEST(CompressionTest, IncompressibleLz4BlocksAreStoredRaw) {
  std::mt19937 rng(9);
  std::vector<uint8_t> noise(70000);
  for (auto& b : noise) b = static_cast<uint8_t>(rng());
  std::vector<uint8_t> z, back;
  ASSERT_TRUE(Lz4Compress(9, noise, &z).ok());
  // First block: 64 KiB stored uncompressed, so its size word has the high bit set.
  EXPECT_EQ(z[7 + 3] & 0x80, 0x80);
  ASSERT_TRUE(Lz4Decompress(z, 1 << 20, &back).ok());
  EXPECT_EQ(back, noise);
}

TEST(CompressionTest, LimitStopsDecompressionBombs) {
  std::vector<uint8_t> zeros(4 << 20, 0);
  for (CompressionType c : kCodecs) {
    std::vector<uint8_t> z, back;
    ASSERT_TRUE(Compress(c, std::nullopt, zeros, &z).ok());
    Status s = Decompress(c, z, 1 << 20, &back);
    EXPECT_TRUE(s.IsCorruption()) << CompressionName(c);
    EXPECT_THAT(s.ToString(), HasSubstr("exceeds the limit")) << CompressionName(c);
    // Exactly at the limit is fine.
    ASSERT_TRUE(Decompress(c, z, zeros.size(), &back).ok()) << CompressionName(c);
    EXPECT_EQ(back.size(), zeros.size());
  }
}

TEST(CompressionTest, TruncationAtEveryByteIsAnErrorNeverACrash) {
  auto in = Sample(5000, 5);
  for (CompressionType c : kCodecs) {
    std::vector<uint8_t> z;
    ASSERT_TRUE(Compress(c, std::nullopt, in, &z).ok());
    for (size_t n = 0; n < z.size(); ++n) {
      std::vector<uint8_t> cut(z.begin(), z.begin() + static_cast<ptrdiff_t>(n)), back;
      Status s = Decompress(c, cut, 1 << 20, &back);
      // gzip, lz4 and zstd streams have an end (trailer, end mark, last-block flag): a cut is
      // always an error. snappy-java's framing has none, so a cut exactly between chunks is a
      // shorter valid stream; the batch's record count catches that one (corruption_test.cc).
      if (s.ok()) {
        ASSERT_EQ(c, CompressionType::kSnappy) << "cut at " << n;
        ASSERT_LE(back.size(), in.size());
        EXPECT_TRUE(std::equal(back.begin(), back.end(), in.begin())) << "cut at " << n;
        EXPECT_EQ(back.size() % (32 * 1024), 0u) << "cut at " << n;
      } else {
        EXPECT_TRUE(s.IsCorruption()) << s.ToString();
      }
    }
  }
}

TEST(CompressionTest, AReusedOutputBufferHoldsExactlyTheNewStream) {
  // Decompressors overwrite a reused buffer instead of clearing it (no zero-fill per batch): the
  // result must still be exactly the new stream, after a larger one, after a failure, and
  // after a stream cut short (zstd keeps one context per thread: a failed frame must not leak
  // into the next call).
  for (CompressionType c : kCodecs) {
    auto big = Sample(300000, 11), small = Sample(777, 12);
    std::vector<uint8_t> zbig, zsmall, back(5, 0xEE);
    ASSERT_TRUE(Compress(c, std::nullopt, big, &zbig).ok());
    ASSERT_TRUE(Compress(c, std::nullopt, small, &zsmall).ok());
    ASSERT_TRUE(Decompress(c, zbig, 1 << 20, &back).ok()) << CompressionName(c);
    EXPECT_EQ(back, big) << CompressionName(c);
    ASSERT_TRUE(Decompress(c, zsmall, 1 << 20, &back).ok()) << CompressionName(c);
    EXPECT_EQ(back, small) << CompressionName(c);
    EXPECT_TRUE(Decompress(c, zbig, 1000, &back).IsCorruption()) << CompressionName(c);
    std::vector<uint8_t> cut(zbig.begin(), zbig.begin() + static_cast<ptrdiff_t>(zbig.size() / 2));
    (void)Decompress(c, cut, 1 << 20, &back);
    ASSERT_TRUE(Decompress(c, zsmall, 1 << 20, &back).ok()) << CompressionName(c);
    EXPECT_EQ(back, small) << CompressionName(c);
  }
}

TEST(CompressionTest, LevelsFollowKafka) {
  EXPECT_TRUE(ValidateCompressionLevel(CompressionType::kGzip, 9).ok());
  EXPECT_FALSE(ValidateCompressionLevel(CompressionType::kGzip, 10).ok());
  EXPECT_TRUE(ValidateCompressionLevel(CompressionType::kLz4, 17).ok());
  EXPECT_FALSE(ValidateCompressionLevel(CompressionType::kLz4, 0).ok());
  EXPECT_TRUE(ValidateCompressionLevel(CompressionType::kZstd, -5).ok());
  EXPECT_FALSE(ValidateCompressionLevel(CompressionType::kZstd, 23).ok());
  EXPECT_FALSE(ValidateCompressionLevel(CompressionType::kSnappy, 1).ok());
  auto in = Sample(50000, 11);
  for (int level : {1, 9, 17}) {
    std::vector<uint8_t> z, back;
    ASSERT_TRUE(Lz4Compress(level, in, &z).ok());
    ASSERT_TRUE(Lz4Decompress(z, 1 << 20, &back).ok());
    EXPECT_EQ(back, in);
  }
}

TEST(CompressionTest, SnappyAcceptsRawBlockAndRepeatedHeader) {
  auto in = Sample(40000, 13);
  std::vector<uint8_t> framed, back;
  ASSERT_TRUE(SnappyCompress(in, &framed).ok());
  // Two concatenated streams decode to the concatenation.
  std::vector<uint8_t> twice = framed;
  twice.insert(twice.end(), framed.begin(), framed.end());
  ASSERT_TRUE(SnappyDecompress(twice, 1 << 20, &back).ok());
  ASSERT_EQ(back.size(), in.size() * 2);
  // A lying chunk length is corruption, not an over-read.
  std::vector<uint8_t> lying = framed;
  lying[16] = 0x7f;
  EXPECT_THAT(SnappyDecompress(lying, 1 << 20, &back).ToString(), HasSubstr("chunk length"));
}

TEST(CompressionTest, GzipReadsConcatenatedMembers) {
  auto a = Sample(1000, 1), b = Sample(2000, 2);
  std::vector<uint8_t> z, back;
  ASSERT_TRUE(GzipCompress(6, a, &z).ok());
  ASSERT_TRUE(GzipCompress(1, b, &z).ok());
  ASSERT_TRUE(GzipDecompress(z, 1 << 20, &back).ok());
  std::vector<uint8_t> both = a;
  both.insert(both.end(), b.begin(), b.end());
  EXPECT_EQ(back, both);
}

}  // namespace
}  // namespace seglog
