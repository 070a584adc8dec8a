// RemoteIndexCache over LocalRemoteStorage and real rolled segments: lookups answer what the
// local indexes say, hits fetch nothing, files of a previous run are reused - or deleted when
// they are damaged, incomplete or stray - fetch and check failures leave no file and name the
// segment, LRU eviction keeps the byte bound without breaking readers, and concurrent callers
// share one fetch and never wait on another's I/O.
#include "remote/remote_index_cache.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <thread>

#include "io/fault_injection_env.h"
#include "remote/testing/local_remote_storage.h"
#include "remote/testing/tiered_segments.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using testing::FileSize;
using ::testing::HasSubstr;
using testing::TempDir;
using testing::TieredSegment;

// The names in `dir`, sorted.
std::set<std::string> DirNames(const std::string& dir) {
  std::set<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    out.insert(e.path().filename().string());
  }
  return out;
}

void AppendBytes(const std::string& path, std::string_view bytes) {
  std::ofstream(path, std::ios::binary | std::ios::app) << bytes;
}

class RemoteIndexCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::TieredLogSpec spec;
    spec.abort_every = 9;  // some segments with aborted transactions, some without
    auto segments = testing::WriteTieredLog(log_dir(), spec);
    ASSERT_TRUE(segments.ok()) << segments.status().ToString();
    segments_ = std::move(*segments);
    ASSERT_GE(segments_.size(), 4u);
    ASSERT_TRUE(testing::CopyAll(&store_, &segments_).ok());
  }

  std::string log_dir() const { return tmp_.path() + "/orders-0"; }
  std::string cache_dir() const {
    return tmp_.path() + "/" + std::string(kRemoteIndexCacheDirName);
  }
  const RemoteLogSegmentMetadata& m(size_t i) const { return segments_[i].metadata; }
  RemoteIndexPaths PathsOf(size_t i) const {
    return RemoteIndexCache::IndexPaths(cache_dir(), m(i).start_offset, m(i).segment_id.id);
  }

  std::unique_ptr<RemoteIndexCache> OpenCache(int64_t total_size_bytes = 1073741824,
                                              Env* env = nullptr) {
    RemoteIndexCacheOptions o;
    o.dir = cache_dir();
    o.total_size_bytes = total_size_bytes;
    o.env = env;
    auto cache = RemoteIndexCache::Open(o, &store_);
    EXPECT_TRUE(cache.ok()) << cache.status().ToString();
    return cache.ok() ? std::move(*cache) : nullptr;
  }

  std::shared_ptr<const RemoteIndexes> MustGet(RemoteIndexCache* cache, size_t i) {
    auto got = cache->Get(m(i));
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    return got.ok() ? *got : nullptr;
  }

  // Every offset and timestamp of segment `i` looked up in `indexes` and in the segment's local
  // index files, which must agree.
  void ExpectSameAnswersAsLocal(const RemoteIndexes& indexes, size_t i) {
    const TieredSegment& s = segments_[i];
    auto local_offsets = OffsetIndex::Open(Env::Default(), s.data.offset_index,
                                           s.metadata.start_offset, 1 << 20, false);
    ASSERT_TRUE(local_offsets.ok());
    auto local_times =
        TimeIndex::Open(Env::Default(), s.data.time_index, s.metadata.start_offset, 1 << 20, false);
    ASSERT_TRUE(local_times.ok());
    ASSERT_GT((*local_offsets)->entries(), 2) << "the spec should index every batch";
    EXPECT_EQ(indexes.offset_index().entries(), (*local_offsets)->entries());
    for (int64_t o = s.metadata.start_offset - 1; o <= s.metadata.end_offset + 1; ++o) {
      EXPECT_EQ(indexes.LookupOffset(o), (*local_offsets)->Lookup(o)) << "offset " << o;
    }
    for (int64_t ts = testing::kTieredT0 - 1; ts <= s.metadata.max_timestamp_ms + 1; ++ts) {
      const TimestampOffset floor = (*local_times)->Lookup(ts);
      EXPECT_EQ(indexes.LookupTimeIndex(ts), floor) << "timestamp " << ts;
      EXPECT_EQ(indexes.LookupTimestamp(ts, s.metadata.start_offset),
                (*local_offsets)->Lookup(std::max(s.metadata.start_offset, floor.offset)));
    }
    std::vector<AbortedTxn> local_txns;
    if (s.data.transaction_index.has_value()) {
      TransactionIndex local(Env::Default(), s.metadata.start_offset, *s.data.transaction_index);
      auto all = local.AllAbortedTxns();
      ASSERT_TRUE(all.ok());
      local_txns = *all;
    }
    auto collected = indexes.CollectAbortedTxns(s.metadata.start_offset, s.metadata.end_offset + 1);
    ASSERT_TRUE(collected.ok()) << collected.status().ToString();
    EXPECT_EQ(collected->txns, local_txns);
  }

  TempDir tmp_;
  LocalRemoteStorage store_{tmp_.path() + "/remote"};
  std::vector<TieredSegment> segments_;
};

