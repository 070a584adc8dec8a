// seglog_write_metadata_log DIR: writes KRaft metadata files as seglog writes them, for Kafka's
// DumpLogSegments (with and without --cluster-metadata-decoder) and `seglog dump-log` to print
// side by side (interop/check_metadata_dump.sh). It prints the files to dump, one a line:
//
//   DIR/node/__cluster_metadata-0/   a node's metadata log through seglog's MetadataLog: the
//       standalone bootstrap snapshot `seglog format --standalone` writes (kraft.version 1, so
//       KRaftVersion and KRaftVoters control records), BecomeLeader (LeaderChange and the
//       bootstrap records in a metadata transaction), the records of a broker registering and of
//       topics, partitions, configs, quotas, SCRAM credentials, ACLs and producer ids, and a
//       snapshot of that image at the log end (MetadataLog::Snapshot);
//   DIR/samples/__cluster_metadata-0/ through seglog's Log: for every KRaft metadata record type
//       and version, the protocol samples (every field of the version filled, tagged and
//       unknown tagged fields included); for types with nested structs, the same bytes framed
//       with versions above the schema's, which Kafka refuses; every KRaft control
//       record (LeaderChange also with Version 1, which Kafka reads at 0 and writes at 1, and a
//       control type Kafka does not know); strings, bytes and doubles whose JSON needs escaping,
//       Base64 padding or Java's number text; and values Kafka's MetadataRecordSerde refuses,
//       one for each of its messages. Then a snapshot (WriteSnapshot) of sample records.
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "io/env.h"
#include "metadata/bootstrap.h"
#include "metadata/metadata_batch.h"
#include "metadata/metadata_log.h"
#include "metadata/snapshot_file.h"
#include "protocol/generated/access_control_entry_record.h"
#include "protocol/generated/client_quota_record.h"
#include "protocol/generated/config_record.h"
#include "protocol/generated/k_raft_version_record.h"
#include "protocol/generated/leader_change_message.h"
#include "protocol/generated/message_samples.h"
#include "protocol/generated/metadata_records.h"
#include "protocol/generated/partition_change_record.h"
#include "protocol/generated/partition_record.h"
#include "protocol/generated/producer_ids_record.h"
#include "protocol/generated/register_broker_record.h"
#include "protocol/generated/snapshot_footer_record.h"
#include "protocol/generated/snapshot_header_record.h"
#include "protocol/generated/topic_record.h"
#include "protocol/generated/user_scram_credential_record.h"
#include "protocol/generated/voters_record.h"
#include "seglog/log.h"

