// WriteFileAtomically and ReadFileToString; see atomic_file.h.
#include "io/atomic_file.h"

#include <span>

#include "io/file.h"

namespace seglog {

Status WriteFileAtomically(Env* env, const std::string& path, std::string_view content) {
  const std::string tmp = path + ".tmp";
  {
    SEGLOG_ASSIGN_OR_RETURN(auto f, env->OpenFile(tmp, File::Mode::kCreate));
    SEGLOG_RETURN_IF_ERROR(f->Truncate(0));
    SEGLOG_RETURN_IF_ERROR(
        f->WriteAt(0, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(content.data()),
                                               content.size())));
    SEGLOG_RETURN_IF_ERROR(f->Sync());
  }
  SEGLOG_RETURN_IF_ERROR(env->RenameFile(tmp, path));
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? std::string(".")
                          : slash == 0               ? std::string("/")
                                                     : path.substr(0, slash);
  return env->SyncDirectory(dir);
}

Result<std::string> ReadFileToString(Env* env, const std::string& path) {
  SEGLOG_ASSIGN_OR_RETURN(auto f, env->OpenFile(path, File::Mode::kReadOnly));
  SEGLOG_ASSIGN_OR_RETURN(const int64_t size, f->Size());
  std::string out(static_cast<size_t>(size), '\0');
  SEGLOG_ASSIGN_OR_RETURN(
      const size_t n,
      f->ReadAtMost(0, std::span<uint8_t>(reinterpret_cast<uint8_t*>(out.data()), out.size())));
  out.resize(n);
  return out;
}

}  // namespace seglog
