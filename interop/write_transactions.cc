// seglog_write_transactions DIR: writes a partition directory with transactions through
// seglog's Log - two producers' interleaved transactions, aborts and commits (markers written
// as the coordinator writes them), a roll in the middle, one transaction left open - then a
// clean close. It prints the lines Kafka's DumpLogSegments must print for the .txnindex files
// ("<file>: <line>"), computed here from the inputs (each abort's last stable offset: the
// first offset of the earliest other open transaction, else the marker's offset + 1), not read
// back from seglog's files; and on stderr the open transaction ("open <pid> <first offset>").
#include <fmt/format.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "seglog/log.h"
#include "seglog/record_batch.h"

namespace {

constexpr int64_t kT0 = 1700000000000;

struct Step {
  enum Kind { kData, kCommit, kAbort, kRoll } kind;
  int64_t pid = 0;
  int count = 0;
};

std::vector<uint8_t> DataBatch(int64_t pid, int32_t seq, int count, int64_t timestamp) {
  seglog::BatchOptions o;
  o.producer_id = pid;
  o.producer_epoch = 0;
  o.base_sequence = seq;
  o.is_transactional = true;
  seglog::RecordBatchBuilder b(o);
  for (int i = 0; i < count; ++i) {
    const std::string v = fmt::format("{}-{}", pid, seq + i);
    (void)b.Append(timestamp, std::nullopt,
                   seglog::Bytes(reinterpret_cast<const uint8_t*>(v.data()), v.size()));
  }
  return *b.Build();
}

std::vector<uint8_t> MarkerBatch(int64_t pid, bool commit, int64_t timestamp) {
  seglog::BatchOptions o;
  o.producer_id = pid;
  o.producer_epoch = 0;
  o.is_transactional = true;
  o.is_control = true;
  seglog::RecordBatchBuilder b(o);
  (void)b.AppendEndTxnMarker(
      commit ? seglog::ControlRecordType::kCommit : seglog::ControlRecordType::kAbort, 3,
      timestamp);
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
  const std::vector<Step> steps = {
      {Step::kData, 7000, 3}, {Step::kData, 7001, 2}, {Step::kAbort, 7001},
      {Step::kData, 7000, 1}, {Step::kCommit, 7000},  {Step::kData, 7001, 2},
      {Step::kRoll},          {Step::kData, 7002, 4}, {Step::kAbort, 7001},
      {Step::kAbort, 7002},   {Step::kData, 7000, 2},
  };
  std::map<int64_t, int32_t> seq;
  std::map<int64_t, int64_t> open;      // first offset -> pid
  std::map<int64_t, int64_t> first_of;  // pid -> first offset of its open transaction
  int64_t segment = 0;
  std::vector<std::string> expected;
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    const int64_t timestamp = kT0 + static_cast<int64_t>(i) * 10;
    const int64_t offset = (*log)->log_end_offset();
    seglog::Result<seglog::LogAppendInfo> r = seglog::LogAppendInfo{};
    switch (s.kind) {
      case Step::kRoll:
        if (!(*log)->Roll().ok()) return 1;
        segment = offset;
        continue;
      case Step::kData:
        r = (*log)->AppendAsLeader(DataBatch(s.pid, seq[s.pid], s.count, timestamp));
        seq[s.pid] += s.count;
        if (!first_of.count(s.pid)) {
          first_of[s.pid] = offset;
          open[offset] = s.pid;
        }
        break;
      case Step::kCommit:
      case Step::kAbort: {
        r = (*log)->AppendAsLeader(MarkerBatch(s.pid, s.kind == Step::kCommit, timestamp), 0,
                                   seglog::AppendOrigin::kCoordinator);
        const int64_t first = first_of.count(s.pid) ? first_of[s.pid] : offset;
        open.erase(first);
        first_of.erase(s.pid);
        if (s.kind == Step::kAbort) {
          const int64_t lso = open.empty() ? offset + 1 : open.begin()->first;
          expected.push_back(fmt::format(
              "{:020d}.txnindex: version: 0 producerId: {} firstOffset: {} lastOffset: {} "
              "lastStableOffset: {}",
              segment, s.pid, first, offset, lso));
        }
        break;
      }
    }
    if (!r.ok() || r->first_offset != offset) {
      std::fprintf(stderr, "step %zu: %s\n", i,
                   r.ok() ? "wrong offset" : r.status().ToString().c_str());
      return 1;
    }
  }
  if ((*log)->last_stable_offset() !=
      (open.empty() ? (*log)->log_end_offset() : open.begin()->first)) {
    std::fprintf(stderr, "last stable offset %lld is wrong\n",
                 static_cast<long long>((*log)->last_stable_offset()));
    return 1;
  }
  if (!(*log)->Close().ok()) return 1;
  for (const std::string& line : expected) std::printf("%s\n", line.c_str());
  for (const auto& [first, pid] : open) {
    std::fprintf(stderr, "open %lld %lld\n", static_cast<long long>(pid),
                 static_cast<long long>(first));
  }
  return 0;
}
