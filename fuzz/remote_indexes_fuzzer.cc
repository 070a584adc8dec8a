// libFuzzer target for the index files the remote index cache reads from the store
// (remote/remote_indexes.h): arbitrary bytes as a remote segment's .index, .timeindex and
// .txnindex, opened with RemoteIndexes::Open as the cache opens what FetchIndex returned - a
// store is not trusted to hand back what was copied. When they open, the lookups the remote
// reads make run over them: LookupOffset, LookupTimestamp, LookupTimeIndex and
// CollectAbortedTxns.
//
// Input layout (big-endian), then the three files' bytes:
//   byte  0      flags: bit 0 the end offset is known, bit 1 the segment size is known
//   bytes 1..4   start offset (int32)
//   bytes 5..8   end offset - start offset (uint32)
//   bytes 9..12  segment size (int32)
//   bytes 13..14 length of the .index (uint16), bytes 15..16 of the .timeindex; the rest is the
//                .txnindex
// Checked, beyond "no crash": what Open accepts answers lookups inside its own bounds - a floor
// entry at or below the target (or the start offset), a position at most the largest indexed
// one, aborted transactions whose last offsets lie in the segment. There is no in-memory Env,
// so the files go to a scratch directory of this process (as segment_recovery_fuzzer's do).
// Build with the `asan-ubsan` preset.
#include <fmt/format.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <numeric>
#include <span>
#include <string>

#include "base/coding.h"
#include "fuzz_files.h"
#include "io/env.h"
#include "io/file.h"
#include "remote/remote_indexes.h"

using namespace seglog;  // NOLINT: a fuzz target

namespace {

constexpr size_t kHeader = 17;

constexpr const char* kTarget = "remote_indexes_fuzzer";

const std::string& Dir() { return fuzz::ScratchDir("remote-indexes-fuzz"); }

void Check(bool ok, const char* what) { fuzz::Check(kTarget, ok, what); }

void WriteFile(const std::string& path, std::span<const uint8_t> bytes) {
  fuzz::WriteInputFile(kTarget, path, bytes);
}

void CheckFloor(const OffsetPosition& found, int64_t target, const RemoteIndexes& indexes) {
  Check(found.offset == indexes.start_offset() || found.offset <= target,
        "LookupOffset returned an entry above its target");
  Check(found.position >= 0 && found.position <= indexes.max_position(),
        "LookupOffset returned a position outside the index");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < kHeader) return 0;
  const uint8_t flags = data[0];
  const int64_t start = static_cast<int32_t>(LoadBE32(data + 1));
  const int64_t end = start + int64_t{LoadBE32(data + 5)};
  const int32_t segment_size = static_cast<int32_t>(LoadBE32(data + 9));
  const size_t offset_len = (size_t{data[13]} << 8) | data[14];
  const size_t time_len = (size_t{data[15]} << 8) | data[16];
  std::span<const uint8_t> rest(data + kHeader, size - kHeader);
  const std::span<const uint8_t> offset_bytes = rest.first(std::min(offset_len, rest.size()));
  rest = rest.subspan(offset_bytes.size());
  const std::span<const uint8_t> time_bytes = rest.first(std::min(time_len, rest.size()));
  const std::span<const uint8_t> txn_bytes = rest.subspan(time_bytes.size());

  const RemoteIndexPaths paths{Dir() + "/segment.index", Dir() + "/segment.timeindex",
                               Dir() + "/segment.txnindex"};
  WriteFile(paths.offset_index, offset_bytes);
  WriteFile(paths.time_index, time_bytes);
  WriteFile(paths.txn_index, txn_bytes);
  RemoteIndexes::SegmentBounds bounds;
  bounds.segment_id = Uuid::Random();
  bounds.start_offset = start;
  if (flags & 1) bounds.end_offset = end;
  if (flags & 2) bounds.segment_size = segment_size;

  auto opened = RemoteIndexes::Open(Env::Default(), paths, bounds);
  if (!opened.ok()) return 0;
  const RemoteIndexes& indexes = **opened;
  Check(indexes.max_offset() >= start, "max_offset is below the start offset");
  if (bounds.end_offset) Check(indexes.max_offset() <= end, "max_offset is past the end offset");
  if (bounds.segment_size && *bounds.segment_size > 0) {
    Check(indexes.max_position() < *bounds.segment_size, "max_position is past the segment");
  }

  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  // Without an end offset, a transaction index entry may end at INT64_MAX, and so may
  // max_offset: the probes are computed without overflow.
  const int64_t middle = std::midpoint(start, indexes.max_offset());
  const int64_t past_max = indexes.max_offset() < kMax ? indexes.max_offset() + 1 : kMax;
  for (int64_t target : {kMin, start - 1, start, middle, indexes.max_offset(), past_max, kMax}) {
    CheckFloor(indexes.LookupOffset(target), target, indexes);
  }
  for (int64_t ts : {kMin, int64_t{-1}, int64_t{0}, int64_t{1700000000000}, kMax}) {
    const TimestampOffset floor = indexes.LookupTimeIndex(ts);
    Check(floor.timestamp <= ts || floor.timestamp == -1,
          "LookupTimeIndex returned an entry above its timestamp");
    for (int64_t from : {start, middle, kMax}) {
      const OffsetPosition found = indexes.LookupTimestamp(ts, from);
      Check(found.position >= 0 && found.position <= indexes.max_position(),
            "LookupTimestamp returned a position outside the index");
    }
  }
  for (const auto& [from, upper] :
       {std::pair{start, kMax}, std::pair{middle, middle < kMax ? middle + 1 : kMax},
        std::pair{kMin, kMax}, std::pair{kMax, kMin}}) {
    auto collected = indexes.CollectAbortedTxns(from, upper);
    if (!collected.ok()) continue;
    for (const AbortedTxn& t : collected->txns) {
      Check(t.last_offset >= start, "an aborted transaction ends below the segment");
      if (bounds.end_offset) Check(t.last_offset <= end, "an aborted transaction ends past it");
    }
  }
  return 0;
}