TEST_F(RemoteIndexCacheTest, LookupsAnswerWhatTheLocalIndexesSay) {
  auto cache = OpenCache();
  ASSERT_NE(cache, nullptr);
  int with_aborts = 0;
  for (size_t i = 0; i < segments_.size(); ++i) {
    auto indexes = MustGet(cache.get(), i);
    ASSERT_NE(indexes, nullptr);
    ExpectSameAnswersAsLocal(*indexes, i);
    if (segments_[i].data.transaction_index.has_value()) ++with_aborts;
    // Kafka's names: "<start offset>_<segment id>.<suffix>".
    const RemoteIndexPaths p = PathsOf(i);
    EXPECT_EQ(std::filesystem::path(p.offset_index).filename().string(),
              std::to_string(m(i).start_offset) + "_" + m(i).segment_id.id.ToString() + ".index");
    EXPECT_EQ(FileSize(p.offset_index), FileSize(segments_[i].data.offset_index));
    EXPECT_EQ(FileSize(p.time_index), FileSize(segments_[i].data.time_index));
    EXPECT_EQ(FileSize(p.txn_index), segments_[i].data.transaction_index
                                         ? FileSize(*segments_[i].data.transaction_index)
                                         : 0);
    EXPECT_EQ(indexes->size_bytes(),
              FileSize(p.offset_index) + FileSize(p.time_index) + FileSize(p.txn_index));
  }
  EXPECT_GT(with_aborts, 0);
  EXPECT_LT(with_aborts, static_cast<int>(segments_.size()));  // some have an empty .txnindex
  const RemoteIndexCacheStats st = cache->stats();
  EXPECT_EQ(st.misses, static_cast<int64_t>(segments_.size()));
  EXPECT_EQ(st.hits, 0);
  EXPECT_EQ(st.entries, static_cast<int64_t>(segments_.size()));
  EXPECT_EQ(DirNames(cache_dir()).size(), 3 * segments_.size());  // no .tmp left
}

TEST_F(RemoteIndexCacheTest, TheBatchPositionIsAtOrBeforeTheTargetsBatch) {
  auto cache = OpenCache();
  ASSERT_NE(cache, nullptr);
  auto indexes = MustGet(cache.get(), 1);
  ASSERT_NE(indexes, nullptr);
  // Reading the remote .log from the looked-up position reaches every offset of the segment.
  for (int64_t o = m(1).start_offset; o <= m(1).end_offset; o += 7) {
    const OffsetPosition at = indexes->LookupOffset(o);
    EXPECT_LE(at.offset, o);
    auto bytes = store_.FetchLogSegment(m(1), at.position, 61);  // one batch header
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    ASSERT_EQ(bytes->size(), 61u);
    int64_t base = 0;
    for (int k = 0; k < 8; ++k) base = (base << 8) | (*bytes)[static_cast<size_t>(k)];
    EXPECT_LE(base, o) << "the batch at position " << at.position << " starts after " << o;
  }
}

