// ValidationError: a refused append in the terms of Kafka's ProduceResponse - the exception,
// its error code, error_message and record_errors - recovered from the Status that
// Log::AppendAsLeader returned.
//
// Every refusal of an append begins its Status message with the name of the exception Kafka
// throws for the same input ("InvalidRecordException: ...", "RecordTooLargeException: ...");
// record-level refusals also carry Kafka's per-record errors (Status::record_errors()). A broker
// maps the name to the error code with KafkaErrorCode, as Kafka's Errors.forException does.
//
// Thread safety: plain values and pure functions.
#ifndef SEGLOG_VALIDATION_ERROR_H_
#define SEGLOG_VALIDATION_ERROR_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "seglog/status.h"

namespace seglog {

using RecordError = Status::RecordError;

// Kafka's error codes (org.apache.kafka.common.protocol.Errors) for the exceptions an append
// can end in.
namespace kafka_error {
inline constexpr int16_t kUnknownServerError = -1;
inline constexpr int16_t kNone = 0;
inline constexpr int16_t kOffsetOutOfRange = 1;
inline constexpr int16_t kCorruptMessage = 2;
inline constexpr int16_t kNotLeaderOrFollower = 6;
inline constexpr int16_t kMessageTooLarge = 10;
inline constexpr int16_t kRecordListTooLarge = 18;
inline constexpr int16_t kInvalidTimestamp = 32;
inline constexpr int16_t kUnsupportedForMessageFormat = 43;
inline constexpr int16_t kPolicyViolation = 44;
inline constexpr int16_t kOutOfOrderSequenceNumber = 45;
inline constexpr int16_t kDuplicateSequenceNumber = 46;
inline constexpr int16_t kInvalidProducerEpoch = 47;
inline constexpr int16_t kInvalidTxnState = 48;
inline constexpr int16_t kTransactionCoordinatorFenced = 52;
inline constexpr int16_t kKafkaStorageError = 56;
inline constexpr int16_t kUnknownProducerId = 59;
inline constexpr int16_t kUnsupportedCompressionType = 76;
inline constexpr int16_t kInvalidRecord = 87;
inline constexpr int16_t kInconsistentTopicId = 103;
}  // namespace kafka_error

// The error code Kafka returns for the exception named `exception` (its simple class name);
// kUnknownServerError for a name not in the table, as Errors.forException does.
int16_t KafkaErrorCode(std::string_view exception);

struct ValidationError {
  // Kafka's exception class name, e.g. "InvalidRecordException"; "UnknownServerException" when
  // the status names none.
  std::string exception;
  int16_t error_code = kafka_error::kUnknownServerError;
  // The status message after "<exception>: ". Kafka puts it in ProduceResponse error_message
  // only for record-level refusals (its RecordValidationException: record_errors non-empty);
  // for every other refusal it sends the error code alone and logs the message.
  std::string message;
  // ProduceResponse record_errors: every record that failed, by index in its batch.
  std::vector<RecordError> record_errors;

  // REQUIRES: !status.ok().
  static ValidationError FromStatus(const Status& status);
};

}  // namespace seglog

#endif  // SEGLOG_VALIDATION_ERROR_H_
