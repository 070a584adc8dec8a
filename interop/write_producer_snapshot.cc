// seglog_write_producer_snapshot DIR: writes a partition directory with idempotent and
// transactional producers through seglog's Log (a roll in the middle, then a clean close, so
// DIR holds <roll offset>.snapshot and <log end offset>.snapshot), and prints the lines Kafka's
// DumpLogSegments must print for the close's snapshot: the producer entries seglog's inputs
// imply, computed here from those inputs, not read back from seglog's state.
#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <vector>

#include "seglog/log.h"
#include "seglog/record_batch.h"

namespace {

constexpr int64_t kT0 = 1700000000000;

struct Send {
  int64_t pid;
  int16_t epoch;
  int32_t base_seq;
  int count;
  bool transactional;
};

std::vector<uint8_t> Batch(const Send& s, int64_t timestamp) {
  seglog::BatchOptions o;
  o.producer_id = s.pid;
  o.producer_epoch = s.epoch;
  o.base_sequence = s.base_seq;
  o.is_transactional = s.transactional;
  seglog::RecordBatchBuilder b(o);
  for (int i = 0; i < s.count; ++i) {
    const std::string v = fmt::format("{}-{}", s.pid, i);
    (void)b.Append(timestamp, std::nullopt,
                   seglog::Bytes(reinterpret_cast<const uint8_t*>(v.data()), v.size()));
  }
  return *b.Build();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  seglog::LogOptions options;
  options.clock = [] { return kT0 + 100000; };
  auto log = seglog::Log::Open(argv[1], seglog::LogConfig{}, options);
  if (!log.ok()) {
    std::fprintf(stderr, "%s\n", log.status().ToString().c_str());
    return 1;
  }
  const std::vector<Send> sends = {
      {1000, 0, 0, 5, false},  {1001, 3, INT32_MAX - 1, 3, false},
      {1000, 0, 5, 3, false},  {1002, 1, 0, 2, true},
      {1003, 7, 40, 1, false}, {1000, 0, 8, 2, false},
  };
  struct Expected {
    int64_t pid;
    int16_t epoch;
    int64_t txn_first_offset;
    int64_t timestamp;
    int32_t first_seq, last_seq;
    int64_t last_offset;
    int32_t offset_delta;
  };
  std::vector<Expected> expected;
  int64_t offset = 0;
  for (size_t i = 0; i < sends.size(); ++i) {
    const Send& s = sends[i];
    const int64_t timestamp = kT0 + static_cast<int64_t>(i) * 10;
    auto r = (*log)->AppendAsLeader(Batch(s, timestamp));
    if (!r.ok() || r->first_offset != offset) {
      std::fprintf(stderr, "append %zu: %s\n", i,
                   r.ok() ? "wrong offset" : r.status().ToString().c_str());
      return 1;
    }
    if (i == 2 && !(*log)->Roll().ok()) return 1;
    const int64_t last_seq_wide = int64_t{s.base_seq} + s.count - 1;
    const int32_t last_seq = static_cast<int32_t>(
        last_seq_wide > INT32_MAX ? last_seq_wide - INT32_MAX - 1 : last_seq_wide);
    Expected e{s.pid,      s.epoch,  s.transactional ? offset : -1, timestamp,
               s.base_seq, last_seq, offset + s.count - 1,          s.count - 1};
    bool replaced = false;
    for (Expected& old : expected) {
      if (old.pid == s.pid) {
        if (old.txn_first_offset >= 0) e.txn_first_offset = old.txn_first_offset;
        old = e;
        replaced = true;
      }
    }
    if (!replaced) expected.push_back(e);
    offset += s.count;
  }
  if (!(*log)->Close().ok()) return 1;
  for (const Expected& e : expected) {
    std::printf(
        "producerId: %lld producerEpoch: %d coordinatorEpoch: -1 currentTxnFirstOffset: %s "
        "lastTimestamp: %lld firstSequence: %d lastSequence: %d lastOffset: %lld offsetDelta: %d "
        "timestamp: %lld\n",
        static_cast<long long>(e.pid), e.epoch,
        e.txn_first_offset >= 0 ? fmt::format("OptionalLong[{}]", e.txn_first_offset).c_str()
                                : "OptionalLong.empty",
        static_cast<long long>(e.timestamp), e.first_seq, e.last_seq,
        static_cast<long long>(e.last_offset), e.offset_delta, static_cast<long long>(e.timestamp));
  }
  std::fprintf(stderr, "log end offset %lld\n", static_cast<long long>(offset));
  return 0;
}
