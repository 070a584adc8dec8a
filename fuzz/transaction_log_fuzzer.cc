// libFuzzer target for the records of __transaction_state read back at load
// (txn/transaction_log.h): the input as a whole key with no value (a tombstone), as a key and a
// value split at its first byte, and as the value of a well-formed key at both value versions (so
// the value decoder is reached without the fuzzer having to find a key). A value that decodes
// must survive a round trip: written again at its version, it reads back as the same state.
// Build with the `asan-ubsan` preset.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "txn/transaction_log.h"

using namespace seglog;

namespace {

void RoundTrip(std::span<const uint8_t> key, std::span<const uint8_t> value) {
  Result<LoadedTransactionRecord> r = DecodeTransactionRecord(key, value);
  if (!r.ok() || !r->metadata || value.size() < 2) return;
  const int16_t version = static_cast<int16_t>(value[0] << 8 | value[1]);
  TransactionLogRecord again = TransactionRecord(*r->metadata, version);
  Result<LoadedTransactionRecord> back =
      DecodeTransactionRecord(again.key, std::span<const uint8_t>(*again.value));
  if (!back.ok() || !back->metadata || !(*back->metadata == *r->metadata)) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<uint8_t> key = TransactionTombstone("txn-1").key;
  const std::span<const uint8_t> in(data, size);
  (void)DecodeTransactionRecord(in, std::nullopt);
  if (size > 0) {
    const size_t split = std::min<size_t>(data[0], size - 1);
    (void)DecodeTransactionRecord(in.subspan(1, split), in.subspan(1 + split));
  }
  for (uint8_t version : {0, 1}) {
    std::vector<uint8_t> value = {0, version};
    value.insert(value.end(), data, data + size);
    RoundTrip(key, value);
  }
  return 0;
}
