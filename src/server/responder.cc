// Responder; see request_handler.h.
#include <cstdio>
#include <cstdlib>

#include "server/request_handler.h"

namespace seglog {

Responder& Responder::operator=(Responder&& other) noexcept {
  if (this != &other) {
    if (deliver_) Answer(Response{Response::Action::kAbandoned, {}, 0});
    deliver_ = std::move(other.deliver_);
    other.deliver_ = nullptr;
  }
  return *this;
}

Responder::~Responder() {
  if (deliver_) Answer(Response{Response::Action::kAbandoned, {}, 0});
}

void Responder::Answer(Response response) {
  // Invariant: one answer per request (a second one would be written to the next request).
  if (!deliver_) {
    std::fprintf(stderr, "seglog: Responder answered twice (or after a move)\n");
    std::abort();
  }
  std::function<void(Response)> deliver = std::move(deliver_);
  deliver_ = nullptr;
  deliver(std::move(response));
}

}  // namespace seglog
