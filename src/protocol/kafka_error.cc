// Status -> Kafka error code: see kafka_error.h.
#include "protocol/kafka_error.h"

#include <string_view>

namespace seglog::kafka_error {

namespace {
// "FooException: ..." -> "FooException"; empty when the message names no exception.
std::string_view ExceptionName(std::string_view message) {
  const size_t colon = message.find(": ");
  if (colon == std::string_view::npos) return {};
  std::string_view name = message.substr(0, colon);
  if (name.size() < 10 || name.substr(name.size() - 9) != "Exception") return {};
  if (name.find(' ') != std::string_view::npos) return {};
  return name;
}
}  // namespace

int16_t FromStatus(const Status& status) {
  if (status.ok()) return kNone;
  std::string_view name = ExceptionName(status.message());
  if (!name.empty()) {
    const int16_t code = KafkaErrorCode(name);
    if (code != kUnknownServerError) return code;
  }
  if (name == "UnknownTopicOrPartitionException") return kUnknownTopicOrPartition;
  if (name == "TopicExistsException") return kTopicAlreadyExists;
  if (name == "InvalidTopicException") return kInvalidTopic;
  if (name == "InvalidPartitionsException") return kInvalidPartitions;
  if (name == "InvalidReplicationFactorException") return kInvalidReplicationFactor;
  if (name == "InvalidConfigurationException" || name == "ConfigException") return kInvalidConfig;
  if (name == "OutOfOrderSequenceException") return kOutOfOrderSequenceNumber;
  if (name == "DuplicateSequenceException") return kDuplicateSequenceNumber;
  if (name == "InvalidProducerEpochException") return kInvalidProducerEpoch;
  switch (status.code()) {
    case Status::Code::kNotFound:
      return kUnknownTopicOrPartition;
    case Status::Code::kAlreadyExists:
      return kTopicAlreadyExists;
    case Status::Code::kOutOfRange:
      return kOffsetOutOfRange;
    case Status::Code::kCorruption:
      return kCorruptMessage;
    case Status::Code::kIOError:
      return kKafkaStorageError;
    case Status::Code::kInvalidArgument:
      return kInvalidRequest;
    default:
      return kUnknownServerError;
  }
}

std::string MessageOf(const Status& status) {
  std::string_view m = status.message();
  std::string_view name = ExceptionName(m);
  if (!name.empty()) m.remove_prefix(name.size() + 2);
  return std::string(m);
}

}  // namespace seglog::kafka_error
