// The one way seglog includes Asio's SSL streams (OpenSSL from Debian), after server/asio.h.
//
// Thread safety: as Asio's (a context is shared read-only once built; a stream is not
// thread-safe).
#ifndef SEGLOG_SERVER_ASIO_SSL_H_
#define SEGLOG_SERVER_ASIO_SSL_H_

#include "server/asio.h"

#include <asio/ssl.hpp>

#endif  // SEGLOG_SERVER_ASIO_SSL_H_
