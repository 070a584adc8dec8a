// The fixtures of the coordinators' topics (--offsets-decoder, --share-group-state-decoder and
// --transaction-log-decoder, tools/coordinator_record_text.h) are built from the generated
// samples of every record (message_samples.h), which the tsan preset does not build: these
// tests live apart from dump_log_test.cc and are left out there. KafkaCapturedDumpTest
// (dump_log_test.cc) compares seglog's output on the fixtures with Kafka's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "protocol/generated/consumer_protocol_assignment.h"
#include "protocol/generated/consumer_protocol_subscription.h"
#include "protocol/generated/coordinator_records.h"
#include "protocol/generated/group_metadata_value.h"
#include "protocol/generated/message_samples.h"
#include "protocol/generated/transaction_log_value.h"
#include "protocol/protocol_writer.h"
#include "seglog/record_batch.h"
#include "tests/support/files.h"
#include "tests/support/source_path.h"

namespace seglog {
namespace {

const std::string kDumpDir = testing::SourcePath(".") + "/tests/data/dump";

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The generated sample of schema `name` at `version` (message_samples.h), every field filled.
std::vector<uint8_t> Sample(std::string_view name, int16_t version, uint32_t seed = 7) {
  for (const auto& c : protocol::testing::AllMessageCases()) {
    if (c.name != name) continue;
    std::vector<uint8_t> bytes;
    EXPECT_TRUE(c.encode_sample(version, seed, &bytes).ok()) << name << " v" << version;
    return bytes;
  }
  ADD_FAILURE() << "no sample of " << name;
  return {};
}

// An int16 (a record type or version) then `body`, as a coordinator's key or value holds them.
std::vector<uint8_t> Prefixed(int16_t prefix, std::span<const uint8_t> body) {
  std::vector<uint8_t> out = {static_cast<uint8_t>(static_cast<uint16_t>(prefix) >> 8),
                              static_cast<uint8_t>(prefix)};
  out.reserve(2 + body.size());
  for (const uint8_t b : body) out.push_back(b);  // (insert trips GCC 12's -Warray-bounds)
  return out;
}

template <typename T>
std::vector<uint8_t> EncodeMessage(const T& message, int16_t version) {
  protocol::ProtocolWriter writer;
  EXPECT_TRUE(message.Encode(&writer, version).ok());
  std::vector<uint8_t> out;
  EXPECT_TRUE(writer.Flatten(&out).ok());
  return out;
}

// The records of the fixture for `coordinator`'s topic: every record type's key and value at
// every value version, filled by the samples, then a tombstone of each type, then records Kafka
// cannot decode: a key too short for its type, an unknown type, a key without its fields, a value
// version past the type's, a value cut inside its first (fixed-width) field.
std::vector<std::vector<uint8_t>> CoordinatorRecords(protocol::Coordinator coordinator,
                                                     int16_t cut_type) {
  std::vector<std::pair<std::vector<uint8_t>, std::optional<std::vector<uint8_t>>>> kv;
  std::vector<int16_t> types;
  for (const auto& info : protocol::AllCoordinatorRecords()) {
    if (info.coordinator != coordinator || info.is_key) continue;
    const auto* key_info = protocol::FindCoordinatorRecord(coordinator, info.record_type, true);
    const std::vector<uint8_t> key = Prefixed(info.record_type, Sample(key_info->name, 0));
    for (int16_t v = info.lowest_version; v <= info.highest_version; ++v) {
      kv.emplace_back(key, Prefixed(v, Sample(info.name, v)));
    }
    types.push_back(info.record_type);
  }
  for (int16_t t : types) {
    const auto* key_info = protocol::FindCoordinatorRecord(coordinator, t, true);
    kv.emplace_back(Prefixed(t, Sample(key_info->name, 0, 11)), std::nullopt);
  }
  const auto* cut_info = protocol::FindCoordinatorRecord(coordinator, cut_type, false);
  const auto* cut_key_info = protocol::FindCoordinatorRecord(coordinator, cut_type, true);
  const std::vector<uint8_t> cut_key = Prefixed(cut_type, Sample(cut_key_info->name, 0));
  const std::vector<uint8_t> one = {0};
  kv.emplace_back(one, Prefixed(0, Sample(cut_info->name, cut_info->lowest_version)));
  kv.emplace_back(Prefixed(99, Sample(cut_key_info->name, 0)), std::vector<uint8_t>{0, 0});
  kv.emplace_back(Prefixed(cut_type, {}), std::vector<uint8_t>{0, 0});
  kv.emplace_back(cut_key, Prefixed(cut_info->highest_version + 1, {}));
  kv.emplace_back(cut_key,
                  std::vector<uint8_t>{0, static_cast<uint8_t>(cut_info->lowest_version), 1});
  kv.emplace_back(cut_key, std::vector<uint8_t>{0});
  std::vector<std::vector<uint8_t>> out;
  for (auto& [k, v] : kv) {
    out.push_back(std::move(k));
    out.push_back(v ? std::move(*v) : std::vector<uint8_t>{0xff});  // 0xff: no value
  }
  return out;
}

// The group coordinator's extra records: a "consumer" group whose members' subscription and
// assignment Kafka prints as JSON (one member's bytes do not decode and stay Base64), and a
// transaction log value with a known and an unknown transactionStatus.
std::vector<std::vector<uint8_t>> GroupMetadataRecords() {
  protocol::GroupMetadataValue value;
  auto parsed = protocol::GroupMetadataValue::Parse(Sample("GroupMetadataValue", 3), 3);
  EXPECT_TRUE(parsed.ok());
  value = *parsed;
  value.protocol_type = "consumer";
  EXPECT_FALSE(value.members.empty());
  value.members.push_back(value.members.front());
  value.members[0].subscription = Prefixed(1, Sample("ConsumerProtocolSubscription", 1));
  value.members[0].assignment = Prefixed(3, Sample("ConsumerProtocolAssignment", 3));
  value.members[1].subscription = {0};
  value.members[1].assignment = Prefixed(0, Sample("ConsumerProtocolAssignment", 0));
  return {Prefixed(2, Sample("GroupMetadataKey", 0)), Prefixed(3, EncodeMessage(value, 3))};
}

std::vector<std::vector<uint8_t>> TransactionStatusRecords() {
  std::vector<std::vector<uint8_t>> out;
  for (int8_t status : {4, 42}) {
    auto parsed = protocol::TransactionLogValue::Parse(Sample("TransactionLogValue", 1), 1);
    EXPECT_TRUE(parsed.ok());
    protocol::TransactionLogValue value = *parsed;
    value.transaction_status = status;
    out.push_back(Prefixed(0, Sample("TransactionLogKey", 0)));
    out.push_back(Prefixed(1, EncodeMessage(value, 1)));
  }
  return out;
}

// A .log of the key/value pairs (a lone 0xff value: null), 8 records a batch.
std::vector<uint8_t> CoordinatorLog(const std::vector<std::vector<uint8_t>>& flat,
                                    bool missing_key = false) {
  std::vector<uint8_t> log;
  int64_t base = 0;
  for (size_t i = 0; i < flat.size(); i += 16) {
    BatchOptions o;
    o.base_offset = base;
    RecordBatchBuilder b(o);
    for (size_t j = i; j < std::min(flat.size(), i + 16); j += 2) {
      const NullableBytes v = flat[j + 1] == std::vector<uint8_t>{0xff}
                                  ? NullableBytes()
                                  : NullableBytes(Bytes(flat[j + 1]));
      EXPECT_TRUE(b.Append(1796000000000, Bytes(flat[j]), v).ok());
      ++base;
    }
    auto built = b.Build();
    EXPECT_TRUE(built.ok());
    log.insert(log.end(), built->begin(), built->end());
  }
  if (missing_key) {
    BatchOptions o;
    o.base_offset = base;
    RecordBatchBuilder b(o);
    const uint8_t v[] = {0, 0};
    EXPECT_TRUE(b.Append(1796000000000, std::nullopt, Bytes(v)).ok());
    auto built = b.Build();
    log.insert(log.end(), built->begin(), built->end());
  }
  return log;
}

std::vector<std::pair<std::string, std::vector<uint8_t>>> CoordinatorFixtures() {
  auto offsets = CoordinatorRecords(protocol::Coordinator::kGroup, 1);
  for (auto& r : GroupMetadataRecords()) offsets.push_back(std::move(r));
  auto txn = CoordinatorRecords(protocol::Coordinator::kTransaction, 0);
  for (auto& r : TransactionStatusRecords()) txn.push_back(std::move(r));
  return {{"coord_offsets", CoordinatorLog(offsets)},
          {"coord_share", CoordinatorLog(CoordinatorRecords(protocol::Coordinator::kShare, 0))},
          {"coord_txn", CoordinatorLog(txn)},
          {"coord_nokey", CoordinatorLog(GroupMetadataRecords(), /*missing_key=*/true)}};
}

// The coordinator fixtures of cases.txt are the records built above (so what they cover is
// stated here); SEGLOG_WRITE_DUMP_FIXTURES=1 writes them (then re-run capture.sh).
TEST(DumpCoordinatorFixturesTest, LogsAreTheBuiltRecords) {
  for (const auto& [dir, bytes] : CoordinatorFixtures()) {
    const std::string path = kDumpDir + "/" + dir + "/00000000000000000000.log";
    if (std::getenv("SEGLOG_WRITE_DUMP_FIXTURES") != nullptr) {
      std::filesystem::create_directories(kDumpDir + "/" + dir);
      std::ofstream(path, std::ios::binary)
          .write(reinterpret_cast<const char*>(bytes.data()),
                 static_cast<std::streamsize>(bytes.size()));
    }
    EXPECT_EQ(testing::ReadFileBytes(path), bytes) << path;
  }
}

// Spot checks of the captured cases (KafkaCapturedDumpTest compares all of their bytes): the
// shapes Kafka prints, which a re-capture must keep.
TEST(DumpCoordinatorFixturesTest, KafkaPrintsKeysAndValuesAsTypedJson) {
  const std::string share = Slurp(kDumpDir + "/expected/share_group_state_decoder.stdout.txt");
  for (const char* want :
       {" key: {\"type\":\"0\",\"data\":{\"groupId\":", " payload: {\"version\":\"0\",\"data\":{",
        " key: {\"type\":\"1\",\"data\":{", " payload: <DELETE>\n", " key: Error at offset ",
        "skipping. Could not read version from key's buffer.\n",
        " key: Unknown record type 99 at offset ",
        "skipping. Found an unknown record version 1 for 0 type\n",
        "skipping. Could not read record with version 0 from value's buffer due to: null.\n",
        "skipping. Could not read version from value's buffer.\n"}) {
    EXPECT_NE(share.find(want), std::string::npos) << want;
  }
  const std::string offsets = Slurp(kDumpDir + "/expected/offsets_decoder.stdout.txt");
  for (const char* want :
       {" key: {\"type\":\"23\",", " key: {\"type\":\"15\",", "\"subscription\":{\"topics\":["}) {
    EXPECT_NE(offsets.find(want), std::string::npos) << want;
  }
  const std::string txn = Slurp(kDumpDir + "/expected/transaction_log_decoder.stdout.txt");
  for (const char* want :
       {"\"transactionStatus\":\"CompleteCommit\"", "\"transactionStatus\":\"42\""}) {
    EXPECT_NE(txn.find(want), std::string::npos) << want;
  }
}

}  // namespace
}  // namespace seglog
