// ValidationError and Kafka's error codes; see seglog/validation_error.h.
#include "seglog/validation_error.h"

#include <array>
#include <utility>

namespace seglog {

namespace {

struct ExceptionCode {
  std::string_view exception;
  int16_t code;
};

// Kafka's Errors table, for the exceptions seglog's log reports.
constexpr std::array<ExceptionCode, 19> kCodes{{
    {"OffsetOutOfRangeException", kafka_error::kOffsetOutOfRange},
    {"CorruptRecordException", kafka_error::kCorruptMessage},
    {"RecordTooLargeException", kafka_error::kMessageTooLarge},
    {"RecordBatchTooLargeException", kafka_error::kRecordListTooLarge},
    {"InvalidTimestampException", kafka_error::kInvalidTimestamp},
    {"UnsupportedForMessageFormatException", kafka_error::kUnsupportedForMessageFormat},
    {"PolicyViolationException", kafka_error::kPolicyViolation},
    {"OutOfOrderSequenceException", kafka_error::kOutOfOrderSequenceNumber},
    {"DuplicateSequenceException", kafka_error::kDuplicateSequenceNumber},
    {"InvalidProducerEpochException", kafka_error::kInvalidProducerEpoch},
    {"InvalidTxnStateException", kafka_error::kInvalidTxnState},
    {"TransactionCoordinatorFencedException", kafka_error::kTransactionCoordinatorFenced},
    {"KafkaStorageException", kafka_error::kKafkaStorageError},
    {"NotLeaderOrFollowerException", kafka_error::kNotLeaderOrFollower},
    {"UnknownProducerIdException", kafka_error::kUnknownProducerId},
    {"UnsupportedCompressionTypeException", kafka_error::kUnsupportedCompressionType},
    {"InvalidRecordException", kafka_error::kInvalidRecord},
    {"InconsistentTopicIdException", kafka_error::kInconsistentTopicId},
    {"UnknownServerException", kafka_error::kUnknownServerError},
}};

// "FooException" at the start of `message`, followed by ": ".
std::string_view LeadingExceptionName(std::string_view message) {
  const size_t colon = message.find(": ");
  if (colon == std::string_view::npos) return {};
  const std::string_view name = message.substr(0, colon);
  if (name.size() <= 9 || !name.ends_with("Exception")) return {};
  for (char c : name) {
    const bool word = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!word) return {};
  }
  return name;
}

}  // namespace

int16_t KafkaErrorCode(std::string_view exception) {
  for (const ExceptionCode& e : kCodes) {
    if (e.exception == exception) return e.code;
  }
  return kafka_error::kUnknownServerError;
}

ValidationError ValidationError::FromStatus(const Status& status) {
  ValidationError out;
  const std::string_view message = status.message();
  const std::string_view name = LeadingExceptionName(message);
  if (name.empty()) {
    out.exception = "UnknownServerException";
    out.message = std::string(message);
  } else {
    out.exception = std::string(name);
    out.message = std::string(message.substr(name.size() + 2));
  }
  out.error_code = KafkaErrorCode(out.exception);
  out.record_errors = status.record_errors();
  return out;
}

}  // namespace seglog