TEST_F(RemoteIndexCacheTest, ASecondGetIsAHitAndFetchesNothing) {
  auto cache = OpenCache();
  ASSERT_NE(cache, nullptr);
  auto first = MustGet(cache.get(), 0);
  const LocalRemoteStorage::Counts before = store_.counts();
  EXPECT_EQ(before.index_fetches, 3);  // offset, time, transaction
  auto second = MustGet(cache.get(), 0);
  EXPECT_EQ(first, second);
  EXPECT_EQ(store_.counts().index_fetches, 3);
  EXPECT_EQ(cache->stats().hits, 1);
  EXPECT_EQ(cache->stats().misses, 1);
}

TEST_F(RemoteIndexCacheTest, FilesOfAPreviousRunAreReusedWithoutAFetch) {
  int64_t bytes = 0;
  {
    auto cache = OpenCache();
    ASSERT_NE(cache, nullptr);
    for (size_t i = 0; i < segments_.size(); ++i) ASSERT_NE(MustGet(cache.get(), i), nullptr);
    bytes = cache->size_bytes();
  }
  const int64_t fetches = store_.counts().index_fetches;
  auto cache = OpenCache();
  ASSERT_NE(cache, nullptr);
  EXPECT_EQ(cache->stats().reused_at_open, static_cast<int64_t>(segments_.size()));
  EXPECT_EQ(cache->size_bytes(), bytes);
  for (size_t i = 0; i < segments_.size(); ++i) {
    auto indexes = MustGet(cache.get(), i);
    ASSERT_NE(indexes, nullptr);
    ExpectSameAnswersAsLocal(*indexes, i);
  }
  EXPECT_EQ(store_.counts().index_fetches, fetches);
  EXPECT_EQ(cache->stats().hits, static_cast<int64_t>(segments_.size()));
  EXPECT_EQ(cache->stats().misses, 0);
}

TEST_F(RemoteIndexCacheTest, DamagedIncompleteAndStrayFilesAreDeletedAtOpen) {
  {
    auto cache = OpenCache();
    ASSERT_NE(cache, nullptr);
    for (size_t i = 0; i < 4; ++i) ASSERT_NE(MustGet(cache.get(), i), nullptr);
  }
  // 0: an offset index that is not a whole number of entries.
  AppendBytes(PathsOf(0).offset_index, "abc");
  // 1: a time index whose second entry goes back in time (its timestamp zeroed).
  testing::OverwriteBytes(PathsOf(1).time_index, 12, std::vector<uint8_t>(8, 0));
  // 2: a set without its time index.
  std::filesystem::remove(PathsOf(2).time_index);
  // A crash in the middle of a write, a Kafka leftover, a name that is not the cache's.
  AppendBytes(PathsOf(3).offset_index + ".tmp", "partial");
  AppendBytes(cache_dir() + "/7_" + Uuid::Random().ToString() + ".index.deleted", "x");
  AppendBytes(cache_dir() + "/notes.txt", "x");

  auto cache = OpenCache();
  ASSERT_NE(cache, nullptr);
  EXPECT_EQ(cache->stats().reused_at_open, 1);
  EXPECT_EQ(cache->stats().discarded_at_open, 3);
  const RemoteIndexPaths p3 = PathsOf(3);
  EXPECT_EQ(DirNames(cache_dir()),
            (std::set<std::string>{std::filesystem::path(p3.offset_index).filename().string(),
                                   std::filesystem::path(p3.time_index).filename().string(),
                                   std::filesystem::path(p3.txn_index).filename().string()}));
  // The deleted ones are fetched again, and right.
  const int64_t fetches = store_.counts().index_fetches;
  for (size_t i = 0; i < 3; ++i) {
    auto indexes = MustGet(cache.get(), i);
    ASSERT_NE(indexes, nullptr);
    ExpectSameAnswersAsLocal(*indexes, i);
  }
  EXPECT_EQ(store_.counts().index_fetches, fetches + 9);
}

