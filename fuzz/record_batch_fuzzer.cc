// libFuzzer target for every parser of untrusted batch bytes: the shallow .log walk, the v2
// header view, deep validation, the record iterator (with and without the CRC gate, so that
// the fuzzer reaches the record parser without having to forge a CRC-32C), the legacy v0/v1
// reader, the dump tool's formatting, the codecs, and control-record parsing. Seed corpus:
// tests/data/golden/batches. Build with the `fuzz` preset.
#include <cstddef>
#include <cstdint>

#include <sstream>

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
  // The codecs on raw input.
  if (size > 0) {
    std::vector<uint8_t> out;
    const auto codec = static_cast<CompressionType>(data[0] % 5);
    (void)Decompress(codec, bytes.subspan(1), 1 << 20, &out);
    (void)Lz4Decompress(bytes.subspan(1), 1 << 20, &out, /*legacy_v0_header_checksum=*/true);
  }
  return 0;
}
