// libFuzzer target for what tiered storage reads from the network and from its metadata: S3's
// XML answers (remote/s3_xml.h - the parser and every decoder on the same bytes) and the
// SegmentObjects custom metadata (remote/segment_objects.h). Invariants checked: a parsed tree
// never nests deeper than the limit; a listing that decodes has non-negative sizes and, when
// truncated, a token; SegmentObjects that decode encode back to the same bytes. Build with the
// `asan-ubsan` preset.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "remote/s3_xml.h"
#include "remote/segment_objects.h"

using namespace seglog;

namespace {

int Depth(const XmlElement& e) {
  int deepest = 0;
  for (const XmlElement& c : e.children) deepest = std::max(deepest, Depth(c));
  return deepest + 1;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Result<XmlElement> root = ParseXml(text);
  if (root.ok() && Depth(*root) > kMaxXmlDepth) __builtin_trap();
  (void)ParseS3Error(text);
  Result<S3ListPage> page = ParseListObjectsV2(text);
  if (page.ok()) {
    for (const S3ListedObject& o : page->objects) {
      if (o.size < 0) __builtin_trap();
    }
    if (page->is_truncated && page->next_continuation_token.empty()) __builtin_trap();
  }
  (void)ParseInitiateMultipartUpload(text);

  const std::span<const uint8_t> bytes(data, size);
  Result<SegmentObjects> objects = SegmentObjects::Decode(bytes);
  if (objects.ok()) {
    const std::vector<uint8_t> again = objects->Encode();
    if (again.size() != size || !std::equal(again.begin(), again.end(), data)) __builtin_trap();
  }
  return 0;
}