TEST_F(RemoteIndexCacheTest, FilesThatDoNotFitTheirSegmentAreFetchedAgain) {
  {
    auto cache = OpenCache();
    ASSERT_NE(cache, nullptr);
    ASSERT_NE(MustGet(cache.get(), 2), nullptr);
  }
  // Segment 2's files named with a wrong start offset: sane on their own (index entries are
  // relative to the name's offset), but only the metadata can tell they are not segment 2's.
  const RemoteIndexPaths from = PathsOf(2);
  const RemoteIndexPaths to =
      RemoteIndexCache::IndexPaths(cache_dir(), m(2).start_offset - 1, m(2).segment_id.id);
  std::filesystem::rename(from.offset_index, to.offset_index);
  std::filesystem::rename(from.time_index, to.time_index);
  std::filesystem::rename(from.txn_index, to.txn_index);
  auto cache = OpenCache();
  ASSERT_NE(cache, nullptr);
  EXPECT_EQ(cache->stats().reused_at_open, 1);
  auto indexes = MustGet(cache.get(), 2);
  ASSERT_NE(indexes, nullptr);
  ExpectSameAnswersAsLocal(*indexes, 2);
  EXPECT_EQ(cache->stats().mismatches, 1);
  EXPECT_EQ(cache->stats().misses, 1);
  EXPECT_FALSE(std::filesystem::exists(to.offset_index));  // the mislabelled set is gone
  EXPECT_EQ(DirNames(cache_dir()).size(), 3u);
}

TEST_F(RemoteIndexCacheTest, TruncatedStoredIndexIsTheStoresCorruptionAndLeavesNoFile) {
  ASSERT_TRUE(store_.TruncateObject(m(1), RemoteObjectKind::kOffsetIndex, 13).ok());
  auto cache = OpenCache();
  ASSERT_NE(cache, nullptr);
  auto got = cache->Get(m(1));
  ASSERT_TRUE(got.status().IsCorruption()) << got.status().ToString();
  EXPECT_THAT(got.status().ToString(), HasSubstr(m(1).segment_id.id.ToString()));
  EXPECT_THAT(got.status().ToString(), HasSubstr("OFFSET"));
  EXPECT_TRUE(DirNames(cache_dir()).empty());
  EXPECT_EQ(cache->stats().entries, 0);
}

// A segment copied from bad local files: the store's checksums match, the cache's checks catch
// the damage, naming the segment and the file.
class BadCopyTest : public RemoteIndexCacheTest {
 protected:
  // Copies segment 0 again, under a new id, after `damage` changed a copy of its files.
  RemoteLogSegmentMetadata CopyDamaged(const std::function<void(LogSegmentData*)>& damage) {
    TieredSegment s = segments_[0];
    const std::string dir = tmp_.path() + "/damaged-" + std::to_string(++copies_);
    std::filesystem::create_directories(dir);
    for (std::string* p : {&s.data.offset_index, &s.data.time_index}) {
      const std::string to = dir + "/" + std::filesystem::path(*p).filename().string();
      std::filesystem::copy_file(*p, to);
      *p = to;
    }
    damage(&s.data);
    s.metadata.segment_id.id = Uuid::Random();
    auto custom = store_.CopyLogSegmentData(s.metadata, s.data);
    EXPECT_TRUE(custom.ok()) << custom.status().ToString();
    if (custom.ok()) s.metadata.custom_metadata = *custom;
    return s.metadata;
  }
  void ExpectCorruption(const RemoteLogSegmentMetadata& bad, const std::string& what) {
    auto cache = OpenCache();
    ASSERT_NE(cache, nullptr);
    auto got = cache->Get(bad);
    ASSERT_TRUE(got.status().IsCorruption()) << got.status().ToString();
    EXPECT_THAT(got.status().ToString(),
                HasSubstr(RemoteSegmentName(bad.segment_id.id, bad.start_offset)));
    EXPECT_THAT(got.status().ToString(), HasSubstr(what));
    EXPECT_TRUE(DirNames(cache_dir()).empty()) << "no partial file may stay";
    EXPECT_EQ(cache->stats().entries, 0);
  }
  int copies_ = 0;
};

