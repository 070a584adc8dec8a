// What Kafka 4.4.0's DumpLogSegments prints of the records of KRaft's metadata log
// (__cluster_metadata-0's segments and .checkpoint snapshots), as text for tools/dump_log.cc:
//
//   - after the metadata of a control record of a KRaft type, always (printControlRecord), its
//     message read at version 0 and written as JSON at the message's own Version field:
//       LEADER_CHANGE    " LeaderChange: {"version":0,"leaderId":1,"voters":[...],...}"
//       SNAPSHOT_HEADER  " SnapshotHeader {"version":0,"lastContainedLogTimestamp":...}"
//       SNAPSHOT_FOOTER  " SnapshotFooter {"version":0}"
//       KRAFT_VERSION    " KRaftVersion {"version":0,"kRaftVersion":1}"
//       KRAFT_VOTERS     " KRaftVoters {"version":0,"voters":[...]}"
//     A value that does not decode stops Kafka's dump with the exception; here, an error.
//   - with --cluster-metadata-decoder, a data record's value (ClusterMetadataLogMessageParser
//     over MetadataRecordSerde, docs/format/metadata_log.md "Records") as
//       {"type":"TOPIC_RECORD","version":0,"data":{"name":"t","topicId":"..."}}
//     or, for a value that does not decode, Kafka's line for it, never an error:
//       Error at <offset>, skipping. <the message of Kafka's MetadataParseException>
//
// The JSON is protocol/json_writer.h's, the records' converters protocol/generated's.
// Thread safety: pure functions.
#ifndef SEGLOG_TOOLS_METADATA_RECORD_TEXT_H_
#define SEGLOG_TOOLS_METADATA_RECORD_TEXT_H_

#include <cstdint>
#include <optional>
#include <string>

#include "seglog/record_batch.h"
#include "seglog/result.h"

namespace seglog {

// The text printed after a control record's metadata for the KRaft control types (above);
// nullopt for the others (ABORT and COMMIT, which dump_log.cc prints, and unknown types).
// Corruption when the value does not decode as the type's message.
Result<std::optional<std::string>> KRaftControlRecordText(ControlRecordType type,
                                                          NullableBytes value);

// The payload --cluster-metadata-decoder prints for the data record at `offset` with `value`:
// its JSON, or the "Error at ..." line.
std::string ClusterMetadataPayload(int64_t offset, NullableBytes value);

}  // namespace seglog

#endif  // SEGLOG_TOOLS_METADATA_RECORD_TEXT_H_
