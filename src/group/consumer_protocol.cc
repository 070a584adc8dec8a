// ConsumerProtocol's bytes; see consumer_protocol.h.
#include "group/consumer_protocol.h"

#include <algorithm>

#include "base/coding.h"
#include "protocol/protocol_reader.h"
#include "protocol/protocol_writer.h"

namespace seglog {

namespace {

template <typename T>
Result<T> Decode(std::span<const uint8_t> bytes) {
  SEGLOG_ASSIGN_OR_RETURN(int16_t version, ConsumerProtocolVersion(bytes));
  T out;
  protocol::ProtocolReader reader(bytes.subspan(2));
  SEGLOG_RETURN_IF_ERROR(out.Decode(&reader, std::min(version, T::kHighestSupportedVersion)));
  return out;
}

}  // namespace

Result<int16_t> ConsumerProtocolVersion(std::span<const uint8_t> bytes) {
  if (bytes.size() < 2) return Status::Corruption("ConsumerProtocol: no version");
  const int16_t version = LoadBEInt16(bytes.data());
  if (version < 0) return Status::Corruption("ConsumerProtocol: a negative version");
  return version;
}

Result<protocol::ConsumerProtocolSubscription> DecodeConsumerProtocolSubscription(
    std::span<const uint8_t> bytes) {
  return Decode<protocol::ConsumerProtocolSubscription>(bytes);
}

Result<protocol::ConsumerProtocolAssignment> DecodeConsumerProtocolAssignment(
    std::span<const uint8_t> bytes) {
  return Decode<protocol::ConsumerProtocolAssignment>(bytes);
}

std::vector<uint8_t> EncodeConsumerProtocolAssignment(
    const std::map<std::string, std::set<int32_t>>& partitions, int16_t version) {
  const int16_t v = std::clamp<int16_t>(
      version, 0, protocol::ConsumerProtocolAssignment::kHighestSupportedVersion);
  protocol::ConsumerProtocolAssignment a;
  for (const auto& [topic, ps] : partitions) {
    auto& t = a.assigned_partitions.emplace_back();
    t.topic = topic;
    t.partitions.assign(ps.begin(), ps.end());
  }
  protocol::ProtocolWriter w;
  w.WriteInt16(v);
  (void)a.Encode(&w, v);  // nothing in it that a version cannot carry
  return w.bytes();
}

}  // namespace seglog
