// Status formatting.
#include "seglog/status.h"

namespace seglog {

std::string_view Status::CodeName(Code code) {
  switch (code) {
    case Code::kOk:
      return "OK";
    case Code::kCorruption:
      return "Corruption";
    case Code::kIOError:
      return "IOError";
    case Code::kInvalidArgument:
      return "InvalidArgument";
    case Code::kOutOfRange:
      return "OutOfRange";
    case Code::kNotFound:
      return "NotFound";
    case Code::kAlreadyExists:
      return "AlreadyExists";
    case Code::kFailedPrecondition:
      return "FailedPrecondition";
    case Code::kAborted:
      return "Aborted";
  }
  return "Unknown";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out(CodeName(state_->code));
  out += ": ";
  out += state_->message;
  return out;
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  std::string msg(context);
  msg += ": ";
  msg += state_->message;
  return Status(std::make_shared<const State>(State{state_->code, msg, state_->record_errors}));
}

Status Status::WithRecordErrors(std::vector<RecordError> errors) const {
  if (ok()) return *this;
  return Status(
      std::make_shared<const State>(State{state_->code, state_->message, std::move(errors)}));
}

const std::vector<Status::RecordError>& Status::record_errors() const {
  static const std::vector<RecordError> kNone;
  return state_ ? state_->record_errors : kNone;
}

}  // namespace seglog
