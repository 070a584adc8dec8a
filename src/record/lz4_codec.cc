// lz4 in Kafka's LZ4 frame (Lz4BlockOutputStream: "a partial implementation of the LZ4 frame
// format v1.5.1"):
//
//   04 22 4D 18 | FLG 0x60 | BD 0x40 | HC 0x82 | blocks ... | 00 00 00 00
//   FLG: version 01, independent blocks, no block or content checksum, no content size.
//   BD:  maximum block size 64 KiB.  HC: (XXH32(FLG BD, seed 0) >> 8) & 0xFF.
//   block: uint32 LE size, high bit set when the block is stored uncompressed (written when
//   compression does not make it smaller), then the bytes.
//
// Kafka's level 9 (its default) means lz4's fast compressor; any other level means LZ4 HC.
// We write the frame ourselves so the block decisions are Kafka's, and read it with liblz4's
// frame decoder (which also verifies optional checksums). Magic-0 legacy messages carry a wrong
// header checksum (computed over the magic bytes too); for those we repair HC before decoding.
#include <fmt/format.h>
#include <lz4.h>
#include <lz4frame.h>
#include <lz4hc.h>
#include <xxhash.h>

#include <algorithm>
#include <cstring>

#include "base/coding.h"
#include "record/bounded_output.h"
#include "record/compression.h"

namespace seglog {

namespace {

constexpr uint32_t kLz4Magic = 0x184D2204;
constexpr uint8_t kFlg = 0x60;
constexpr uint8_t kBd = 0x40;
constexpr size_t kBlockSize = 64 * 1024;
constexpr uint32_t kIncompressibleMask = 0x80000000u;
constexpr int kKafkaFastLevel = 9;

uint8_t HeaderChecksum(const uint8_t* from, size_t n) {
  return static_cast<uint8_t>((XXH32(from, n, 0) >> 8) & 0xff);
}

}  // namespace

Status Lz4Compress(int level, std::span<const uint8_t> in, std::vector<uint8_t>* out) {
  uint8_t header[7];
  StoreLE32(header, kLz4Magic);
  header[4] = kFlg;
  header[5] = kBd;
  header[6] = HeaderChecksum(header + 4, 2);
  out->insert(out->end(), header, header + 7);
  const int bound = LZ4_compressBound(static_cast<int>(kBlockSize));
  std::vector<char> scratch(static_cast<size_t>(bound));
  for (size_t pos = 0; pos < in.size(); pos += kBlockSize) {
    const int n = static_cast<int>(std::min(kBlockSize, in.size() - pos));
    const char* src = reinterpret_cast<const char*>(in.data() + pos);
    const int c = (level == kKafkaFastLevel)
                      ? LZ4_compress_default(src, scratch.data(), n, bound)
                      : LZ4_compress_HC(src, scratch.data(), n, bound, level);
    uint8_t size_field[4];
    if (c <= 0 || c >= n) {
      StoreLE32(size_field, static_cast<uint32_t>(n) | kIncompressibleMask);
      out->insert(out->end(), size_field, size_field + 4);
      out->insert(out->end(), in.begin() + static_cast<ptrdiff_t>(pos),
                  in.begin() + static_cast<ptrdiff_t>(pos) + n);
    } else {
      StoreLE32(size_field, static_cast<uint32_t>(c));
      out->insert(out->end(), size_field, size_field + 4);
      out->insert(out->end(), scratch.data(), scratch.data() + c);
    }
  }
  const uint8_t end_mark[4] = {0, 0, 0, 0};
  out->insert(out->end(), end_mark, end_mark + 4);
  return Status::OK();
}

Status Lz4Decompress(std::span<const uint8_t> in, size_t max_output, std::vector<uint8_t>* out,
                     bool legacy_v0_header_checksum) {
  if (in.size() < 7 || LoadLE32(in.data()) != kLz4Magic) {
    return Status::Corruption(fmt::format(
        "lz4: frame does not start with magic 04 22 4D 18 ({} byte(s) of input)", in.size()));
  }
  std::vector<uint8_t> patched;
  if (legacy_v0_header_checksum) {
    // The descriptor is FLG BD [content size 8 bytes] HC; recompute HC the standard way.
    const size_t desc_len = (in[4] & 0x08) ? 10 : 2;
    if (in.size() < 4 + desc_len + 1) return Status::Corruption("lz4: truncated frame descriptor");
    patched.assign(in.begin(), in.end());
    patched[4 + desc_len] = HeaderChecksum(patched.data() + 4, desc_len);
    in = patched;
  }
  LZ4F_dctx* dctx = nullptr;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION))) {
    return Status::IOError("lz4: cannot create a decompression context");
  }
  BoundedOutput o(out, max_output, in.size() * 2);
  size_t pos = 0;
  Status result;
  size_t hint = 1;
  while (true) {
    if (!o.EnsureRoom()) {
      result = o.OverLimit("lz4");
      break;
    }
    size_t dst = o.room();
    size_t src = in.size() - pos;
    hint = LZ4F_decompress(dctx, o.ptr(), &dst, in.data() + pos, &src, nullptr);
    o.Commit(dst);
    pos += src;
    if (LZ4F_isError(hint)) {
      result = Status::Corruption(fmt::format("lz4: invalid frame near compressed byte {}: {}", pos,
                                              LZ4F_getErrorName(hint)));
      break;
    }
    if (o.over_limit()) {
      result = o.OverLimit("lz4");
      break;
    }
    if (hint == 0) break;  // frame complete
    if (pos == in.size() && dst == 0) {
      result = Status::Corruption(
          fmt::format("lz4: frame truncated after {} compressed bytes (no end mark)", in.size()));
      break;
    }
  }
  LZ4F_freeDecompressionContext(dctx);
  if (!result.ok()) return result;
  o.Finish();
  return Status::OK();
}

}  // namespace seglog
