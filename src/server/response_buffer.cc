// ResponseBuffer; see response_buffer.h.
#include "server/response_buffer.h"

#include <cstdio>
#include <cstdlib>

#include "io/file.h"

namespace seglog {

namespace {
// Chunks smaller than this are copied into the previous bytes chunk: one iovec fewer for the
// writer, one small copy more.
constexpr size_t kMergeBelowBytes = 512;
}  // namespace

void ResponseBuffer::Append(std::span<const uint8_t> bytes) {
  if (bytes.empty()) return;
  if (chunks_.empty() || !std::holds_alternative<std::vector<uint8_t>>(chunks_.back())) {
    chunks_.emplace_back(std::vector<uint8_t>());
  }
  auto& tail = std::get<std::vector<uint8_t>>(chunks_.back());
  tail.insert(tail.end(), bytes.begin(), bytes.end());
  size_ += static_cast<int64_t>(bytes.size());
}

void ResponseBuffer::Append(std::vector<uint8_t>&& bytes) {
  if (bytes.empty()) return;
  if (bytes.size() < kMergeBelowBytes && !chunks_.empty() &&
      std::holds_alternative<std::vector<uint8_t>>(chunks_.back())) {
    Append(std::span<const uint8_t>(bytes));
    return;
  }
  size_ += static_cast<int64_t>(bytes.size());
  chunks_.emplace_back(std::move(bytes));
}

void ResponseBuffer::AppendFileSlice(FileSlice region) {
  // Invariant: regions name an open file and a non-negative range (a programming error else).
  if (region.file == nullptr || region.position < 0 || region.length < 0) {
    std::fprintf(stderr, "seglog: bad FileSlice (file %p, position %lld, length %lld)\n",
                 static_cast<const void*>(region.file.get()),
                 static_cast<long long>(region.position), static_cast<long long>(region.length));
    std::abort();
  }
  if (region.length == 0) return;
  size_ += region.length;
  chunks_.emplace_back(std::move(region));
}

std::vector<uint8_t> ResponseBuffer::Flatten() const {
  std::vector<uint8_t> out;
  out.reserve(static_cast<size_t>(size_));
  for (const Chunk& c : chunks_) {
    if (const auto* bytes = std::get_if<std::vector<uint8_t>>(&c)) {
      out.insert(out.end(), bytes->begin(), bytes->end());
    } else {
      const FileSlice& r = std::get<FileSlice>(c);
      const size_t at = out.size();
      out.resize(at + static_cast<size_t>(r.length));
      auto read = r.file->ReadAtMost(r.position, std::span<uint8_t>(out).subspan(at));
      out.resize(at + (read.ok() ? *read : 0));
    }
  }
  return out;
}

}  // namespace seglog
