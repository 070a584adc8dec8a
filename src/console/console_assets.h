// The console's static files (src/console/assets/: HTML-free JavaScript and CSS), embedded
// into the binary at build time by embed_assets.cmake, which writes console_assets.cc from
// the files' bytes. No build step beyond that, no CDN: the broker serves them itself.
//
// Thread safety: immutable data, thread-safe.
#ifndef SEGLOG_CONSOLE_CONSOLE_ASSETS_H_
#define SEGLOG_CONSOLE_CONSOLE_ASSETS_H_

#include <string_view>

namespace seglog {

struct ConsoleAsset {
  std::string_view name;          // the file name, e.g. "console.js"
  std::string_view content_type;  // from its extension
  std::string_view bytes;
};

// The asset called `name`, or nullptr.
const ConsoleAsset* FindConsoleAsset(std::string_view name);

}  // namespace seglog

#endif  // SEGLOG_CONSOLE_CONSOLE_ASSETS_H_