namespace {

using seglog::ControlRecordType;
using seglog::ControlRecordValue;
using seglog::MetadataRecordValue;
using seglog::Status;
using seglog::Uuid;
namespace p = seglog::protocol;

constexpr int64_t kT0 = 1796000000000;

#define CHECK_OK(expr)                                                                \
  do {                                                                                \
    const Status s_ = (expr);                                                         \
    if (!s_.ok()) {                                                                   \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, s_.ToString().c_str()); \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

template <typename T>
T Must(seglog::Result<T> r) {
  CHECK_OK(r.status());
  return *std::move(r);
}

Uuid Id(uint8_t seed) {
  Uuid u;
  for (int i = 0; i < 16; ++i) u.bytes[i] = static_cast<uint8_t>(seed * 17 + i * 3);
  return u;
}

template <typename T>
MetadataRecordValue Record(const T& record, int16_t version = T::kHighestSupportedVersion) {
  return Must(seglog::EncodeMetadataRecord(record, version));
}

MetadataRecordValue Raw(std::vector<uint8_t> value) { return {0, std::move(value)}; }

template <typename T>
ControlRecordValue Control(ControlRecordType type, const T& message) {
  return Must(seglog::EncodeControlRecord(type, message));
}

// ---- DIR/node: seglog's own metadata log ----

std::vector<MetadataRecordValue> NodeRecords() {
  std::vector<MetadataRecordValue> out;
  p::RegisterBrokerRecord broker;
  broker.broker_id = 1;
  broker.incarnation_id = Id(1);
  broker.broker_epoch = 7;
  p::RegisterBrokerRecord::BrokerEndpoint endpoint;
  endpoint.name = "PLAINTEXT";
  endpoint.host = "127.0.0.1";
  endpoint.port = 9092;
  broker.end_points.push_back(endpoint);
  p::RegisterBrokerRecord::BrokerFeature feature;
  feature.name = "metadata.version";
  feature.min_supported_version = 7;
  feature.max_supported_version = 33;
  broker.features.push_back(feature);
  broker.rack = std::nullopt;
  broker.log_dirs.push_back(Id(2));
  out.push_back(Record(broker));

  p::TopicRecord topic;
  topic.name = "orders";
  topic.topic_id = Id(3);
  out.push_back(Record(topic));
  for (int32_t partition = 0; partition < 2; ++partition) {
    p::PartitionRecord rec;
    rec.partition_id = partition;
    rec.topic_id = Id(3);
    rec.replicas = {1};
    rec.isr = {1};
    rec.leader = 1;
    rec.directories = {Id(2)};
    out.push_back(Record(rec));
  }
  p::ConfigRecord config;
  config.resource_type = 2;
  config.resource_name = "orders";
  config.name = "cleanup.policy";
  config.value = "compact";
  out.push_back(Record(config));
  p::PartitionChangeRecord change;
  change.partition_id = 1;
  change.topic_id = Id(3);
  change.leader = -1;
  change.isr = std::vector<int32_t>{};
  change.eligible_leader_replicas = std::vector<int32_t>{1};
  out.push_back(Record(change));
  p::ClientQuotaRecord quota;
  quota.entity.push_back({"user", std::string("alice"), {}});
  quota.key = "producer_byte_rate";
  quota.value = 1048576;
  out.push_back(Record(quota));
  p::UserScramCredentialRecord scram;
  scram.name = "alice";
  scram.mechanism = 1;
  scram.salt = {1, 2, 3, 4, 5};
  scram.stored_key = {9, 8, 7};
  scram.server_key = {0xff, 0xfe, 0xfd, 0xfc};
  scram.iterations = 8192;
  out.push_back(Record(scram));
  p::AccessControlEntryRecord acl;
  acl.id = Id(4);
  acl.resource_type = 2;
  acl.resource_name = "orders";
  acl.pattern_type = 3;
  acl.principal = "User:alice";
  acl.host = "*";
  acl.operation = 3;
  acl.permission_type = 3;
  out.push_back(Record(acl));
  p::ProducerIdsRecord pids;
  pids.broker_id = 1;
  pids.broker_epoch = 7;
  pids.next_producer_id = 1000;
  out.push_back(Record(pids));
  return out;
}

std::vector<std::string> WriteNode(const std::string& dir) {
  seglog::Env* env = seglog::Env::Default();
  seglog::StandaloneVoter voter;
  voter.node_id = 1;
  voter.directory_id = Id(2);
  voter.host = "localhost";
  voter.port = 9093;
  CHECK_OK(
      seglog::WriteBootstrapSnapshot(env, dir, seglog::DefaultBootstrapFeatures(), kT0, voter));
  seglog::MetadataLogOptions options;
  int64_t now = kT0 + 1000;
  options.clock = [&now] { return now++; };
  auto log = Must(seglog::MetadataLog::Open(dir, options));
  CHECK_OK(log->BecomeLeader());
  const std::vector<MetadataRecordValue> records = NodeRecords();
  CHECK_OK(log->Append(std::span(records).first(4)));
  CHECK_OK(log->Append(std::span(records).subspan(4)));
  CHECK_OK(log->Snapshot());
  const std::string meta = dir + "/" + seglog::kMetadataPartitionDir;
  std::vector<std::string> files = {meta + "/00000000000000000000.log"};
  for (const seglog::SnapshotId& id : log->snapshots()) {
    files.push_back(meta + "/" + seglog::SnapshotName(id) + std::string(seglog::kSnapshotSuffix));
  }
  CHECK_OK(log->Close());
  return files;
}

// ---- DIR/samples: every record type and version, and the special cases ----

// The protocol sample of `name` at (version, seed).
std::vector<uint8_t> Sample(std::string_view name, int16_t version, uint32_t seed) {
  for (const auto& c : p::testing::AllMessageCases()) {
    if (c.name != name) continue;
    std::vector<uint8_t> body;
    CHECK_OK(c.encode_sample(version, seed, &body));
    return body;
  }
  std::fprintf(stderr, "no sample of %s\n", std::string(name).c_str());
  std::exit(1);
}

std::vector<std::vector<MetadataRecordValue>> SampleBatches() {
  std::vector<std::vector<MetadataRecordValue>> batches;
  for (const p::MetadataRecordInfo& info : p::AllMetadataRecords()) {
    std::vector<MetadataRecordValue> batch;
    for (int16_t v = info.lowest_version; v <= info.highest_version; ++v) {
      for (uint32_t seed = 1; seed <= 3; ++seed) {
        batch.push_back({info.api_key,
                         seglog::FrameMetadataRecord(info.api_key, v, Sample(info.name, v, seed))});
      }
    }
    // Versions above the schema's, for the types whose records hold a nested struct: Kafka's
    // generated read refuses them there ("Can't read version"), as seglog refuses every version
    // outside the type's (Kafka reads the others by the schema's conditions: metadata_records.h).
    if (info.name == "RegisterBrokerRecord" || info.name == "RegisterControllerRecord" ||
        info.name == "ClientQuotaRecord") {
      const std::vector<uint8_t> newest = Sample(info.name, info.highest_version, 2);
      for (int16_t v : {static_cast<int16_t>(info.highest_version + 1), int16_t{1000}}) {
        batch.push_back({info.api_key, seglog::FrameMetadataRecord(info.api_key, v, newest)});
      }
    }
    batches.push_back(std::move(batch));
  }
  return batches;
}

std::vector<MetadataRecordValue> TextRecords() {
  std::vector<MetadataRecordValue> out;
  const std::vector<std::string> strings = {
      "quote\" backslash\\ slash/ tab\t newline\n return\r bs\b ff\f nul" + std::string(1, '\0') +
          " \x01\x1f\x7f end",
      "e\xcc\x81 \xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80 \xe2\x80\xa8",  // accents, CJK, emoji,
                                                                        // U+2028
      "bad \xff\xfe \xc0\xaf \xe0\x80 \xed\xa0\x80 \xf0\x9f\x98 \xf4\x90\x80\x80 \x80 end \xe4\xb8",
      "",
  };
  for (size_t i = 0; i < strings.size(); ++i) {
    p::ConfigRecord config;
    config.resource_type = 4;
    config.resource_name = strings[i];
    config.name = "k" + std::to_string(i);
    config.value = strings[(i + 1) % strings.size()];
    out.push_back(Record(config));
  }
  p::ConfigRecord null_value;
  null_value.resource_type = 2;
  null_value.resource_name = "t";
  null_value.name = "retention.ms";
  null_value.value = std::nullopt;
  out.push_back(Record(null_value));
  const double inf = std::numeric_limits<double>::infinity();
  for (double d : {0.0,
                   -0.0,
                   1.0,
                   -2.5,
                   100.0,
                   1e7,
                   9999999.0,
                   12345678.0,
                   0.001,
                   9.99e-4,
                   0.1,
                   1.0 / 3,
                   123456789.125,
                   1e-5,
                   1.5e300,
                   -1.7976931348623157e308,
                   2.2250738585072014e-308,
                   std::nan(""),
                   inf,
                   -inf,
                   1048576.0,
                   0.5,
                   3.14159}) {
    p::ClientQuotaRecord quota;
    quota.entity.push_back({"client-id", std::nullopt, {}});
    quota.entity.push_back({"user", strings[1], {}});
    quota.key = "request_percentage";
    quota.value = d;
    out.push_back(Record(quota));
  }
  for (size_t n = 0; n <= 5; ++n) {
    p::UserScramCredentialRecord scram;
    scram.name = strings[0];
    scram.mechanism = 2;
    for (size_t i = 0; i < n; ++i) scram.salt.push_back(static_cast<uint8_t>(0xf8 + i));
    scram.stored_key.assign(n * 7, 0x3e);
    scram.server_key.assign(n * 11 + 1, 0xfb);
    scram.iterations = 4096;
    out.push_back(Record(scram));
  }
  return out;
}

// Values that do not decode, one for each message of Kafka's MetadataRecordSerde.read.
std::vector<MetadataRecordValue> BadRecords() {
  std::vector<uint8_t> topic = Sample("TopicRecord", 0, 1);
  std::vector<uint8_t> framed_topic = seglog::FrameMetadataRecord(2, 0, topic);
  std::vector<uint8_t> truncated(framed_topic.begin(), framed_topic.end() - 3);
  std::vector<uint8_t> garbage = framed_topic;
  garbage.insert(garbage.end(), {0xab, 0xcd});
  return {
      Raw({}),                                        // Error while reading frame version
      Raw({0x80}),                                    // a varint cut short
      Raw({0x80, 0x80, 0x80, 0x80, 0x80, 0x01}),      // a varint of more than 5 bytes
      Raw({0x0}),                                     // frame version 0 (KRaft's 2.8 preview)
      Raw({0x2, 0x2, 0x0}),                           // frame version 2
      Raw({0xff, 0xff, 0x03, 0x2, 0x0}),              // frame version 65535: too large
      Raw({0x1}),                                     // no type
      Raw({0x1, 0x80, 0x80, 0x02, 0x0}),              // type 32768: too large
      Raw({0x1, 0x2}),                                // no version
      Raw({0x1, 0x2, 0xff, 0xff, 0x03}),              // version too large
      Raw({0x1, 0x63, 0x0, 0x0}),                     // type 99: unknown
      Raw({0x1, 0x6, 0x0}),                           // type 6: a gap in Kafka's types
      Raw({0x1, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x0}),  // type -1 (a 5-byte varint Java reads as -1)
      Raw(truncated),                                 // Failed to deserialize record with type 2
      Raw(garbage),                                   // Found 2 byte(s) of garbage after 2
      Raw({0x1, 0x14, 0x0, 0x0, 0x1, 0x2, 0x3}),      // NoOpRecord with garbage
      Raw({0x1, 0x14, 0x0, 0x5, 0x0, 0x0}),           // NoOpRecord, 5 tagged fields, too few bytes
  };
}

std::vector<ControlRecordValue> ControlRecords() {
  std::vector<ControlRecordValue> out;
  p::LeaderChangeMessage leader;
  leader.version = 0;
  leader.leader_id = 1;
  leader.voters = {{1, {}, {}}, {2, {}, {}}, {3, {}, {}}};
  leader.granting_voters = {{1, {}, {}}, {3, {}, {}}};
  out.push_back(Control(ControlRecordType::kLeaderChange, leader));
  leader.version = 1;  // read at version 0, written as JSON at 1: zero directory ids
  out.push_back(Control(ControlRecordType::kLeaderChange, leader));
  leader.version = 9;
  out.push_back(Control(ControlRecordType::kLeaderChange, leader));
  p::SnapshotHeaderRecord header;
  header.last_contained_log_timestamp = kT0;
  out.push_back(Control(ControlRecordType::kSnapshotHeader, header));
  out.push_back(Control(ControlRecordType::kSnapshotFooter, p::SnapshotFooterRecord{}));
  p::KRaftVersionRecord kraft;
  kraft.k_raft_version = 1;
  out.push_back(Control(ControlRecordType::kKRaftVersion, kraft));
  p::VotersRecord voters;
  for (int32_t id = 1; id <= 2; ++id) {
    p::VotersRecord::Voter v;
    v.voter_id = id;
    v.voter_directory_id = Id(static_cast<uint8_t>(10 + id));
    v.endpoints.push_back({"CONTROLLER", "host-" + std::to_string(id) + "\"\\", 9093, {}});
    v.endpoints.push_back({"SSL", "h\xc3\xa9", 65535, {}});
    v.k_raft_version_feature.min_supported_version = 0;
    v.k_raft_version_feature.max_supported_version = 1;
    voters.voters.push_back(v);
  }
  out.push_back(Control(ControlRecordType::kKRaftVoters, voters));
  // A LeaderChange with bytes after the message: Kafka reads the message and ignores them.
  ControlRecordValue trailing = Control(ControlRecordType::kLeaderChange, leader);
  trailing.body.insert(trailing.body.end(), {1, 2, 3});
  out.push_back(trailing);
  // A control type Kafka does not know.
  out.push_back({static_cast<ControlRecordType>(7), {0, 0}});
  return out;
}

class SampleLog {
 public:
  explicit SampleLog(const std::string& dir) {
    seglog::LogOptions options;
    options.clock = [] { return kT0 + 100000; };
    log_ = Must(seglog::Log::Open(dir, seglog::LogConfig{}, options));
  }
  void Data(std::span<const MetadataRecordValue> records) {
    Append(Must(seglog::BuildMetadataBatch(log_->log_end_offset(), 3, kT0 + next_++, records)));
  }
  void Controls(std::span<const ControlRecordValue> records) {
    Append(Must(seglog::BuildControlBatch(log_->log_end_offset(), 3, kT0 + next_++, records)));
  }
  // A data record with a key and one with a null value (no KRaft writer makes either).
  void Odd() {
    seglog::BatchOptions o;
    o.base_offset = log_->log_end_offset();
    o.partition_leader_epoch = 3;
    seglog::RecordBatchBuilder b(o);
    const std::vector<uint8_t> no_op = {0};
    const std::vector<uint8_t> framed = seglog::FrameMetadataRecord(20, 0, no_op);
    const uint8_t key[] = {'k'};
    CHECK_OK(b.Append(kT0, seglog::NullableBytes(key), seglog::NullableBytes(framed)));
    CHECK_OK(b.Append(kT0, std::nullopt, std::nullopt));
    Append(Must(b.Build()));
  }
  void Close() { CHECK_OK(log_->Close()); }

 private:
  void Append(const std::vector<uint8_t>& batch) {
    CHECK_OK(log_->AppendWithAssignedOffsets(batch).status());
  }
  std::unique_ptr<seglog::Log> log_;
  int64_t next_ = 0;
};

std::vector<std::string> WriteSamples(const std::string& dir) {
  const std::string meta = dir + "/" + seglog::kMetadataPartitionDir;
  SampleLog log(meta);
  const std::vector<ControlRecordValue> controls = ControlRecords();
  log.Controls(std::span(controls).first(1));
  for (const auto& batch : SampleBatches()) log.Data(batch);
  log.Data(TextRecords());
  log.Controls(std::span(controls).subspan(1));
  log.Data(BadRecords());
  log.Odd();
  log.Close();

  std::vector<MetadataRecordValue> records;
  for (const auto& batch : SampleBatches()) {
    for (const MetadataRecordValue& r : batch) records.push_back(r);
  }
  const std::vector<ControlRecordValue> kraft = {controls[5], controls[6]};
  const seglog::SnapshotId id{4242, 3};
  CHECK_OK(seglog::WriteSnapshot(seglog::Env::Default(), meta, id, kT0 + 5, kT0 + 6, kraft, records,
                                 /*max_batch_bytes=*/4096));
  return {meta + "/00000000000000000000.log",
          meta + "/" + seglog::SnapshotName(id) + std::string(seglog::kSnapshotSuffix)};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  for (const std::string& f : WriteNode(dir + "/node")) std::printf("%s\n", f.c_str());
  for (const std::string& f : WriteSamples(dir + "/samples")) std::printf("%s\n", f.c_str());
  return 0;
}
