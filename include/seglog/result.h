// Result<T>: a T, or the Status that says why there is none. The API follows std::expected
// (C++23, which g++ 12 lacks): has_value()/ok(), value(), operator*, operator->, status().
//
// Thread safety: a value type; externally synchronised like any other.
#ifndef SEGLOG_RESULT_H_
#define SEGLOG_RESULT_H_

#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <utility>
#include <variant>

#include "seglog/status.h"

namespace seglog {

template <typename T>
class [[nodiscard]] Result {
 public:
  static_assert(!std::is_same_v<T, Status>, "Result<Status> makes no sense; use Status");

  Result(const T& value) : rep_(value) {}                              // NOLINT: implicit by design
  Result(T&& value) : rep_(std::move(value)) {}                        // NOLINT
  Result(const Status& status) : rep_(status) { CheckNotOk(); }        // NOLINT
  Result(Status&& status) : rep_(std::move(status)) { CheckNotOk(); }  // NOLINT

  bool ok() const { return rep_.index() == 0; }
  bool has_value() const { return ok(); }
  explicit operator bool() const { return ok(); }

  // REQUIRES: ok(). Calling these on an error is a programming error and aborts.
  T& value() & {
    CheckOk();
    return std::get<0>(rep_);
  }
  const T& value() const& {
    CheckOk();
    return std::get<0>(rep_);
  }
  T&& value() && {
    CheckOk();
    return std::get<0>(std::move(rep_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  // OK when a value is present.
  Status status() const { return ok() ? Status::OK() : std::get<1>(rep_); }

 private:
  void CheckOk() const {
    if (!ok()) {
      std::fprintf(stderr, "seglog: Result::value() on error: %s\n",
                   std::get<1>(rep_).ToString().c_str());
      std::abort();
    }
  }
  void CheckNotOk() const {
    if (std::get<1>(rep_).ok()) {
      std::fprintf(stderr, "seglog: Result constructed from an OK Status\n");
      std::abort();
    }
  }

  std::variant<T, Status> rep_;
};

}  // namespace seglog

#define SEGLOG_CONCAT_INNER_(a, b) a##b
#define SEGLOG_CONCAT_(a, b) SEGLOG_CONCAT_INNER_(a, b)

// SEGLOG_ASSIGN_OR_RETURN(auto x, MakeX()); declares/assigns x from a Result, or returns its
// Status from the enclosing function.
#define SEGLOG_ASSIGN_OR_RETURN(lhs, expr) \
  SEGLOG_ASSIGN_OR_RETURN_IMPL_(SEGLOG_CONCAT_(seglog_result_, __LINE__), lhs, expr)
#define SEGLOG_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = std::move(tmp).value()

#endif  // SEGLOG_RESULT_H_
