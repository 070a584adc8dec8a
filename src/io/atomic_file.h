// WriteFileAtomically: Kafka's durable replace (Utils.atomicMoveWithFallback): write the whole
// content to "<path>.tmp" in the same directory, fsync it, rename it over `path`, fsync the
// directory. A crash leaves either the old file or the new one, never a mix. A failure of any
// step is returned naming the file and the operation; `path` is then unchanged (a .tmp file may
// be left, which the next write replaces).
// ReadFileToString: the whole file, or NotFound / IOError naming it.
// Both through the given Env; the overloads without one use Env::Default() (tools and tests).
// Thread safety: callers serialise writers of one path.
#ifndef SEGLOG_IO_ATOMIC_FILE_H_
#define SEGLOG_IO_ATOMIC_FILE_H_

#include <string>
#include <string_view>

#include "io/env.h"
#include "seglog/result.h"

namespace seglog {

Status WriteFileAtomically(Env* env, const std::string& path, std::string_view content);
Result<std::string> ReadFileToString(Env* env, const std::string& path);

#ifndef SEGLOG_ENGINE_NO_DEFAULT_ENV
inline Status WriteFileAtomically(const std::string& path, std::string_view content) {
  return WriteFileAtomically(Env::Default(), path, content);
}
inline Result<std::string> ReadFileToString(const std::string& path) {
  return ReadFileToString(Env::Default(), path);
}
#endif  // SEGLOG_ENGINE_NO_DEFAULT_ENV

}  // namespace seglog

#endif  // SEGLOG_IO_ATOMIC_FILE_H_
