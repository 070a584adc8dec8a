// File and MappedRegion, dispatching through their Env; the default-Env free functions. See
// file.h and env.h.
#include "io/file.h"

#include <fmt/format.h>
#include <unistd.h>

#include "io/env.h"

namespace seglog {

Result<std::unique_ptr<File>> File::Open(const std::string& path, Mode mode) {
  return Env::Default()->OpenFile(path, mode);
}

File::~File() {
  if (fd_ >= 0) ::close(fd_);
}

Result<int64_t> File::Size() const {
  SEGLOG_ASSIGN_OR_RETURN(const FileStat st, env_->StatOpenFile(*this));
  return st.size;
}

Result<int64_t> File::LastModifiedMs() const {
  SEGLOG_ASSIGN_OR_RETURN(const FileStat st, env_->StatOpenFile(*this));
  return st.last_modified_ms;
}

Result<size_t> File::ReadAtMost(int64_t position, std::span<uint8_t> out) const {
  return env_->Read(*this, position, out);
}

Status File::ReadAt(int64_t position, std::span<uint8_t> out) const {
  auto n = ReadAtMost(position, out);
  if (!n.ok()) return n.status();
  if (*n != out.size()) {
    return Status::Corruption(fmt::format("{}: file ends at byte {}, {} byte(s) needed at {}",
                                          path_, position + static_cast<int64_t>(*n), out.size(),
                                          position));
  }
  return Status::OK();
}

Status File::WriteAt(int64_t position, std::span<const uint8_t> data) {
  return env_->Write(*this, position, data);
}

Status File::Truncate(int64_t length) { return env_->Truncate(*this, length); }

Result<bool> File::Allocate(int64_t position, int64_t length) {
  return env_->Allocate(*this, position, length);
}

Status File::Sync() { return env_->SyncFile(*this); }

Result<std::unique_ptr<MappedRegion>> MappedRegion::Map(const File& file, size_t length,
                                                        bool writable) {
  if (length == 0) return std::unique_ptr<MappedRegion>(new MappedRegion(file.env(), nullptr, 0));
  SEGLOG_ASSIGN_OR_RETURN(uint8_t* const data, file.env()->MapFile(file, length, writable));
  return std::unique_ptr<MappedRegion>(new MappedRegion(file.env(), data, length));
}

Result<std::unique_ptr<MappedRegion>> MappedRegion::MapWholeFile(const std::string& path) {
  SEGLOG_ASSIGN_OR_RETURN(std::unique_ptr<File> file, File::Open(path, File::Mode::kReadOnly));
  SEGLOG_ASSIGN_OR_RETURN(const int64_t size, file->Size());
  return Map(*file, static_cast<size_t>(size), /*writable=*/false);
}

MappedRegion::~MappedRegion() {
  if (data_ != nullptr) env_->UnmapFile(data_, length_);
}

Status MappedRegion::Sync(const std::string& path_for_errors) {
  if (data_ == nullptr) return Status::OK();
  return env_->SyncMapping(data_, length_, path_for_errors);
}

bool FileExists(const std::string& path) { return Env::Default()->FileExists(path); }
Result<FileStat> StatFile(const std::string& path) { return Env::Default()->Stat(path); }
Status SetLastModifiedMs(const std::string& path, int64_t ms) {
  return Env::Default()->SetLastModifiedMs(path, ms);
}
Result<std::vector<std::string>> ListDirectory(const std::string& dir) {
  return Env::Default()->ListDirectory(dir);
}
Status CreateDirectories(const std::string& dir) { return Env::Default()->CreateDirectories(dir); }
Status RenameFile(const std::string& from, const std::string& to) {
  return Env::Default()->RenameFile(from, to);
}
Status RemoveFile(const std::string& path, bool missing_ok) {
  return Env::Default()->RemoveFile(path, missing_ok);
}
Status SyncDirectory(const std::string& dir) { return Env::Default()->SyncDirectory(dir); }

}  // namespace seglog