TEST_F(BadCopyTest, OffsetIndexThatIsNotWholeEntries) {
  ExpectCorruption(CopyDamaged([](LogSegmentData* d) { AppendBytes(d->offset_index, "xyz"); }),
                   "multiple of 8");
}

TEST_F(BadCopyTest, TimeIndexThatIsNotWholeEntries) {
  ExpectCorruption(CopyDamaged([](LogSegmentData* d) { AppendBytes(d->time_index, "xyz"); }),
                   "multiple of 12");
}

TEST_F(BadCopyTest, OffsetIndexOutOfOrder) {
  ExpectCorruption(CopyDamaged([](LogSegmentData* d) {
                     // The second entry's relative offset set to 0: not above the first's.
                     testing::OverwriteBytes(d->offset_index, 8, std::vector<uint8_t>(4, 0));
                   }),
                   "is not above the previous entry's offset");
}

TEST_F(BadCopyTest, OffsetIndexPastTheSegmentsEnd) {
  RemoteLogSegmentMetadata bad = CopyDamaged([](LogSegmentData*) {});
  bad.end_offset = bad.start_offset + 1;  // the metadata's end below the indexed offsets
  ExpectCorruption(bad, "past the segment's end offset");
}

TEST_F(BadCopyTest, TransactionIndexWithAPartialEntry) {
  ExpectCorruption(CopyDamaged([this](LogSegmentData* d) {
                     d->transaction_index = tmp_.path() + "/partial.txnindex";
                     AppendBytes(*d->transaction_index, std::string(35, '\0'));
                   }),
                   "not a whole number of 34-byte");
}

TEST_F(RemoteIndexCacheTest, FetchErrorsPropagateAndLeaveNoFile) {
  auto cache = OpenCache();
  ASSERT_NE(cache, nullptr);
  store_.FailNextFetches(1, IndexType::kTimestamp);
  auto got = cache->Get(m(0));
  ASSERT_TRUE(got.status().IsIOError()) << got.status().ToString();
  EXPECT_THAT(got.status().ToString(), HasSubstr("TIMESTAMP"));
  EXPECT_THAT(got.status().ToString(), HasSubstr(m(0).segment_id.id.ToString()));
  EXPECT_TRUE(DirNames(cache_dir()).empty());
  EXPECT_EQ(cache->size_bytes(), 0);
  // Nothing was cached: the next Get fetches, and succeeds.
  ASSERT_NE(MustGet(cache.get(), 0), nullptr);
  EXPECT_EQ(cache->stats().misses, 2);
}

TEST_F(RemoteIndexCacheTest, MissingOffsetIndexIsNotFound) {
  ASSERT_TRUE(store_.DeleteObject(m(0), RemoteObjectKind::kOffsetIndex).ok());
  auto cache = OpenCache();
  ASSERT_NE(cache, nullptr);
  auto got = cache->Get(m(0));
  EXPECT_TRUE(got.status().IsNotFound()) << got.status().ToString();
  EXPECT_TRUE(DirNames(cache_dir()).empty());
}

