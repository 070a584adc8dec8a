// WriteFileAtomically: Kafka's durable replace (Utils.atomicMoveWithFallback): write the whole
// content to "<path>.tmp" in the same directory, fsync it, rename it over `path`, fsync the
// directory. A crash leaves either the old file or the new one, never a mix.
// ReadFileToString: the whole file, or NotFound / IOError naming it.
// Thread safety: callers serialise writers of one path.
#ifndef SEGLOG_IO_ATOMIC_FILE_H_
#define SEGLOG_IO_ATOMIC_FILE_H_

#include <string>
#include <string_view>

#include "seglog/result.h"

namespace seglog {

Status WriteFileAtomically(const std::string& path, std::string_view content);
Result<std::string> ReadFileToString(const std::string& path);

}  // namespace seglog

#endif  // SEGLOG_IO_ATOMIC_FILE_H_
