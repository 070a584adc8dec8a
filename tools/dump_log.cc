// DumpLog; see dump_log.h. The line formats follow Kafka's DumpLogSegments (kafka-format.md 13.2).
#include "tools/dump_log.h"

#include <fmt/format.h>

#include <filesystem>
#include <string_view>

#include "record/batch_walker.h"
#include "seglog/record_batch.h"
#include "tools/mapped_file.h"

namespace seglog {

namespace {

std::string_view AsText(Bytes b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

int64_t BaseOffsetFromName(const std::string& path) {
  const std::string name = std::filesystem::path(path).filename().string();
  const size_t dot = name.find('.');
  try {
    return std::stoll(name.substr(0, dot));
  } catch (...) {
    return 0;
  }
}

}  // namespace

Status DumpLogBytes(const std::string& path_as_given, std::span<const uint8_t> bytes,
                    const DumpLogOptions& options, std::ostream& out, std::ostream& err) {
  const bool deep = options.deep_iteration || options.print_data_log;
  out << "Dumping " << path_as_given << "\n";
  out << "Log starting offset: " << BaseOffsetFromName(path_as_given) << "\n";
  LogBatchWalker walker(bytes);
  int64_t last_offset = -1;
  std::vector<std::pair<int64_t, int64_t>> non_consecutive;
  while (walker.Next()) {
    const BatchPrefix& p = walker.current();
    if (p.magic != kMagicV2) {
      return Status::Corruption(fmt::format(
          "{}: batch at position {} has magic {}: legacy message formats are not dumped yet",
          path_as_given, p.position, p.magic));
    }
    auto view = RecordBatchView::Parse(walker.current_bytes(), p.position);
    if (!view.ok()) return view.status().WithContext(path_as_given);
    const RecordBatchView& b = *view;
    auto codec = b.compression();
    out << fmt::format(
        "baseOffset: {} lastOffset: {} count: {} baseSequence: {} lastSequence: {} producerId: {} "
        "producerEpoch: {} partitionLeaderEpoch: {} isTransactional: {} isControl: {} "
        "deleteHorizonMs: {} position: {} {}: {} size: {} magic: {} compresscodec: {} crc: {} "
        "isvalid: {}\n",
        b.base_offset(), b.last_offset(), b.records_count(), b.base_sequence(), b.last_sequence(),
        b.producer_id(), b.producer_epoch(), b.partition_leader_epoch(), b.is_transactional(),
        b.is_control(),
        b.delete_horizon_ms() ? fmt::format("OptionalLong[{}]", *b.delete_horizon_ms())
                              : std::string("OptionalLong.empty"),
        p.position, TimestampTypeName(b.timestamp_type()), b.max_timestamp(), b.size_in_bytes(),
        b.magic(), codec.ok() ? CompressionName(*codec) : "unknown", b.stored_crc(),
        b.IsValid());
    if (!deep) continue;
    RecordIterator it(b);
    while (it.Next()) {
      const Record& r = it.record();
      if (last_offset != -1 && r.offset != last_offset + 1) {
        non_consecutive.emplace_back(last_offset, r.offset);
      }
      last_offset = r.offset;
      std::string line = fmt::format(
          "| offset: {} {}: {} keySize: {} valueSize: {} sequence: {} headerKeys: [", r.offset,
          TimestampTypeName(b.timestamp_type()), r.timestamp,
          r.key ? static_cast<int64_t>(r.key->size()) : -1,
          r.value ? static_cast<int64_t>(r.value->size()) : -1, r.sequence);
      for (size_t i = 0; i < r.headers.size(); ++i) {
        if (i > 0) line += ',';
        line += r.headers[i].key;
      }
      line += ']';
      if (b.is_control()) {
        auto key = ParseControlRecordKey(r.key);
        if (key.ok() && (key->type() == ControlRecordType::kAbort ||
                         key->type() == ControlRecordType::kCommit)) {
          auto marker = ParseEndTransactionMarker(r.value);
          if (marker.ok()) {
            line += fmt::format(" endTxnMarker: {} coordinatorEpoch: {}",
                                ControlRecordTypeName(key->type()), marker->coordinator_epoch);
          }
        } else if (key.ok()) {
          line += fmt::format(" controlType: {}({})", ControlRecordTypeName(key->type()),
                              key->type_id);
        }
      } else if (options.print_data_log) {
        if (r.key) line += fmt::format(" key: {}", AsText(*r.key));
        if (r.value) line += fmt::format(" payload: {}", AsText(*r.value));
      }
      out << line << "\n";
    }
    if (!it.status().ok()) return it.status().WithContext(path_as_given);
  }
  if (!walker.status().ok()) return walker.status().WithContext(path_as_given);
  if (walker.trailing_bytes() > 0) {
    out << fmt::format("Found {} invalid bytes at the end of {}\n", walker.trailing_bytes(),
                       std::filesystem::path(path_as_given).filename().string());
  }
  if (!non_consecutive.empty()) {
    err << "Non-consecutive offsets in " << path_as_given << "\n";
    for (auto [a, b] : non_consecutive) err << "  " << a << " is followed by " << b << "\n";
  }
  return Status::OK();
}

Status DumpLogFile(const std::string& path, const DumpLogOptions& options, std::ostream& out,
                   std::ostream& err) {
  auto file = MappedFile::Open(path);
  if (!file.ok()) return file.status();
  return DumpLogBytes(path, (*file)->bytes(), options, out, err);
}

}  // namespace seglog
