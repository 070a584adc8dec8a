// snappy in snappy-java's stream framing, which Kafka uses for codec 2 (not raw snappy, and
// not the official snappy framing format):
//
//   +0                         +8            +12                   +16
//   | 82 53 4E 41 50 50 59 00 | version = 1 | min compatible = 1 |  then chunks:
//   | int32 BE compressed length | raw snappy block of <= 32 KiB of input | ...
//
// snappy-java's reader also accepts a stream without the header (one raw snappy block) and a
// header repeated at a chunk boundary (concatenated streams); so do we.
#include <fmt/format.h>
#include <snappy.h>

#include <algorithm>
#include <cstring>

#include "base/coding.h"
#include "record/bounded_output.h"
#include "record/compression.h"

namespace seglog {

namespace {

constexpr uint8_t kSnappyMagic[8] = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
constexpr size_t kSnappyHeaderSize = 16;
constexpr size_t kSnappyBlockSize = 32 * 1024;  // snappy-java's default block size

bool StartsWithMagic(std::span<const uint8_t> b) {
  return b.size() >= kSnappyHeaderSize && std::memcmp(b.data(), kSnappyMagic, 8) == 0;
}

Status AppendRawBlock(std::span<const uint8_t> block, BoundedOutput* o, size_t at) {
  size_t n = 0;
  const char* src = reinterpret_cast<const char*>(block.data());
  if (!snappy::GetUncompressedLength(src, block.size(), &n)) {
    return Status::Corruption(fmt::format("snappy: bad block header at compressed byte {}", at));
  }
  if (!o->Reserve(n)) return o->OverLimit("snappy");
  if (!snappy::RawUncompress(src, block.size(), reinterpret_cast<char*>(o->ptr()))) {
    return Status::Corruption(fmt::format("snappy: invalid block at compressed byte {}", at));
  }
  o->Commit(n);
  if (o->over_limit()) return o->OverLimit("snappy");
  return Status::OK();
}

}  // namespace

Status SnappyCompress(std::span<const uint8_t> in, std::vector<uint8_t>* out) {
  uint8_t header[kSnappyHeaderSize];
  std::memcpy(header, kSnappyMagic, 8);
  StoreBE32(header + 8, 1);
  StoreBE32(header + 12, 1);
  out->insert(out->end(), header, header + kSnappyHeaderSize);
  for (size_t pos = 0; pos < in.size(); pos += kSnappyBlockSize) {
    const size_t n = std::min(kSnappyBlockSize, in.size() - pos);
    const size_t len_at = out->size();
    out->resize(len_at + 4 + snappy::MaxCompressedLength(n));
    size_t compressed = 0;
    snappy::RawCompress(reinterpret_cast<const char*>(in.data() + pos), n,
                        reinterpret_cast<char*>(out->data() + len_at + 4), &compressed);
    StoreBE32(out->data() + len_at, static_cast<uint32_t>(compressed));
    out->resize(len_at + 4 + compressed);
  }
  return Status::OK();
}

Status SnappyDecompress(std::span<const uint8_t> in, size_t max_output, std::vector<uint8_t>* out) {
  BoundedOutput o(out, max_output, in.size() * 2);
  if (!StartsWithMagic(in)) {
    SEGLOG_RETURN_IF_ERROR(AppendRawBlock(in, &o, 0));
    o.Finish();
    return Status::OK();
  }
  size_t pos = 0;
  while (pos < in.size()) {
    if (StartsWithMagic(in.subspan(pos))) {
      pos += kSnappyHeaderSize;
      continue;
    }
    if (in.size() - pos < 4) {
      return Status::Corruption(fmt::format(
          "snappy: truncated chunk length at compressed byte {}: need 4 bytes, found {}", pos,
          in.size() - pos));
    }
    const int32_t len = LoadBEInt32(in.data() + pos);
    if (len < 0 || static_cast<size_t>(len) > in.size() - pos - 4) {
      return Status::Corruption(
          fmt::format("snappy: chunk length at compressed byte {} is {}, but {} bytes remain", pos,
                      len, in.size() - pos - 4));
    }
    SEGLOG_RETURN_IF_ERROR(
        AppendRawBlock(in.subspan(pos + 4, static_cast<size_t>(len)), &o, pos + 4));
    pos += 4 + static_cast<size_t>(len);
  }
  o.Finish();
  return Status::OK();
}

}  // namespace seglog