TEST_F(RemoteIndexCacheTest, LocalDiskFailuresLeaveNoFile) {
  FaultInjectionEnv env(Env::Default());
  auto cache = OpenCache(1073741824, &env);
  ASSERT_NE(cache, nullptr);
  env.Fail(EnvOp::kRename, ".txnindex", EIO, 1);  // the last of the three renames
  auto renamed = cache->Get(m(0));
  EXPECT_TRUE(renamed.status().IsIOError()) << renamed.status().ToString();
  EXPECT_THAT(renamed.status().ToString(), HasSubstr(m(0).segment_id.id.ToString()));
  EXPECT_TRUE(DirNames(cache_dir()).empty());
  env.Fail(EnvOp::kSync, ".timeindex.tmp", EIO, 1);
  EXPECT_TRUE(cache->Get(m(0)).status().IsIOError());
  EXPECT_TRUE(DirNames(cache_dir()).empty());
  ASSERT_NE(MustGet(cache.get(), 0), nullptr);
}

TEST_F(RemoteIndexCacheTest, EvictsTheLeastRecentlyUsedToKeepTheByteBound) {
  int64_t sizes[3] = {};
  {
    auto probe = OpenCache();
    ASSERT_NE(probe, nullptr);
    for (size_t i = 0; i < 3; ++i) sizes[i] = MustGet(probe.get(), i)->size_bytes();
    ASSERT_TRUE(probe->Remove(m(0).segment_id.id).ok());
    ASSERT_TRUE(probe->Remove(m(1).segment_id.id).ok());
    ASSERT_TRUE(probe->Remove(m(2).segment_id.id).ok());
  }
  // Room for segments 0 and 1 and 2 bytes less than all three.
  const int64_t bound = sizes[0] + sizes[1] + sizes[2] - 2;
  auto cache = OpenCache(bound);
  ASSERT_NE(cache, nullptr);
  ASSERT_NE(MustGet(cache.get(), 0), nullptr);
  ASSERT_NE(MustGet(cache.get(), 1), nullptr);
  ASSERT_NE(MustGet(cache.get(), 0), nullptr);  // 1 is now the least recently used
  ASSERT_NE(MustGet(cache.get(), 2), nullptr);
  RemoteIndexCacheStats st = cache->stats();
  EXPECT_EQ(st.evictions, 1);
  EXPECT_EQ(st.entries, 2);
  EXPECT_EQ(cache->size_bytes(), sizes[0] + sizes[2]);
  EXPECT_LE(cache->size_bytes(), bound);
  EXPECT_FALSE(std::filesystem::exists(PathsOf(1).offset_index));
  EXPECT_FALSE(std::filesystem::exists(PathsOf(1).txn_index));
  EXPECT_TRUE(std::filesystem::exists(PathsOf(0).offset_index));
  const int64_t fetches = store_.counts().index_fetches;
  ASSERT_NE(MustGet(cache.get(), 0), nullptr);  // still cached
  EXPECT_EQ(store_.counts().index_fetches, fetches);
  ASSERT_NE(MustGet(cache.get(), 1), nullptr);  // fetched again, evicting 2
  EXPECT_EQ(store_.counts().index_fetches, fetches + 3);
  EXPECT_EQ(cache->stats().evictions, 2);
  EXPECT_FALSE(std::filesystem::exists(PathsOf(2).offset_index));
}

TEST_F(RemoteIndexCacheTest, ASmallerBoundAtOpenEvicts) {
  {
    auto cache = OpenCache();
    ASSERT_NE(cache, nullptr);
    for (size_t i = 0; i < segments_.size(); ++i) ASSERT_NE(MustGet(cache.get(), i), nullptr);
  }
  auto cache = OpenCache(1);
  ASSERT_NE(cache, nullptr);
  EXPECT_EQ(cache->stats().entries, 0);
  EXPECT_EQ(cache->stats().evictions, static_cast<int64_t>(segments_.size()));
  EXPECT_TRUE(DirNames(cache_dir()).empty());
}

