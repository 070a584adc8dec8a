// zstd: standard frames. zstd-jni's stream writes one frame without a content size and without
// a checksum; we write the same. Reading accepts any number of concatenated frames.
#include <fmt/format.h>
#include <zstd.h>

#include "record/bounded_output.h"
#include "record/compression.h"

namespace seglog {

namespace {

// One compression and one decompression context per thread, reset before each use: creating a
// context allocates and zeroes its tables, which a profile of zstd appends showed costing as much
// as the decompression of a 100 KB batch. Reset (session and parameters) makes each call
// independent of the last, as a fresh context would be.
struct ZstdContexts {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  ~ZstdContexts() {
    ZSTD_freeCCtx(cctx);
    ZSTD_freeDCtx(dctx);
  }
};

ZstdContexts& Contexts() {
  thread_local ZstdContexts contexts;
  return contexts;
}

}  // namespace

Status ZstdCompress(int level, std::span<const uint8_t> in, std::vector<uint8_t>* out) {
  ZSTD_CCtx* cctx = Contexts().cctx;
  if (cctx == nullptr) return Status::IOError("zstd: cannot create a compression context");
  ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 0);
  const size_t old = out->size();
  out->resize(old + ZSTD_compressBound(in.size()));
  ZSTD_inBuffer src{in.data(), in.size(), 0};
  ZSTD_outBuffer dst{out->data() + old, out->size() - old, 0};
  // Feed the input first and end the frame separately: like a stream whose size is not known
  // up front, zstd then keeps the level's full window in the frame header, as zstd-jni does.
  size_t rc = 0;
  while (src.pos < src.size && !ZSTD_isError(rc)) {
    rc = ZSTD_compressStream2(cctx, &dst, &src, ZSTD_e_continue);
  }
  ZSTD_inBuffer none{nullptr, 0, 0};
  do {
    if (ZSTD_isError(rc)) break;
    rc = ZSTD_compressStream2(cctx, &dst, &none, ZSTD_e_end);
  } while (rc != 0 && dst.pos < dst.size);
  if (ZSTD_isError(rc) || rc != 0) {
    out->resize(old);
    return Status::IOError(fmt::format("zstd: compression failed: {}",
                                       ZSTD_isError(rc) ? ZSTD_getErrorName(rc) : "incomplete"));
  }
  out->resize(old + dst.pos);
  return Status::OK();
}

Status ZstdDecompress(std::span<const uint8_t> in, size_t max_output, std::vector<uint8_t>* out) {
  ZSTD_DCtx* dctx = Contexts().dctx;
  if (dctx == nullptr) return Status::IOError("zstd: cannot create a decompression context");
  ZSTD_DCtx_reset(dctx, ZSTD_reset_session_and_parameters);
  BoundedOutput o(out, max_output, in.size() * 4);
  ZSTD_inBuffer src{in.data(), in.size(), 0};
  Status result;
  size_t rc = 0;
  for (;;) {
    if (!o.EnsureRoom()) {
      result = o.OverLimit("zstd");
      break;
    }
    ZSTD_outBuffer dst{o.ptr(), o.room(), 0};
    const size_t before_in = src.pos;
    rc = ZSTD_decompressStream(dctx, &dst, &src);
    o.Commit(dst.pos);
    if (ZSTD_isError(rc)) {
      result = Status::Corruption(fmt::format("zstd: invalid frame near compressed byte {}: {}",
                                              src.pos, ZSTD_getErrorName(rc)));
      break;
    }
    if (o.over_limit()) {
      result = o.OverLimit("zstd");
      break;
    }
    if (rc == 0 && src.pos == src.size) break;  // last frame complete, input used up
    if (dst.pos == 0 && src.pos == before_in) {
      // No progress with room to write: the input ends inside a frame.
      result = Status::Corruption(
          fmt::format("zstd: frame truncated after {} compressed bytes", in.size()));
      break;
    }
  }
  if (!result.ok()) return result;
  if (in.empty()) return Status::Corruption("zstd: empty input");
  o.Finish();
  return Status::OK();
}

}  // namespace seglog
