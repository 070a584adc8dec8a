// libFuzzer target for every parser of untrusted batch bytes: the shallow .log walk, the v2
// header view, deep validation, the record iterator (with and without the CRC gate, so that
// the fuzzer reaches the record parser without having to forge a CRC-32C), the legacy v0/v1
// reader, the dump tool's formatting, the codecs, control-record parsing, and Kafka's append
// validation (LogValidator, as a produce request's bytes; again with the CRC fixed up, so that
// it reaches the record checks and the offset assignment). Seed corpus:
// tests/data/golden/batches. Build with the `asan-ubsan` preset.
#include <cstddef>
#include <cstdint>

#include <sstream>

#include "base/coding.h"
#include "base/crc32c.h"
#include "log/log_validator.h"
#include "record/batch_walker.h"
#include "record/compression.h"
#include "record/legacy_record_batch.h"
#include "seglog/record_batch.h"
#include "tools/dump_log.h"

using namespace seglog;

namespace {

void Iterate(const RecordBatchView& view, const ReadOptions& options) {
  RecordIterator it(view, options);
  while (it.Next()) {
    const Record& r = it.record();
    if (view.is_control()) {
      (void)ParseControlRecordKey(r.key);
      (void)ParseEndTransactionMarker(r.value);
    }
    for (const Header& h : r.headers) (void)h.key.size();
  }
  (void)it.status();
}

// LogValidator over `bytes` as a produce request's records, then over a copy whose first
// batch's length and CRC are made consistent.
void Validate(std::span<const uint8_t> bytes, uint8_t selector) {
  LogConfig config;
  config.cleanup_compact = selector & 1;
  config.max_message_bytes = 1 << 20;
  if (selector & 2) config.compression = static_cast<CompressionType>((selector >> 2) % 5);
  LogValidator::Options o;
  o.topic_partition = "fuzz-0";
  o.origin = selector & 0x40 ? AppendOrigin::kCoordinator : AppendOrigin::kClient;
  o.now_ms = 1794024676000;
  const LogValidator validator(config, o);
  std::vector<uint8_t> out;
  (void)validator.ValidateMessagesAndAssignOffsets(bytes, 0, &out);
  namespace bl = batch_layout;
  if (bytes.size() < bl::kRecordBatchOverhead) return;
  std::vector<uint8_t> fixed(bytes.begin(), bytes.end());
  StoreBE32(fixed.data() + bl::kLengthOffset,
            static_cast<uint32_t>(fixed.size() - bl::kLogOverhead));
  fixed[bl::kMagicOffset] = static_cast<uint8_t>(kMagicV2);
  StoreBE32(fixed.data() + bl::kCrcOffset,
            Crc32c(std::span<const uint8_t>(fixed).subspan(bl::kAttributesOffset)));
  (void)validator.ValidateMessagesAndAssignOffsets(fixed, 1000, &out);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  ReadOptions options;
  options.max_decompressed_bytes = 1 << 20;
  LogBatchWalker walker(bytes);
  while (walker.Next()) {
    if (walker.current().magic < kMagicV2) {
      auto legacy = LegacyRecordBatchView::Parse(walker.current_bytes(), walker.current().position);
      if (!legacy.ok()) continue;
      (void)legacy->ValidateCrc();
      LegacyRecordIterator it(*legacy, options);
      while (it.Next()) (void)it.record().offset;
      continue;
    }
    auto view = RecordBatchView::Parse(walker.current_bytes(), walker.current().position);
    if (!view.ok()) continue;
    (void)view->ValidateDeep(options);
    Iterate(*view, options);
  }
  // The same bytes as one batch, skipping the walk's rules.
  if (auto view = RecordBatchView::Parse(bytes); view.ok()) Iterate(*view, options);
  // The dump tool's text over the same bytes as a .log file.
  {
    std::ostringstream out, err;
    DumpLogOptions dump;
    dump.print_data_log = true;
    (void)DumpLogBytes("00000000000000000000.log", bytes, dump, out, err);
  }
  // Kafka's append validation, as a produce request sends the bytes.
  if (size > 0) Validate(bytes, data[size - 1]);
  // The codecs on raw input.
  if (size > 0) {
    std::vector<uint8_t> out;
    const auto codec = static_cast<CompressionType>(data[0] % 5);
    (void)Decompress(codec, bytes.subspan(1), 1 << 20, &out);
    (void)Lz4Decompress(bytes.subspan(1), 1 << 20, &out, /*legacy_v0_header_checksum=*/true);
  }
  return 0;
}
