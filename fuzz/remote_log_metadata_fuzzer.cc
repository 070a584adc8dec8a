// libFuzzer target for __remote_log_metadata values (protocol/remote_log_metadata_serde.h): the
// input as a whole value, and behind a well-formed frame (frame version 1, each apiKey 0..3,
// version 0) so the message decoders are reached without the fuzzer having to find a frame. A
// value that decodes must encode again, and that encoding must be a fixed point: it decodes,
// and encoding what it decodes to gives the same bytes. (The input itself need not come back:
// a non-minimal varint or a default tagged field decodes to the same record, and unknown tagged
// fields read out of tag order are written back in tag order, as Kafka's writer requires, so
// they decode to a record whose unknown fields are in another order.)
// Build with the `asan-ubsan` preset.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "protocol/remote_log_metadata_serde.h"

using namespace seglog;
using namespace seglog::protocol;

namespace {

void RoundTrip(std::span<const uint8_t> value) {
  Result<RemoteLogMetadataRecord> r = DecodeRemoteLogMetadata(value);
  if (!r.ok()) return;
  Result<std::vector<uint8_t>> again = EncodeRemoteLogMetadata(*r);
  if (!again.ok()) __builtin_trap();  // Decode refuses what Encode refuses (unknown states)
  Result<RemoteLogMetadataRecord> back = DecodeRemoteLogMetadata(*again);
  if (!back.ok() || back->index() != r->index()) __builtin_trap();
  Result<std::vector<uint8_t>> twice = EncodeRemoteLogMetadata(*back);
  if (!twice.ok() || *twice != *again) __builtin_trap();
  Result<RemoteLogMetadataRecord> stable = DecodeRemoteLogMetadata(*twice);
  if (!stable.ok() || !(*stable == *back)) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> in(data, size);
  RoundTrip(in);
  for (uint8_t api_key = 0; api_key < 4; ++api_key) {
    std::vector<uint8_t> value = {1, api_key, 0};
    value.insert(value.end(), in.begin(), in.end());
    RoundTrip(value);
  }
  return 0;
}