TEST_F(RemoteIndexCacheTest, AnEvictedEntryStaysValidForItsReader) {
  auto cache = OpenCache(1);  // every entry is evicted as soon as it is added
  ASSERT_NE(cache, nullptr);
  for (size_t i = 0; i < segments_.size(); ++i) {
    auto indexes = MustGet(cache.get(), i);
    ASSERT_NE(indexes, nullptr);
    EXPECT_FALSE(std::filesystem::exists(PathsOf(i).offset_index));
    EXPECT_FALSE(std::filesystem::exists(PathsOf(i).txn_index));
    ExpectSameAnswersAsLocal(*indexes, i);  // mapped and open files, unlinked
  }
  EXPECT_EQ(cache->stats().entries, 0);
  EXPECT_EQ(cache->size_bytes(), 0);
  EXPECT_TRUE(DirNames(cache_dir()).empty());
}

TEST_F(RemoteIndexCacheTest, RemoveDeletesTheFiles) {
  auto cache = OpenCache();
  ASSERT_NE(cache, nullptr);
  auto held = MustGet(cache.get(), 0);
  ASSERT_NE(MustGet(cache.get(), 1), nullptr);
  ASSERT_TRUE(cache->Remove(m(0).segment_id.id).ok());
  ASSERT_TRUE(cache->Remove(Uuid::Random()).ok());  // unknown: nothing to do
  EXPECT_FALSE(std::filesystem::exists(PathsOf(0).offset_index));
  EXPECT_TRUE(std::filesystem::exists(PathsOf(1).offset_index));
  EXPECT_EQ(cache->stats().removals, 1);
  EXPECT_EQ(cache->stats().entries, 1);
  ExpectSameAnswersAsLocal(*held, 0);
  ASSERT_NE(MustGet(cache.get(), 0), nullptr);
  EXPECT_EQ(cache->stats().misses, 3);
}

TEST_F(RemoteIndexCacheTest, OpenRefusesBadOptions) {
  RemoteIndexCacheOptions o;
  o.dir = cache_dir();
  o.total_size_bytes = 0;
  auto bad = RemoteIndexCache::Open(o, &store_);
  EXPECT_TRUE(bad.status().IsInvalidArgument());
  EXPECT_THAT(bad.status().ToString(), HasSubstr("remote.log.index.file.cache.total.size.bytes"));
  o.total_size_bytes = 10;
  EXPECT_TRUE(RemoteIndexCache::Open(o, nullptr).status().IsInvalidArgument());
  o.dir.clear();
  EXPECT_TRUE(RemoteIndexCache::Open(o, &store_).status().IsInvalidArgument());
}

TEST_F(RemoteIndexCacheTest, ZeroPaddedNamesFromElsewhereAreRead) {
  {
    auto cache = OpenCache();
    ASSERT_NE(cache, nullptr);
    ASSERT_NE(MustGet(cache.get(), 1), nullptr);
  }
  const RemoteIndexPaths p = PathsOf(1);
  const std::string padded =
      fmt::format("{}/{:020d}_{}", cache_dir(), m(1).start_offset, m(1).segment_id.id.ToString());
  std::filesystem::rename(p.offset_index, padded + ".index");
  std::filesystem::rename(p.time_index, padded + ".timeindex");
  std::filesystem::rename(p.txn_index, padded + ".txnindex");
  auto cache = OpenCache();
  ASSERT_NE(cache, nullptr);
  EXPECT_EQ(cache->stats().reused_at_open, 1);
  const int64_t fetches = store_.counts().index_fetches;
  ASSERT_NE(MustGet(cache.get(), 1), nullptr);
  EXPECT_EQ(store_.counts().index_fetches, fetches);
}

