// ShareError: the Kafka error code and message a share-group operation at the partition leader
// ends in (a share partition's acknowledgement, a share session's epoch check), in the words
// Kafka 4.4.0 uses, so the ShareFetch/ShareAcknowledge handlers can answer with them as they
// are. The codes the rest of the broker already has live in protocol/kafka_error.h; the share
// ones are here until a handler needs them there.
//
// Thread safety: an immutable value type.
#ifndef SEGLOG_SHARE_SHARE_ERROR_H_
#define SEGLOG_SHARE_SHARE_ERROR_H_

#include <cstdint>
#include <string>
#include <utility>

#include "protocol/kafka_error.h"

namespace seglog {

namespace share_error {
// org.apache.kafka.common.protocol.Errors (4.4.0).
inline constexpr int16_t kNone = 0;
inline constexpr int16_t kInvalidRequest = kafka_error::kInvalidRequest;  // 42
inline constexpr int16_t kInvalidRecordState = 121;
inline constexpr int16_t kShareSessionNotFound = 122;
inline constexpr int16_t kInvalidShareSessionEpoch = 123;
inline constexpr int16_t kShareSessionLimitReached = 133;
}  // namespace share_error

class [[nodiscard]] ShareError {
 public:
  ShareError() = default;
  ShareError(int16_t code, std::string message) : code_(code), message_(std::move(message)) {}

  static ShareError None() { return ShareError(); }

  bool ok() const { return code_ == share_error::kNone; }
  int16_t code() const { return code_; }
  // Kafka's exception message (the response's ErrorMessage); empty when none.
  const std::string& message() const { return message_; }

 private:
  int16_t code_ = share_error::kNone;
  std::string message_;
};

}  // namespace seglog

#endif  // SEGLOG_SHARE_SHARE_ERROR_H_
