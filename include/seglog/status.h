// Status: the outcome of an operation that can fail for an expected reason (bad bytes on disk, an
// I/O error, a bad argument). seglog never throws for expected failures; every such function
// returns a Status or a Result<T> (result.h), and both must be checked ([[nodiscard]]).
//
// A Status is cheap to copy when OK (no allocation). Its message names what failed and where:
// for Corruption, the file or buffer, the byte position, the field, and expected vs found values.
//
// A refused produce may also carry per-record errors (Kafka's ProduceResponse RecordError):
// see WithRecordErrors. They travel with the status through WithContext.
//
// Thread safety: a Status is an immutable value; distinct objects may be used from any thread.
#ifndef SEGLOG_STATUS_H_
#define SEGLOG_STATUS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace seglog {

class [[nodiscard]] Status {
 public:
  // The few failure classes callers act on. Keep this list short; put detail in the message.
  enum class Code : unsigned char {
    kOk = 0,
    kCorruption,          // bytes on disk or on the wire are not what the format allows
    kIOError,             // the operating system refused a file operation
    kInvalidArgument,     // the caller passed something the API does not accept
    kOutOfRange,          // an offset or position outside what exists
    kNotFound,            // a named thing does not exist
    kAlreadyExists,       // a named thing exists and must not
    kFailedPrecondition,  // the object is not in a state that allows the call
    kAborted,             // the operation was stopped before it finished
  };

  // Kafka's ProduceResponse RecordError: the record at `batch_index` (its position in its
  // batch, from 0) failed validation, for the reason in `message`.
  struct RecordError {
    int32_t batch_index = 0;
    std::string message;
    bool operator==(const RecordError&) const = default;
  };

  Status() noexcept = default;

  static Status OK() { return Status(); }
  static Status Corruption(std::string_view msg) { return Status(Code::kCorruption, msg); }
  static Status IOError(std::string_view msg) { return Status(Code::kIOError, msg); }
  static Status InvalidArgument(std::string_view msg) {
    return Status(Code::kInvalidArgument, msg);
  }
  static Status OutOfRange(std::string_view msg) { return Status(Code::kOutOfRange, msg); }
  static Status NotFound(std::string_view msg) { return Status(Code::kNotFound, msg); }
  static Status AlreadyExists(std::string_view msg) { return Status(Code::kAlreadyExists, msg); }
  static Status FailedPrecondition(std::string_view msg) {
    return Status(Code::kFailedPrecondition, msg);
  }
  static Status Aborted(std::string_view msg) { return Status(Code::kAborted, msg); }

  bool ok() const { return state_ == nullptr; }
  Code code() const { return state_ ? state_->code : Code::kOk; }
  bool IsCorruption() const { return code() == Code::kCorruption; }
  bool IsIOError() const { return code() == Code::kIOError; }
  bool IsInvalidArgument() const { return code() == Code::kInvalidArgument; }
  bool IsOutOfRange() const { return code() == Code::kOutOfRange; }
  bool IsNotFound() const { return code() == Code::kNotFound; }

  // The message without the code name; empty when OK.
  std::string_view message() const { return state_ ? std::string_view(state_->message) : ""; }

  // "OK", or "<Code name>: <message>".
  std::string ToString() const;

  // Returns a Status of the same code whose message is "<context>: <message>". OK stays OK.
  // Used as errors travel up: a batch error gains the segment file name, and so on.
  Status WithContext(std::string_view context) const;

  // The same status with `errors` attached (replacing any). OK stays OK.
  Status WithRecordErrors(std::vector<RecordError> errors) const;
  // The attached record errors; empty when none (and when OK).
  const std::vector<RecordError>& record_errors() const;

  static std::string_view CodeName(Code code);

 private:
  struct State {
    Code code;
    std::string message;
    std::vector<RecordError> record_errors;
  };
  Status(Code code, std::string_view msg)
      : state_(std::make_shared<const State>(State{code, std::string(msg), {}})) {}
  explicit Status(std::shared_ptr<const State> state) : state_(std::move(state)) {}

  std::shared_ptr<const State> state_;  // null means OK
};

}  // namespace seglog

// Evaluates `expr` (a Status); returns it from the enclosing function if it is not OK.
#define SEGLOG_RETURN_IF_ERROR(expr)                 \
  do {                                               \
    ::seglog::Status seglog_status_ = (expr);        \
    if (!seglog_status_.ok()) return seglog_status_; \
  } while (0)

#endif  // SEGLOG_STATUS_H_
