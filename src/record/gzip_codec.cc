// gzip, as java.util.zip.GZIPOutputStream writes it and GZIPInputStream reads it.
//
// Writer: a fixed 10-byte header (no name, no mtime), raw deflate at the given level, then the
// CRC-32 and the input size, both little-endian. Java's Deflater and zlib are the same
// deflate, so at the same level the bytes match Kafka's.
// Reader: one or more concatenated members; bytes after the last member that do not start a
// new member are ignored, as GZIPInputStream ignores them.
#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstring>

#include "base/coding.h"
#include "base/crc32c.h"
#include "record/bounded_output.h"
#include "record/compression.h"

namespace seglog {

namespace {

// The header java.util.zip.GZIPOutputStream writes: magic, CM=deflate, no flags, mtime 0,
// XFL 0, OS 255 ("unknown", what the JDK 17 that runs Kafka 4.4.0 here writes; older JDKs
// wrote 0; readers ignore the byte).
constexpr uint8_t kGzipHeader[10] = {0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff};

}  // namespace

Status GzipCompress(int level, std::span<const uint8_t> in, std::vector<uint8_t>* out) {
  z_stream zs;
  std::memset(&zs, 0, sizeof zs);
  if (deflateInit2(&zs, level, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return Status::InvalidArgument(
        fmt::format("gzip: cannot initialise deflate at level {}", level));
  }
  out->insert(out->end(), std::begin(kGzipHeader), std::end(kGzipHeader));
  const uint8_t* next = in.data();
  size_t left = in.size();
  int rc = Z_OK;
  do {
    const uInt chunk = static_cast<uInt>(std::min<size_t>(left, UINT_MAX));
    zs.next_in = const_cast<Bytef*>(next);
    zs.avail_in = chunk;
    const int flush = (chunk == left) ? Z_FINISH : Z_NO_FLUSH;
    do {
      const size_t old = out->size();
      const size_t room = deflateBound(&zs, zs.avail_in) + 64;
      out->resize(old + room);
      zs.next_out = out->data() + old;
      zs.avail_out = static_cast<uInt>(room);
      rc = deflate(&zs, flush);
      out->resize(old + (room - zs.avail_out));
    } while (zs.avail_out == 0 || (flush == Z_FINISH && rc == Z_OK));
    next += chunk;
    left -= chunk;
  } while (left > 0);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return Status::IOError("gzip: deflate did not finish");
  uint8_t trailer[8];
  StoreLE32(trailer, Crc32Ieee(in));
  StoreLE32(trailer + 4, static_cast<uint32_t>(in.size()));  // ISIZE: size mod 2^32
  out->insert(out->end(), trailer, trailer + 8);
  return Status::OK();
}

Status GzipDecompress(std::span<const uint8_t> in, size_t max_output, std::vector<uint8_t>* out) {
  z_stream zs;
  std::memset(&zs, 0, sizeof zs);
  if (inflateInit2(&zs, MAX_WBITS + 16) != Z_OK) return Status::IOError("gzip: inflateInit failed");
  if (in.size() > UINT_MAX) {
    inflateEnd(&zs);
    return Status::InvalidArgument("gzip: input larger than 4 GiB");
  }
  zs.next_in = const_cast<Bytef*>(in.data());
  zs.avail_in = static_cast<uInt>(in.size());
  BoundedOutput o(out, max_output, in.size() * 4);
  int members = 0;
  Status result;
  for (;;) {
    if (!o.EnsureRoom()) {
      result = o.OverLimit("gzip");
      break;
    }
    zs.next_out = o.ptr();
    zs.avail_out = static_cast<uInt>(std::min<size_t>(o.room(), UINT_MAX));
    const uInt before = zs.avail_out;
    const int rc = inflate(&zs, Z_NO_FLUSH);
    o.Commit(before - zs.avail_out);
    if (o.over_limit()) {
      result = o.OverLimit("gzip");
      break;
    }
    if (rc == Z_OK) continue;
    if (rc == Z_BUF_ERROR && zs.avail_in > 0) continue;  // needed more output room
    if (rc == Z_BUF_ERROR) {
      result = Status::Corruption(
          fmt::format("gzip: compressed data ends inside member {} (truncated after {} bytes)",
                      members, in.size()));
      break;
    }
    if (rc != Z_STREAM_END) {
      result = Status::Corruption(
          fmt::format("gzip: invalid data in member {} at compressed byte {}: {}", members,
                      zs.total_in, zs.msg ? zs.msg : "inflate error"));
      break;
    }
    ++members;
    // Another member follows only if the next bytes are a gzip header; anything else is
    // ignored, as java.util.zip.GZIPInputStream ignores it.
    if (zs.avail_in >= 10 && zs.next_in[0] == 0x1f && zs.next_in[1] == 0x8b) {
      if (inflateReset(&zs) != Z_OK) {
        result = Status::IOError("gzip: inflateReset failed");
        break;
      }
      continue;
    }
    break;
  }
  inflateEnd(&zs);
  if (!result.ok()) return result;
  o.Finish();
  return Status::OK();
}

}  // namespace seglog
