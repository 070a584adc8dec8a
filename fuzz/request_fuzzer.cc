// libFuzzer target: arbitrary bytes as the body of any request at any version. The first two
// bytes are the API key (one not in the table picks an API by its position), the next two the
// version (one out of range picks a version in range), the rest is the body. Decoding must never
// crash or read out of bounds; a body that decodes must encode, and its encoding must decode and
// encode again to the same bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "protocol/generated/api_messages.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace seglog::protocol;
  if (size < 4) return 0;
  const auto apis = AllApis();
  const int key = (data[0] << 8) | data[1];
  const ApiMessageInfo* found = FindApi(static_cast<int16_t>(key));
  const ApiMessageInfo& api =
      found != nullptr ? *found : apis[static_cast<size_t>(key) % apis.size()];
  if (api.highest_version < api.lowest_version) return 0;
  const int range = api.highest_version - api.lowest_version + 1;
  int version = (data[2] << 8) | data[3];
  if (version < api.lowest_version || version > api.highest_version) {
    version = api.lowest_version + version % range;
  }
  std::span<const uint8_t> body(data + 4, size - 4);
  std::vector<uint8_t> first;
  if (!RoundTripRequest(api.api_key, static_cast<int16_t>(version), body, &first).ok()) return 0;
  std::vector<uint8_t> second;
  seglog::Status s = RoundTripRequest(api.api_key, static_cast<int16_t>(version), first, &second);
  // Invariant: what seglog encodes, seglog decodes, and the second encoding is the first.
  if (!s.ok() || first != second) std::abort();
  return 0;
}
