// Tests of the legacy (magic 0 and 1) reader against Kafka 4.4.0's own golden vectors
// (tests/data/golden, cases v0_* and v1_*), plus corruption: every single-bit flip and every
// truncation of a few vectors, lying inner sizes, nested compression and the offset rules of
// compressed v1 wrappers.
#include "record/legacy_record_batch.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/coding.h"
#include "base/crc32c.h"
#include "record/batch_walker.h"
#include "record/compression.h"
#include "tests/support/bytes.h"
#include "tests/support/files.h"
#include "tests/support/golden.h"

namespace seglog {
namespace {

namespace ll = legacy_layout;
using nlohmann::json;
using testing::AsBytes;
using testing::Base64Decode;
using testing::ReadFileBytes;
using testing::SourcePath;

const json& Manifest() { return testing::GoldenManifest(); }

const json* FindCase(const std::string& name) {
  for (const json& c : Manifest()) {
    if (c["name"] == name) return &c;
  }
  return nullptr;
}

std::vector<uint8_t> CaseBytes(const json& c) {
  return ReadFileBytes(SourcePath("tests/data/golden/" + c["file"].get<std::string>()));
}

using testing::ExpectBytesEq;

// Everything a reader checks: structure, CRC, then every record.
Status DecodeEntry(Bytes bytes, int* records = nullptr) {
  auto view = LegacyRecordBatchView::Parse(bytes);
  if (!view.ok()) return view.status();
  SEGLOG_RETURN_IF_ERROR(view->ValidateCrc());
  LegacyRecordIterator it(*view);
  int n = 0;
  while (it.Next()) ++n;
  if (records != nullptr) *records = n;
  return it.status();
}

// Writes one legacy entry with a correct CRC.
std::vector<uint8_t> MakeEntry(int64_t offset, int8_t magic, int8_t attributes, int64_t timestamp,
                               NullableBytes key, NullableBytes value) {
  std::vector<uint8_t> out(ll::kLogOverhead + ll::kCrcLength);
  StoreBE64(out.data(), static_cast<uint64_t>(offset));
  out.push_back(static_cast<uint8_t>(magic));
  out.push_back(static_cast<uint8_t>(attributes));
  auto put32 = [&out](int32_t v) {
    uint8_t b[4];
    StoreBE32(b, static_cast<uint32_t>(v));
    out.insert(out.end(), b, b + 4);
  };
  if (magic == kMagicV1) {
    uint8_t b[8];
    StoreBE64(b, static_cast<uint64_t>(timestamp));
    out.insert(out.end(), b, b + 8);
  }
  for (const NullableBytes& field : {key, value}) {
    if (!field) {
      put32(-1);
    } else {
      put32(static_cast<int32_t>(field->size()));
      out.insert(out.end(), field->begin(), field->end());
    }
  }
  StoreBE32(out.data() + ll::kSizeOffset, static_cast<uint32_t>(out.size() - ll::kLogOverhead));
  StoreBE32(out.data() + ll::kCrcOffset, Crc32Ieee(Bytes(out).subspan(ll::kMagicOffset)));
  return out;
}

// A compressed wrapper around `inner` (already-encoded inner entries); magic 1 only, since our
// lz4 writer produces the standard header checksum.
std::vector<uint8_t> MakeWrapper(int64_t offset, CompressionType codec, bool log_append_time,
                                 int64_t timestamp, Bytes inner) {
  std::vector<uint8_t> compressed;
  EXPECT_TRUE(Compress(codec, std::nullopt, inner, &compressed).ok());
  const int8_t attributes =
      static_cast<int8_t>(static_cast<int>(codec) | (log_append_time ? ll::kTimestampTypeMask : 0));
  return MakeEntry(offset, kMagicV1, attributes, timestamp, std::nullopt, Bytes(compressed));
}

std::vector<uint8_t> Concat(std::initializer_list<std::vector<uint8_t>> parts) {
  std::vector<uint8_t> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

TEST(LegacyRecordBatchTest, GoldenEntriesDecodeToKafkasRecords) {
  int cases = 0, entries = 0, records = 0;
  for (const json& c : Manifest()) {
    const std::string name = c["name"];
    if (name.rfind("v0_", 0) != 0 && name.rfind("v1_", 0) != 0) continue;
    ++cases;
    SCOPED_TRACE(name);
    auto bytes = CaseBytes(c);
    ASSERT_FALSE(bytes.empty());
    LogBatchWalker walker(bytes);
    size_t i = 0;
    while (walker.Next()) {
      ASSERT_LT(i, c["batches"].size());
      const json& jb = c["batches"][i];
      SCOPED_TRACE("entry " + std::to_string(i));
      auto view = LegacyRecordBatchView::Parse(walker.current_bytes(), walker.current().position);
      ASSERT_TRUE(view.ok()) << view.status().ToString();
      EXPECT_EQ(view->magic(), jb["magic"].get<int>());
      EXPECT_EQ(view->magic(), walker.current().magic);
      EXPECT_TRUE(view->IsValid());
      EXPECT_TRUE(view->ValidateCrc().ok()) << view->ValidateCrc().ToString();
      EXPECT_EQ(view->stored_crc(), jb["crc"].get<uint32_t>());
      EXPECT_EQ(view->ComputeCrc(), jb["crc"].get<uint32_t>());
      EXPECT_EQ(view->size_in_bytes(), jb["sizeInBytes"].get<size_t>());
      EXPECT_EQ(view->last_offset(), jb["lastOffset"].get<int64_t>());
      EXPECT_EQ(view->max_timestamp(), jb["maxTimestamp"].get<int64_t>());
      ASSERT_TRUE(view->compression().ok());
      EXPECT_EQ(CompressionName(*view->compression()), jb["compression"].get<std::string>());
      EXPECT_EQ(TimestampTypeName(view->timestamp_type()), jb["timestampType"].get<std::string>());
      if (view->magic() == kMagicV0 && *view->compression() == CompressionType::kLz4) {
        // Kafka's magic-0 lz4 quirk: header checksum over the frame magic too (0x1A, not 0x82).
        ASSERT_TRUE(view->value().has_value());
        ASSERT_GE(view->value()->size(), 7u);
        EXPECT_EQ((*view->value())[6], 0x1A);
        std::vector<uint8_t> out;
        EXPECT_TRUE(
            Decompress(CompressionType::kLz4, *view->value(), 1 << 20, &out).IsCorruption());
      }

      LegacyRecordIterator it(*view);
      const json& recs = jb["records"];
      size_t r = 0;
      while (it.Next()) {
        ASSERT_LT(r, recs.size());
        const Record& rec = it.record();
        const json& jr = recs[r];
        const std::string rctx = "record " + std::to_string(r);
        if (r == 0) {
          EXPECT_EQ(rec.offset, jb["baseOffset"].get<int64_t>()) << rctx;
        }
        EXPECT_EQ(rec.offset, jr["offset"].get<int64_t>()) << rctx;
        EXPECT_EQ(rec.timestamp, jr["timestamp"].get<int64_t>()) << rctx;
        EXPECT_EQ(rec.sequence, jr["sequence"].get<int32_t>()) << rctx;
        EXPECT_EQ(rec.sequence, kNoSequence);
        EXPECT_TRUE(rec.headers.empty()) << rctx;
        EXPECT_EQ(jr["headers"].size(), 0u) << rctx;
        EXPECT_EQ(rec.attributes & ll::kCompressionCodecMask, 0) << rctx;
        EXPECT_EQ(TimestampTypeName(it.timestamp_type()), jb["timestampType"].get<std::string>());
        EXPECT_TRUE(it.inner_entry().IsValid()) << rctx;
        ExpectBytesEq(rec.key, jr["key"], rctx + " key");
        ExpectBytesEq(rec.value, jr["value"], rctx + " value");
        ++r;
        ++records;
      }
      ASSERT_TRUE(it.status().ok()) << it.status().ToString();
      EXPECT_EQ(r, recs.size());
      EXPECT_EQ(static_cast<int>(r), jb["recordCount"].get<int>());
      EXPECT_EQ(it.count(), jb["recordCount"].get<int>());
      ++entries;
      ++i;
    }
    EXPECT_TRUE(walker.status().ok());
    EXPECT_EQ(walker.trailing_bytes(), 0u);
    EXPECT_EQ(i, c["batches"].size());
  }
  EXPECT_EQ(cases, 16);
  EXPECT_GT(entries, 16);
  EXPECT_GT(records, 40);
}

TEST(LegacyRecordBatchTest, DocumentedVectorsParse) {
  // docs/format/record_batch.md 10.7 (computed from the layout).
  const std::vector<uint8_t> v1 = {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                   0x00, 0x00, 0x18, 0x39, 0x26, 0x8c, 0x33, 0x01, 0x00,
                                   0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00, 0x00,
                                   0x00, 0x00, 0x01, 0x6b, 0x00, 0x00, 0x00, 0x01, 0x76};
  const std::vector<uint8_t> v0 = {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                   0x00, 0x10, 0x1f, 0xec, 0xd7, 0x0a, 0x00, 0x00, 0x00, 0x00,
                                   0x00, 0x01, 0x6b, 0x00, 0x00, 0x00, 0x01, 0x76};
  auto a = LegacyRecordBatchView::Parse(v1);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->stored_crc(), 0x39268C33u);
  EXPECT_TRUE(a->IsValid());
  EXPECT_EQ(a->timestamp(), 1700000000000);
  EXPECT_EQ(a->timestamp_type(), TimestampType::kCreateTime);
  auto b = LegacyRecordBatchView::Parse(v0);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->stored_crc(), 0x1FECD70Au);
  EXPECT_TRUE(b->IsValid());
  EXPECT_EQ(b->timestamp(), kNoTimestamp);
  EXPECT_EQ(b->timestamp_type(), TimestampType::kNoTimestampType);
  EXPECT_EQ(MakeEntry(0, kMagicV1, 0, 1700000000000, AsBytes("k"), AsBytes("v")), v1);
  EXPECT_EQ(MakeEntry(0, kMagicV0, 0, kNoTimestamp, AsBytes("k"), AsBytes("v")), v0);
}

// The first entry of each listed case: one uncompressed message, or the whole wrapper.
const char* const kFlipCases[] = {"v0_none", "v0_gzip", "v0_snappy", "v0_lz4",
                                  "v1_none", "v1_gzip", "v1_snappy", "v1_lz4"};

std::vector<uint8_t> FirstEntry(const std::string& name) {
  const json* c = FindCase(name);
  EXPECT_NE(c, nullptr) << name;
  if (c == nullptr) return {};
  auto bytes = CaseBytes(*c);
  LogBatchWalker walker(bytes);
  EXPECT_TRUE(walker.Next()) << name;
  auto entry = walker.current_bytes();
  return std::vector<uint8_t>(entry.begin(), entry.end());
}

TEST(LegacyRecordBatchTest, EverySingleBitFlipIsCorruption) {
  for (const char* name : kFlipCases) {
    SCOPED_TRACE(name);
    const std::vector<uint8_t> entry = FirstEntry(name);
    ASSERT_GT(entry.size(), ll::kLogOverhead);
    ASSERT_TRUE(DecodeEntry(entry).ok());
    for (size_t i = ll::kLogOverhead; i < entry.size(); ++i) {
      for (int bit = 0; bit < 8; ++bit) {
        std::vector<uint8_t> bad = entry;
        bad[i] ^= static_cast<uint8_t>(1u << bit);
        Status s = DecodeEntry(bad);
        ASSERT_TRUE(s.IsCorruption()) << "byte " << i << " bit " << bit << ": " << s.ToString();
        // Decoding without the CRC check must fail cleanly or succeed, never crash.
        auto view = LegacyRecordBatchView::Parse(bad);
        if (view.ok()) {
          LegacyRecordIterator it(*view);
          while (it.Next()) {
          }
          EXPECT_TRUE(it.status().ok() || it.status().IsCorruption()) << it.status().ToString();
        } else {
          EXPECT_TRUE(view.status().IsCorruption());
        }
      }
    }
  }
}

TEST(LegacyRecordBatchTest, EveryTruncationIsCorruption) {
  for (const char* name : kFlipCases) {
    SCOPED_TRACE(name);
    const std::vector<uint8_t> entry = FirstEntry(name);
    for (size_t n = 0; n < entry.size(); ++n) {
      Status s = DecodeEntry(Bytes(entry).first(n));
      ASSERT_TRUE(s.IsCorruption()) << "truncated to " << n << ": " << s.ToString();
    }
  }
}

// Truncates a wrapper's compressed value, then fixes the size and CRC so that only the
// decompressor and the inner-entry walk can notice.
TEST(LegacyRecordBatchTest, EveryTruncatedCompressedValueIsCorruption) {
  for (const char* name : kFlipCases) {
    const std::vector<uint8_t> entry = FirstEntry(name);
    auto view = LegacyRecordBatchView::Parse(entry);
    ASSERT_TRUE(view.ok());
    if (!view->is_compressed()) continue;
    SCOPED_TRACE(name);
    const Bytes value = *view->value();
    const size_t value_at = static_cast<size_t>(value.data() - entry.data());
    for (size_t n = 0; n < value.size(); ++n) {
      std::vector<uint8_t> bad(entry.begin(), entry.begin() + static_cast<ptrdiff_t>(value_at));
      bad.insert(bad.end(), value.begin(), value.begin() + static_cast<ptrdiff_t>(n));
      StoreBE32(bad.data() + value_at - 4, static_cast<uint32_t>(n));
      StoreBE32(bad.data() + ll::kSizeOffset, static_cast<uint32_t>(bad.size() - ll::kLogOverhead));
      StoreBE32(bad.data() + ll::kCrcOffset, Crc32Ieee(Bytes(bad).subspan(ll::kMagicOffset)));
      Status s = DecodeEntry(bad);
      ASSERT_TRUE(s.IsCorruption()) << "value truncated to " << n << ": " << s.ToString();
    }
  }
}

TEST(LegacyRecordBatchTest, LyingInnerSizeIsCorruption) {
  const auto m0 = MakeEntry(0, kMagicV1, 0, 1000, AsBytes("k0"), AsBytes("v0"));
  const auto m1 = MakeEntry(1, kMagicV1, 0, 1001, std::nullopt, AsBytes("value 1"));
  const auto m2 = MakeEntry(2, kMagicV1, 0, 1002, AsBytes("k2"), std::nullopt);
  const std::vector<uint8_t> inner = Concat({m0, m1, m2});
  const size_t m1_at = m0.size(), m2_at = m0.size() + m1.size();
  for (CompressionType codec :
       {CompressionType::kGzip, CompressionType::kSnappy, CompressionType::kLz4}) {
    SCOPED_TRACE(std::string(CompressionName(codec)));
    int n = 0;
    ASSERT_TRUE(DecodeEntry(MakeWrapper(2, codec, false, 1002, inner), &n).ok());
    EXPECT_EQ(n, 3);
    struct Lie {
      size_t at;
      int64_t delta;  // added to the size field; or, with `absolute`, the new size
      bool absolute;
    };
    const Lie lies[] = {
        {0, 1, false},     {0, -1, false},     {m1_at, 1, false},    {m1_at, -1, false},
        {m2_at, 1, false}, {m2_at, -1, false}, {m2_at, 1000, false}, {0, 0x7fffffff, true},
        {0, -1, true},     {0, 0, true},       {m2_at, 13, true},    {m1_at, 21, true},
    };
    for (const Lie& lie : lies) {
      std::vector<uint8_t> bad = inner;
      const int32_t size = LoadBEInt32(bad.data() + lie.at + ll::kSizeOffset);
      const int64_t lied = lie.absolute ? lie.delta : size + lie.delta;
      StoreBE32(bad.data() + lie.at + ll::kSizeOffset, static_cast<uint32_t>(lied));
      const auto wrapper = MakeWrapper(2, codec, false, 1002, bad);
      auto view = LegacyRecordBatchView::Parse(wrapper);
      ASSERT_TRUE(view.ok());
      ASSERT_TRUE(view->IsValid());
      LegacyRecordIterator it(*view);
      EXPECT_FALSE(it.Next());
      EXPECT_TRUE(it.status().IsCorruption())
          << "inner size at " << lie.at << " set to " << lied << ": " << it.status().ToString();
      if (lie.at == m2_at && !lie.absolute && lie.delta == 1) {
        EXPECT_EQ(it.status().message(),
                  fmt::format("batch at position 0, inner message 2 at decompressed byte {}: size: "
                              "expected <= {} (the bytes available after the prefix), found {}",
                              m2_at, m2.size() - ll::kLogOverhead, lied));
      }
    }
  }
}

TEST(LegacyRecordBatchTest, TrailingBytesAfterInnerEntriesAreCorruption) {
  const auto m0 = MakeEntry(0, kMagicV1, 0, 1000, AsBytes("k"), AsBytes("v"));
  for (size_t extra = 1; extra <= 20; ++extra) {
    std::vector<uint8_t> inner = m0;
    inner.resize(inner.size() + extra, 0);
    LegacyRecordIterator it(
        *LegacyRecordBatchView::Parse(MakeWrapper(0, CompressionType::kGzip, false, 1000, inner)));
    EXPECT_FALSE(it.Next());
    EXPECT_TRUE(it.status().IsCorruption()) << extra;
  }
}

TEST(LegacyRecordBatchTest, NestedCompressionIsCorruption) {
  const auto leaf = MakeEntry(0, kMagicV1, 0, 1000, AsBytes("k"), AsBytes("v"));
  const auto nested = MakeWrapper(0, CompressionType::kGzip, false, 1000, leaf);
  const auto outer = MakeWrapper(1, CompressionType::kGzip, false, 1000, Concat({leaf, nested}));
  LegacyRecordIterator it(*LegacyRecordBatchView::Parse(outer));
  EXPECT_FALSE(it.Next());
  ASSERT_TRUE(it.status().IsCorruption());
  EXPECT_NE(it.status().message().find("inner message 1"), std::string_view::npos)
      << it.status().ToString();
  EXPECT_NE(it.status().message().find("must not be compressed"), std::string_view::npos);
}

TEST(LegacyRecordBatchTest, V1WrapperOffsetRules) {
  const auto inner = Concat({MakeEntry(0, kMagicV1, 0, 10, AsBytes("a"), AsBytes("1")),
                             MakeEntry(1, kMagicV1, 0, 30, AsBytes("b"), AsBytes("2")),
                             MakeEntry(2, kMagicV1, 0, 20, AsBytes("c"), AsBytes("3"))});
  auto offsets = [&](int64_t wrapper_offset, Status* status) {
    const auto w = MakeWrapper(wrapper_offset, CompressionType::kSnappy, false, 30, inner);
    LegacyRecordIterator it(*LegacyRecordBatchView::Parse(w));
    std::vector<int64_t> out;
    while (it.Next()) out.push_back(it.record().offset);
    *status = it.status();
    return out;
  };
  Status s;
  EXPECT_EQ(offsets(1002, &s), (std::vector<int64_t>{1000, 1001, 1002}));
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(offsets(2, &s), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_TRUE(s.ok());
  // Wrapper offset 0 (some librdkafka versions): inner offsets taken as they are.
  EXPECT_EQ(offsets(0, &s), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_TRUE(s.ok());
  // Below the last relative offset and not 0: invalid (Kafka: InvalidRecordException).
  EXPECT_TRUE(offsets(1, &s).empty());
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_TRUE(offsets(-5, &s).empty());
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();

  // Relative offsets that overflow int64 when made absolute.
  const auto big = Concat({MakeEntry(INT64_MAX, kMagicV1, 0, 1, AsBytes("a"), AsBytes("1")),
                           MakeEntry(0, kMagicV1, 0, 1, AsBytes("b"), AsBytes("2"))});
  LegacyRecordIterator it(
      *LegacyRecordBatchView::Parse(MakeWrapper(10, CompressionType::kGzip, false, 1, big)));
  EXPECT_FALSE(it.Next());
  EXPECT_TRUE(it.status().IsCorruption()) << it.status().ToString();
}

TEST(LegacyRecordBatchTest, V1TimestampsFollowTheWrapperType) {
  const auto inner = Concat({MakeEntry(0, kMagicV1, 0, 10, AsBytes("a"), AsBytes("1")),
                             MakeEntry(1, kMagicV1, 0, 30, AsBytes("b"), AsBytes("2")),
                             MakeEntry(2, kMagicV0, 0, kNoTimestamp, AsBytes("c"), AsBytes("3"))});
  for (bool log_append : {false, true}) {
    const auto w = MakeWrapper(2, CompressionType::kLz4, log_append, 99, inner);
    LegacyRecordIterator it(*LegacyRecordBatchView::Parse(w));
    std::vector<int64_t> ts;
    std::vector<TimestampType> types;
    while (it.Next()) {
      ts.push_back(it.record().timestamp);
      types.push_back(it.timestamp_type());
    }
    ASSERT_TRUE(it.status().ok()) << it.status().ToString();
    const TimestampType wrapper_type =
        log_append ? TimestampType::kLogAppendTime : TimestampType::kCreateTime;
    if (log_append) {
      EXPECT_EQ(ts, (std::vector<int64_t>{99, 99, kNoTimestamp}));
    } else {
      EXPECT_EQ(ts, (std::vector<int64_t>{10, 30, kNoTimestamp}));
    }
    EXPECT_EQ(types, (std::vector<TimestampType>{wrapper_type, wrapper_type,
                                                 TimestampType::kNoTimestampType}));
  }
}

TEST(LegacyRecordBatchTest, InvalidWrappersAreCorruption) {
  auto iterate = [](const std::vector<uint8_t>& entry) {
    auto view = LegacyRecordBatchView::Parse(entry);
    EXPECT_TRUE(view.ok()) << view.status().ToString();
    LegacyRecordIterator it(*view);
    EXPECT_FALSE(it.Next());
    return it.status();
  };
  // Null wrapper value.
  Status s = iterate(MakeEntry(0, kMagicV1, 1, 0, std::nullopt, std::nullopt));
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  // Empty inner stream.
  s = iterate(MakeWrapper(0, CompressionType::kGzip, false, 0, {}));
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  // zstd, and the unknown codecs, are not legacy codecs.
  for (int8_t codec = 4; codec <= 7; ++codec) {
    s = iterate(MakeEntry(0, kMagicV1, codec, 0, std::nullopt, AsBytes("xyz")));
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  }
  // Garbage that no codec accepts.
  for (int8_t codec = 1; codec <= 3; ++codec) {
    s = iterate(MakeEntry(0, kMagicV0, codec, 0, std::nullopt, AsBytes("not compressed")));
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  }
}

TEST(LegacyRecordBatchTest, DecompressionIsBounded) {
  std::vector<uint8_t> inner;
  for (int i = 0; i < 100; ++i) {
    auto m = MakeEntry(i, kMagicV1, 0, 1, std::nullopt, Bytes(std::vector<uint8_t>(1000, 'x')));
    inner.insert(inner.end(), m.begin(), m.end());
  }
  const auto w = MakeWrapper(99, CompressionType::kGzip, false, 1, inner);
  auto view = LegacyRecordBatchView::Parse(w);
  ASSERT_TRUE(view.ok());
  ReadOptions small;
  small.max_decompressed_bytes = 10000;
  LegacyRecordIterator bounded(*view, small);
  EXPECT_FALSE(bounded.Next());
  EXPECT_TRUE(bounded.status().IsCorruption()) << bounded.status().ToString();
  int n = 0;
  EXPECT_TRUE(DecodeEntry(w, &n).ok());
  EXPECT_EQ(n, 100);
}

TEST(LegacyRecordBatchTest, ParseErrorsNameFieldAndPosition) {
  auto entry = MakeEntry(7, kMagicV1, 0, 5, AsBytes("k"), AsBytes("v"));
  std::vector<uint8_t> bad = entry;
  bad[ll::kMagicOffset] = 2;
  auto r = LegacyRecordBatchView::Parse(bad, 4096);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "batch at position 4096: magic: expected 0 or 1, found 2");

  bad = entry;
  StoreBE32(bad.data() + ll::kSizeOffset, 21);
  r = LegacyRecordBatchView::Parse(bad, 4096);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "batch at position 4096: size: expected >= 22 for magic 1, found 21");

  bad = entry;
  StoreBE32(bad.data() + ll::kKeySizeOffsetV1, 1000);
  r = LegacyRecordBatchView::Parse(bad, 4096);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCorruption());
  EXPECT_NE(r.status().message().find("batch at position 4096: truncated key at byte 4126"),
            std::string_view::npos)
      << r.status().ToString();

  bad = entry;
  bad.back() ^= 1;
  auto v = LegacyRecordBatchView::Parse(bad, 4096);
  ASSERT_TRUE(v.ok());
  EXPECT_FALSE(v->IsValid());
  Status s = v->ValidateCrc();
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_NE(s.message().find("batch at position 4096"), std::string_view::npos);
  EXPECT_NE(s.message().find(fmt::format("expected 0x{:08x}", v->ComputeCrc())),
            std::string_view::npos)
      << s.ToString();
  EXPECT_NE(s.message().find(fmt::format("found 0x{:08x}", v->stored_crc())),
            std::string_view::npos)
      << s.ToString();
}

}  // namespace
}  // namespace seglog
