// FileSlice's reads; see include/seglog/file_slice.h.
#include "seglog/file_slice.h"

#include "io/file.h"

namespace seglog {

Result<std::vector<uint8_t>> FileSlice::ReadAll() const {
  std::vector<uint8_t> out;
  SEGLOG_RETURN_IF_ERROR(ReadInto(&out));
  return out;
}

Status FileSlice::ReadInto(std::vector<uint8_t>* out) const {
  out->resize(static_cast<size_t>(length));
  if (length > 0) SEGLOG_RETURN_IF_ERROR(file->ReadAt(position, *out));
  return Status::OK();
}

}  // namespace seglog
