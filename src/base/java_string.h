// Which partition of __consumer_offsets (or __transaction_state) coordinates a group or a
// transactional id: Kafka's `Utils.abs(id.hashCode()) % partitions`, where hashCode is Java's
// String.hashCode over the UTF-16 code units of the id as Java decodes it from the request's
// UTF-8 bytes, and Utils.abs maps Integer.MIN_VALUE to 0 (GroupCoordinatorService.partitionFor).
// Every Kafka client and tool computes nothing here, but FindCoordinator, the records' home
// partition and a Kafka broker reading seglog's __consumer_offsets all depend on it.
//
// Thread safety: pure functions.
#ifndef SEGLOG_BASE_JAVA_STRING_H_
#define SEGLOG_BASE_JAVA_STRING_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace seglog {

// The UTF-16 code units of the Java String that new String(bytes, UTF_8) makes of `utf8`
// (ill-formed parts replaced as below). Kafka's readString decodes every string field so; what
// DumpLogSegments prints of one is these units (protocol/json_writer.h escapes them).
std::u16string JavaStringFromUtf8(std::string_view utf8);

// Java's String.hashCode of `utf8` decoded as Java's new String(bytes, UTF_8) does (each
// ill-formed part becomes one U+FFFD by Java's rules; a supplementary character counts as its
// two surrogate code units).
int32_t JavaStringHashCode(std::string_view utf8);
// The same string's length() in Java: its UTF-16 code units (offset.metadata.max.bytes counts
// these).
size_t JavaStringLength(std::string_view utf8);

// Kafka's Utils.abs: |n|, and 0 for INT32_MIN.
inline int32_t KafkaAbs(int32_t n) { return n == INT32_MIN ? 0 : (n < 0 ? -n : n); }

// The coordinator partition of `id` among `partitions`. REQUIRES: partitions > 0.
inline int32_t CoordinatorPartitionFor(std::string_view id, int32_t partitions) {
  return KafkaAbs(JavaStringHashCode(id)) % partitions;
}

}  // namespace seglog

#endif  // SEGLOG_BASE_JAVA_STRING_H_
