// The four codecs of Kafka's record batches, each in the exact framing Kafka writes and reads.
// Only a batch's records section (bytes 61..end) is compressed, as one stream:
//   gzip    RFC 1952, as java.util.zip.GZIPOutputStream writes it        (gzip_codec.cc)
//   snappy  snappy-java's stream framing: "\x82SNAPPY\0" header + chunks (snappy_codec.cc)
//   lz4     Kafka's LZ4 frame: 04 22 4D 18 60 40 82, 64 KiB blocks       (lz4_codec.cc)
//   zstd    standard zstd frames, as zstd-jni's stream writes them       (zstd_codec.cc)
// docs/format/record_batch.md has the byte-level details.
//
// Decompression never trusts a length it has not checked: output grows only as real bytes are
// produced and stops with a Corruption status at `max_output`.
//
// Thread safety: all functions are thread-safe (no shared state).
#ifndef SEGLOG_RECORD_COMPRESSION_H_
#define SEGLOG_RECORD_COMPRESSION_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "seglog/record_batch.h"
#include "seglog/status.h"

namespace seglog {

// Kafka's default level and valid range for a codec (CompressionType.java / Compression*.java).
int DefaultCompressionLevel(CompressionType type);
Status ValidateCompressionLevel(CompressionType type, int level);

// Appends the compressed form of `in` to `*out`.
Status Compress(CompressionType type, std::optional<int> level, std::span<const uint8_t> in,
                std::vector<uint8_t>* out);

// Replaces `*out` with the decompressed form of `in`. Corruption if the input is not a valid
// stream of that codec or if it inflates past `max_output` bytes.
Status Decompress(CompressionType type, std::span<const uint8_t> in, size_t max_output,
                  std::vector<uint8_t>* out);

// The codecs one by one.
Status GzipCompress(int level, std::span<const uint8_t> in, std::vector<uint8_t>* out);
Status GzipDecompress(std::span<const uint8_t> in, size_t max_output, std::vector<uint8_t>* out);
Status SnappyCompress(std::span<const uint8_t> in, std::vector<uint8_t>* out);
Status SnappyDecompress(std::span<const uint8_t> in, size_t max_output, std::vector<uint8_t>* out);
Status Lz4Compress(int level, std::span<const uint8_t> in, std::vector<uint8_t>* out);
// `legacy_v0_header_checksum`: magic-0 messages were written with a header checksum computed
// over the magic bytes too (a Kafka bug kept for compatibility); accept that form.
Status Lz4Decompress(std::span<const uint8_t> in, size_t max_output, std::vector<uint8_t>* out,
                     bool legacy_v0_header_checksum = false);
Status ZstdCompress(int level, std::span<const uint8_t> in, std::vector<uint8_t>* out);
Status ZstdDecompress(std::span<const uint8_t> in, size_t max_output, std::vector<uint8_t>* out);

}  // namespace seglog

#endif  // SEGLOG_RECORD_COMPRESSION_H_
