// CoordinatorRecordContents; see coordinator_record_text.h.
#include "tools/coordinator_record_text.h"

#include <fmt/format.h>

#include <optional>
#include <string_view>

#include "protocol/generated/consumer_protocol_assignment.h"
#include "protocol/generated/consumer_protocol_subscription.h"
#include "protocol/generated/group_metadata_value.h"
#include "protocol/generated/transaction_log_value.h"
#include "protocol/json_writer.h"
#include "protocol/protocol_reader.h"

namespace seglog {

namespace {

using protocol::Coordinator;

// Our decoder's message as the message of the exception Kafka's generated read throws for the
// same bytes (coordinator_record_text.h lists which are mapped).
std::string JavaReadMessage(std::string_view ours) {
  if (ours.starts_with("truncated request:")) return "null";  // BufferUnderflowException
  constexpr std::string_view kAlloc = "Tried to allocate a collection of size ";
  if (ours.starts_with(kAlloc)) {
    // Ours names the field ("... of size N for f, but ..."); Kafka's does not.
    const size_t for_at = ours.find(" for ");
    const size_t but_at = ours.find(", but ");
    if (for_at != std::string_view::npos && but_at != std::string_view::npos && for_at < but_at) {
      return std::string(ours.substr(0, for_at)) + std::string(ours.substr(but_at));
    }
  }
  if (ours.starts_with("non-nullable field ")) {
    const size_t pos_at = ours.find(" (position ");
    if (pos_at != std::string_view::npos) return std::string(ours.substr(0, pos_at));
  }
  return std::string(ours);
}

// CoordinatorRecordSerde.readVersion: the int16 in front of a key or value.
Result<int16_t> ReadPrefix(Bytes bytes, std::string_view name) {
  if (bytes.size() < 2) {
    return Status::Corruption(fmt::format("Could not read version from {}'s buffer.", name));
  }
  return static_cast<int16_t>((bytes[0] << 8) | bytes[1]);
}

// CoordinatorRecordSerde.readMessage, then the JsonConverter's write.
Result<std::string> MessageJson(Coordinator coordinator, int16_t type, bool is_key,
                                int16_t read_version, int16_t json_version, Bytes body) {
  auto json = protocol::CoordinatorRecordToJson(coordinator, type, is_key, read_version,
                                                json_version, body);
  if (json.status().IsCorruption()) {
    return Status::Corruption(fmt::format(
        "Could not read record with version {} from {}'s buffer due to: {}.", read_version,
        is_key ? "key" : "value", JavaReadMessage(json.status().message())));
  }
  return json;
}

// OffsetsMessageParser.replaceField: `bytes` (an int16 version, then the message) as the
// message's JSON at that version, or nullopt when they do not decode (Kafka then keeps the
// Base64 text).
template <typename T>
std::optional<std::string> EmbeddedJson(std::span<const uint8_t> bytes) {
  protocol::ProtocolReader reader(bytes);
  int16_t version = 0;
  if (!reader.ReadInt16("version", &version).ok()) return std::nullopt;
  T message;
  if (!message.Decode(&reader, version).ok()) return std::nullopt;
  protocol::JsonWriter writer;
  if (!message.WriteJson(&writer, version).ok()) return std::nullopt;
  return writer.Release();
}

// Replaces, from *cursor on, the first `"<field>":"<Base64 of bytes>"` of `json` by
// `"<field>":<replacement>`, and moves *cursor past it.
void ReplaceBase64Member(std::string* json, size_t* cursor, std::string_view field,
                         std::span<const uint8_t> bytes, const std::optional<std::string>& with) {
  protocol::JsonWriter b64;
  b64.Bytes(bytes);
  const std::string needle = fmt::format("\"{}\":{}", field, b64.text());
  const size_t at = json->find(needle, *cursor);
  if (at == std::string::npos) return;
  if (!with) {
    *cursor = at + needle.size();
    return;
  }
  const std::string replacement = fmt::format("\"{}\":{}", field, *with);
  json->replace(at, needle.size(), replacement);
  *cursor = at + replacement.size();
}

// OffsetsMessageParser.prepareGroupMetadataValue: a "consumer" group's members' subscription
// and assignment bytes as their messages' JSON.
Result<std::string> GroupMetadataJson(int16_t version, Bytes body, std::string json) {
  protocol::GroupMetadataValue value;
  protocol::ProtocolReader reader(body);
  if (!value.Decode(&reader, version).ok() || value.protocol_type != "consumer") return json;
  size_t cursor = 0;
  for (const auto& member : value.members) {
    ReplaceBase64Member(&json, &cursor, "subscription", member.subscription,
                        EmbeddedJson<protocol::ConsumerProtocolSubscription>(member.subscription));
    ReplaceBase64Member(&json, &cursor, "assignment", member.assignment,
                        EmbeddedJson<protocol::ConsumerProtocolAssignment>(member.assignment));
  }
  return json;
}

// Kafka's TransactionState.stateName of a transactionStatus id; nullopt for an unknown id
// (Kafka then prints the number).
std::optional<std::string_view> TransactionStateName(int8_t id) {
  static constexpr std::string_view kNames[] = {"Empty",        "Ongoing",          "PrepareCommit",
                                                "PrepareAbort", "CompleteCommit",   "CompleteAbort",
                                                "Dead",         "PrepareEpochFence"};
  if (id < 0 || id >= static_cast<int8_t>(std::size(kNames))) return std::nullopt;
  return kNames[id];
}

// TransactionLogMessageParser.valueAsJson: transactionStatus (a JSON number, always written) as
// the state's name, a JSON string.
Result<std::string> TransactionLogJson(int16_t version, Bytes body, std::string json) {
  protocol::TransactionLogValue value;
  protocol::ProtocolReader reader(body);
  if (!value.Decode(&reader, version).ok()) return json;
  const std::string needle = fmt::format("\"transactionStatus\":{}", value.transaction_status);
  const size_t at = json.find(needle);
  if (at == std::string::npos) return json;
  const auto name = TransactionStateName(value.transaction_status);
  const std::string text = name ? std::string(*name) : std::to_string(value.transaction_status);
  json.replace(at, needle.size(), fmt::format("\"transactionStatus\":\"{}\"", text));
  return json;
}

struct ParseResult {
  std::string key;
  std::optional<std::string> value;
};

// CoordinatorRecordSerde.deserialize and CoordinatorRecordMessageParser.prepareKey/Value.
// NotFound for an unknown record type; other errors carry Kafka's exception message.
Result<ParseResult> Parse(Coordinator coordinator, Bytes key, NullableBytes value) {
  SEGLOG_ASSIGN_OR_RETURN(const int16_t type, ReadPrefix(key, "key"));
  const protocol::CoordinatorRecordInfo* value_info =
      protocol::FindCoordinatorRecord(coordinator, type, /*is_key=*/false);
  if (value_info == nullptr) return Status::NotFound(std::to_string(type));
  SEGLOG_ASSIGN_OR_RETURN(std::string key_json,
                          MessageJson(coordinator, type, true, type, 0, key.subspan(2)));
  ParseResult result{fmt::format(R"({{"type":"{}","data":{}}})", type, key_json), std::nullopt};
  if (!value) {
    result.value = "<DELETE>";
    return result;
  }
  SEGLOG_ASSIGN_OR_RETURN(const int16_t version, ReadPrefix(*value, "value"));
  if (version < value_info->lowest_version || version > value_info->highest_version) {
    return Status::Corruption(
        fmt::format("Found an unknown record version {} for {} type", version, type));
  }
  const Bytes body = value->subspan(2);
  SEGLOG_ASSIGN_OR_RETURN(std::string json,
                          MessageJson(coordinator, type, false, version, version, body));
  if (coordinator == Coordinator::kGroup &&
      type == static_cast<int16_t>(protocol::GroupRecordType::kGroupMetadata)) {
    SEGLOG_ASSIGN_OR_RETURN(json, GroupMetadataJson(version, body, std::move(json)));
  } else if (coordinator == Coordinator::kTransaction &&
             type == static_cast<int16_t>(protocol::TransactionRecordType::kTransactionLog)) {
    SEGLOG_ASSIGN_OR_RETURN(json, TransactionLogJson(version, body, std::move(json)));
  }
  result.value = fmt::format(R"({{"version":"{}","data":{}}})", version, json);
  return result;
}

}  // namespace

Result<std::string> CoordinatorRecordContents(Coordinator coordinator, int64_t offset,
                                              NullableBytes key, NullableBytes value) {
  if (!key) {
    return Status::InvalidArgument(fmt::format(
        "Failed to decode message at offset {} using the specified decoder (message had a "
        "missing key)",
        offset));
  }
  auto parsed = Parse(coordinator, *key, value);
  if (parsed.status().IsNotFound()) {
    return fmt::format(" key: Unknown record type {} at offset {}, skipping.",
                       parsed.status().message(), offset);
  }
  if (!parsed.ok()) {
    return fmt::format(" key: Error at offset {}, skipping. {}", offset, parsed.status().message());
  }
  std::string s = " key: " + parsed->key;
  if (parsed->value) s += " payload: " + *parsed->value;
  return s;
}

}  // namespace seglog
