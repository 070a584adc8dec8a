// The one way seglog includes Asio (standalone, header-only; Debian's libasio-dev). seglog
// uses only the error_code overloads; ASIO_NO_EXCEPTIONS (set by the seglog_server target)
// makes any path that would still throw - none is expected - print the error and abort
// instead, so no Asio exception can escape into the engine.
//
// Thread safety: as Asio's (an io_context is thread-safe; sockets and timers are not).
#ifndef SEGLOG_SERVER_ASIO_H_
#define SEGLOG_SERVER_ASIO_H_

#include <cstdio>
#include <cstdlib>
#include <exception>

#include <asio.hpp>

#if !defined(ASIO_NO_EXCEPTIONS)
#error "seglog_server builds Asio with ASIO_NO_EXCEPTIONS"
#endif

namespace asio::detail {
template <typename Exception>
void throw_exception(const Exception& e) {
  std::fprintf(stderr, "seglog: asio error: %s\n", e.what());
  std::abort();
}
}  // namespace asio::detail

#endif  // SEGLOG_SERVER_ASIO_H_
