// libFuzzer target for every parser of untrusted batch bytes: the shallow .log walk, the v2
// header view, deep validation, the record iterator (with and without the CRC gate, so that
// the fuzzer reaches the record parser without having to forge a CRC-32C), the codecs, and
// control-record parsing. Seed corpus: tests/data/golden/batches. Build with the `fuzz` preset.
#include <cstddef>
#include <cstdint>

#include "record/batch_walker.h"
#include "record/compression.h"
#include "seglog/record_batch.h"

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
    auto view = RecordBatchView::Parse(walker.current_bytes(), walker.current().position);
    if (!view.ok()) continue;
    (void)view->ValidateDeep(options);
    Iterate(*view, options);
  }
  // The same bytes as one batch, skipping the walk's rules.
  if (auto view = RecordBatchView::Parse(bytes); view.ok()) Iterate(*view, options);
  // The codecs on raw input.
  if (size > 0) {
    std::vector<uint8_t> out;
    const auto codec = static_cast<CompressionType>(data[0] % 5);
    (void)Decompress(codec, bytes.subspan(1), 1 << 20, &out);
    (void)Lz4Decompress(bytes.subspan(1), 1 << 20, &out, /*legacy_v0_header_checksum=*/true);
  }
  return 0;
}
