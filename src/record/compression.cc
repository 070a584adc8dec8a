// Codec dispatch, names, and levels; see compression.h.
#include "record/compression.h"

#include <fmt/format.h>

namespace seglog {

std::string_view CompressionName(CompressionType type) {
  switch (type) {
    case CompressionType::kNone:
      return "none";
    case CompressionType::kGzip:
      return "gzip";
    case CompressionType::kSnappy:
      return "snappy";
    case CompressionType::kLz4:
      return "lz4";
    case CompressionType::kZstd:
      return "zstd";
  }
  return "unknown";
}

Result<CompressionType> ParseCompressionName(std::string_view name) {
  for (auto t : {CompressionType::kNone, CompressionType::kGzip, CompressionType::kSnappy,
                 CompressionType::kLz4, CompressionType::kZstd}) {
    if (CompressionName(t) == name) return t;
  }
  return Status::InvalidArgument(
      fmt::format("unknown compression type '{}': expected none, gzip, snappy, lz4 or zstd", name));
}

int DefaultCompressionLevel(CompressionType type) {
  switch (type) {
    case CompressionType::kGzip:
      return 6;  // java.util.zip's Z_DEFAULT_COMPRESSION
    case CompressionType::kLz4:
      return 9;
    case CompressionType::kZstd:
      return 3;
    default:
      return 0;
  }
}

Status ValidateCompressionLevel(CompressionType type, int level) {
  auto bad = [&](int lo, int hi) {
    return Status::InvalidArgument(fmt::format("{} compression level {} is outside [{}, {}]",
                                               CompressionName(type), level, lo, hi));
  };
  switch (type) {
    case CompressionType::kGzip:
      if (level == -1 || (level >= 1 && level <= 9)) return Status::OK();
      return bad(1, 9);
    case CompressionType::kLz4:
      if (level >= 1 && level <= 17) return Status::OK();
      return bad(1, 17);
    case CompressionType::kZstd:
      if (level >= -131072 && level <= 22) return Status::OK();
      return bad(-131072, 22);
    case CompressionType::kNone:
    case CompressionType::kSnappy:
      return Status::InvalidArgument(
          fmt::format("{} takes no compression level", CompressionName(type)));
  }
  return Status::InvalidArgument("unknown compression type");
}

Status Compress(CompressionType type, std::optional<int> level, std::span<const uint8_t> in,
                std::vector<uint8_t>* out) {
  if (level) SEGLOG_RETURN_IF_ERROR(ValidateCompressionLevel(type, *level));
  const int lvl = level.value_or(DefaultCompressionLevel(type));
  switch (type) {
    case CompressionType::kNone:
      out->insert(out->end(), in.begin(), in.end());
      return Status::OK();
    case CompressionType::kGzip:
      return GzipCompress(lvl == -1 ? 6 : lvl, in, out);
    case CompressionType::kSnappy:
      return SnappyCompress(in, out);
    case CompressionType::kLz4:
      return Lz4Compress(lvl, in, out);
    case CompressionType::kZstd:
      return ZstdCompress(lvl, in, out);
  }
  return Status::InvalidArgument("unknown compression type");
}

Status Decompress(CompressionType type, std::span<const uint8_t> in, size_t max_output,
                  std::vector<uint8_t>* out) {
  switch (type) {
    case CompressionType::kNone:
      if (in.size() > max_output) {
        return Status::Corruption(fmt::format("records section of {} bytes exceeds the limit of {}",
                                              in.size(), max_output));
      }
      out->assign(in.begin(), in.end());
      return Status::OK();
    case CompressionType::kGzip:
      return GzipDecompress(in, max_output, out);
    case CompressionType::kSnappy:
      return SnappyDecompress(in, max_output, out);
    case CompressionType::kLz4:
      return Lz4Decompress(in, max_output, out);
    case CompressionType::kZstd:
      return ZstdDecompress(in, max_output, out);
  }
  return Status::InvalidArgument("unknown compression type");
}

}  // namespace seglog
