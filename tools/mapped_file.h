// MappedFile: a read-only memory map of a whole file, for the tools that read segments.
// (The io component of issue 3 will own file access; this is the tools' private helper.)
// Thread safety: immutable after Open(); safe to share.
#ifndef SEGLOG_TOOLS_MAPPED_FILE_H_
#define SEGLOG_TOOLS_MAPPED_FILE_H_

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <span>
#include <string>

#include "seglog/result.h"

namespace seglog {

class MappedFile {
 public:
  static Result<std::unique_ptr<MappedFile>> Open(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Status::IOError(path + ": open: " + std::strerror(errno));
    struct stat st;
    if (::fstat(fd, &st) != 0) {
      const int e = errno;
      ::close(fd);
      return Status::IOError(path + ": fstat: " + std::strerror(e));
    }
    void* p = nullptr;
    if (st.st_size > 0) {
      p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
      if (p == MAP_FAILED) {
        const int e = errno;
        ::close(fd);
        return Status::IOError(path + ": mmap: " + std::strerror(e));
      }
    }
    ::close(fd);
    return std::unique_ptr<MappedFile>(
        new MappedFile(static_cast<const uint8_t*>(p), static_cast<size_t>(st.st_size)));
  }
  ~MappedFile() {
    if (size_ > 0) ::munmap(const_cast<uint8_t*>(data_), size_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  std::span<const uint8_t> bytes() const { return {data_, size_}; }

 private:
  MappedFile(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  const uint8_t* data_;
  size_t size_;
};

}  // namespace seglog

#endif  // SEGLOG_TOOLS_MAPPED_FILE_H_