TEST_F(RemoteIndexCacheTest, ConcurrentMissesOfOneSegmentShareOneFetch) {
  auto cache = OpenCache();
  ASSERT_NE(cache, nullptr);
  std::vector<std::shared_ptr<const RemoteIndexes>> got(8);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < got.size(); ++t) {
    threads.emplace_back([&, t] {
      auto r = cache->Get(m(0));
      if (r.ok()) got[t] = *r;
    });
  }
  for (std::thread& t : threads) t.join();
  for (const auto& g : got) EXPECT_EQ(g, got[0]);
  ASSERT_NE(got[0], nullptr);
  EXPECT_EQ(store_.counts().offset_index_fetches, 1);
  EXPECT_EQ(cache->stats().misses, 1);
  EXPECT_EQ(cache->stats().hits, 7);
}

TEST_F(RemoteIndexCacheTest, AFetchInProgressBlocksNobodyElse) {
  FaultInjectionEnv env(Env::Default());
  auto cache = OpenCache(1073741824, &env);
  ASSERT_NE(cache, nullptr);
  ASSERT_NE(MustGet(cache.get(), 1), nullptr);
  // Segment 0's fetch stops in the write of its first temporary file.
  const std::string name = RemoteIndexCache::FileNamePrefix(m(0).start_offset, m(0).segment_id.id);
  const int block = env.Block(EnvOp::kWrite, name + ".index.tmp");
  Result<std::shared_ptr<const RemoteIndexes>> slow = Status::Aborted("not run");
  std::thread fetcher([&] { slow = cache->Get(m(0)); });
  env.WaitUntilBlocked(block);
  // Meanwhile: hits, stats, a removal of another segment, and a removal of this one.
  ASSERT_NE(MustGet(cache.get(), 1), nullptr);
  EXPECT_EQ(cache->stats().hits, 1);
  ASSERT_TRUE(cache->Remove(m(0).segment_id.id).ok());
  env.Release(block);
  fetcher.join();
  ASSERT_TRUE(slow.ok()) << slow.status().ToString();
  ExpectSameAnswersAsLocal(**slow, 0);
  // Removed while it was fetched: served, not kept.
  EXPECT_EQ(cache->stats().entries, 1);
  EXPECT_EQ(cache->stats().removals, 1);
  EXPECT_FALSE(std::filesystem::exists(PathsOf(0).offset_index));
}

TEST_F(RemoteIndexCacheTest, ConcurrentGetsEvictionsAndRemovalsKeepTheInvariants) {
  int64_t largest = 0;
  {
    auto probe = OpenCache();
    ASSERT_NE(probe, nullptr);
    for (size_t i = 0; i < segments_.size(); ++i) {
      largest = std::max(largest, MustGet(probe.get(), i)->size_bytes());
    }
    for (size_t i = 0; i < segments_.size(); ++i) {
      ASSERT_TRUE(probe->Remove(m(i).segment_id.id).ok());
    }
  }
  const int64_t bound = 2 * largest + largest / 2;
  auto cache = OpenCache(bound);
  ASSERT_NE(cache, nullptr);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int n = 0; n < 200; ++n) {
        const size_t i = static_cast<size_t>((n * 7 + t * 3) % static_cast<int>(segments_.size()));
        if (n % 37 == 36) {
          if (!cache->Remove(m(i).segment_id.id).ok()) ++failures;
          continue;
        }
        auto r = cache->Get(m(i));
        if (!r.ok()) {
          ++failures;
          continue;
        }
        const RemoteLogSegmentMetadata& md = m(i);
        if (!((*r)->LookupOffset(md.end_offset).offset <= md.end_offset &&
              (*r)->LookupOffset(md.start_offset).offset == md.start_offset)) {
          ++failures;
        }
        auto txns = (*r)->CollectAbortedTxns(md.start_offset, md.end_offset + 1);
        if (!txns.ok()) ++failures;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  const RemoteIndexCacheStats st = cache->stats();
  EXPECT_LE(st.size_bytes, bound);
  EXPECT_GT(st.evictions, 0);
  EXPECT_EQ(st.delete_failures, 0);
  EXPECT_EQ(DirNames(cache_dir()).size(), static_cast<size_t>(3 * st.entries));
}

}  // namespace
}  // namespace seglog
