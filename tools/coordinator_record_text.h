// What Kafka 4.4.0's DumpLogSegments prints of a data record's key and value with one of its
// coordinator decoders (CoordinatorRecordMessageParser), as text for tools/dump_log.cc:
//
//   --offsets-decoder            __consumer_offsets   (the group coordinator's records 0-23)
//   --share-group-state-decoder  __share_group_state  (ShareSnapshot 0, ShareUpdate 1)
//   --transaction-log-decoder    __transaction_state  (TransactionLog 0)
//
// A record prints as
//   " key: {"type":"1","data":{...}} payload: {"version":"0","data":{...}}"
// (type and version as JSON strings; the key written at version 0, the value at its own), with
// " payload: <DELETE>" for a tombstone. A record that does not decode prints Kafka's line as the
// key and no payload, never an error:
//   " key: Unknown record type 99 at offset 7, skipping."
//   " key: Error at offset 7, skipping. Found an unknown record version 9 for 0 type"
//   " key: Error at offset 7, skipping. Could not read record with version 0 from value's buffer
//    due to: null."
// A record without a key stops Kafka's dump with an exception: here an error with its message.
// Two decoders rewrite parts of the value as Kafka's do: --offsets-decoder prints a "consumer"
// group's member subscription and assignment bytes (GroupMetadataValue) as the JSON of
// ConsumerProtocolSubscription/Assignment when they decode, and --transaction-log-decoder
// prints TransactionLogValue's transactionStatus as the state's name.
//
// Kafka's messages for bytes that do not decode are its exceptions' messages; ours are mapped to
// them for running out of bytes in a fixed-width field ("null", Java's BufferUnderflowException),
// a collection longer than the bytes left, and a null non-nullable field. Other decoding errors
// (a string running past the end, for one) keep our decoder's wording (docs/format/dump_log.md).
//
// Thread safety: pure functions.
#ifndef SEGLOG_TOOLS_COORDINATOR_RECORD_TEXT_H_
#define SEGLOG_TOOLS_COORDINATOR_RECORD_TEXT_H_

#include <cstdint>
#include <string>

#include "protocol/generated/coordinator_records.h"
#include "seglog/record_batch.h"
#include "seglog/result.h"

namespace seglog {

// The text Kafka's decoder for `coordinator`'s topic prints after a data record's metadata:
// " key: ... payload: ..." (above). InvalidArgument, with Kafka's message, for a record with no
// key.
Result<std::string> CoordinatorRecordContents(protocol::Coordinator coordinator, int64_t offset,
                                              NullableBytes key, NullableBytes value);

}  // namespace seglog

#endif  // SEGLOG_TOOLS_COORDINATOR_RECORD_TEXT_H_
