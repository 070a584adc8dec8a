#include "tools/dump_log.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "io/env.h"
#include "metadata/bootstrap.h"
#include "metadata/metadata_log.h"
#include "protocol/generated/partition_record.h"
#include "protocol/generated/topic_record.h"
#include "seglog/record_batch.h"
#include "tests/support/files.h"
#include "tests/support/source_path.h"

namespace seglog {
namespace {

const std::string kSourceDir = testing::SourcePath(".");
const std::string kDumpDir = kSourceDir + "/tests/data/dump";

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<uint8_t> SlurpBytes(const std::string& path) {
  const std::string s = Slurp(path);
  return {s.begin(), s.end()};
}

std::string ReplaceAll(std::string s, const std::string& from, const std::string& to) {
  for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size())) {
    s.replace(pos, from.size(), to);
  }
  return s;
}

// Kafka 4.4.0's DumpLogSegments --deep-iteration --print-data-log output for the golden
// segment (captured by interop/kafka/src/GoldenBatches.java) must equal ours line for line.
TEST(DumpLogTest, MatchesKafkaDumpLogSegmentsByteForByte) {
  const std::string dir = kSourceDir + "/tests/data/golden/";
  const std::string expected = Slurp(dir + "segment/dump.txt");
  ASSERT_FALSE(expected.empty());
  std::vector<uint8_t> bytes = SlurpBytes(dir + "segment/00000000000000000000.log");
  std::ostringstream out, err;
  DumpLogOptions o;
  o.print_data_log = true;
  Status s = DumpLogBytes("segment/00000000000000000000.log", bytes, o, out, err);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(out.str(), expected);
  EXPECT_EQ(err.str(), "");
}

TEST(DumpLogTest, ReportsTrailingPartialBatch) {
  std::vector<uint8_t> bytes =
      SlurpBytes(kSourceDir + "/tests/data/golden/segment/00000000000000000000.log");
  bytes.resize(bytes.size() - 5);
  std::ostringstream out, err;
  ASSERT_TRUE(DumpLogBytes("x/00000000000000000000.log", bytes, {}, out, err).ok());
  EXPECT_NE(out.str().find("Found 84 invalid bytes at the end of 00000000000000000000.log"),
            std::string::npos)
      << out.str();
}

TEST(DumpLogTest, MissingFileIsAnIOErrorNamingIt) {
  std::ostringstream out, err;
  Status s = DumpLogFile("/nonexistent/00000000000000000000.log", {}, out, err);
  EXPECT_TRUE(s.IsIOError());
  EXPECT_NE(s.ToString().find("/nonexistent/00000000000000000000.log"), std::string::npos);
  // Kafka prints these two lines before it fails to open the file.
  EXPECT_EQ(out.str(), "Dumping /nonexistent/00000000000000000000.log\nLog starting offset: 0\n");
}

TEST(DumpLogTest, MissingSiblingLogOfAnIndexIsAnIOError) {
  std::ostringstream out, err;
  Status s = DumpLogFile("/nonexistent/00000000000000000000.index", {}, out, err);
  EXPECT_TRUE(s.IsIOError());
  EXPECT_NE(s.ToString().find("/nonexistent/00000000000000000000.log"), std::string::npos);
}

TEST(DumpLogTest, FileNameWithoutABaseOffsetIsAnError) {
  std::ostringstream out, err;
  Status s = DumpLogFile(kDumpDir + "/index_ok/abc.index", {}, out, err);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("For input string: \"abc\""), std::string::npos) << s.ToString();
}

// A legacy entry whose key length runs past its end: the shallow line is still printed (as Kafka
// does, with isvalid: false), and deep iteration fails naming the file and the position.
TEST(DumpLogTest, CorruptLegacyEntryPrintsItsLineThenFailsDeepIteration) {
  std::vector<uint8_t> bytes = SlurpBytes(kSourceDir + "/tests/data/golden/batches/v1_none.bin");
  ASSERT_GT(bytes.size(), 50u);
  bytes[12 + 4 + 2 + 8 + 3] = 0x7f;  // first entry's keyLength: 2 -> 127
  std::ostringstream out, err;
  ASSERT_TRUE(DumpLogBytes("d/00000000000000000000.log", bytes, {}, out, err).ok());
  EXPECT_NE(out.str().find("offset: 0 position: 0 CreateTime: 1700000000000 size: 50 magic: 1 "
                           "compresscodec: none crc: 3877780182 isvalid: false\n"),
            std::string::npos)
      << out.str();

  std::ostringstream deep_out, deep_err;
  DumpLogOptions deep;
  deep.deep_iteration = true;
  Status s = DumpLogBytes("d/00000000000000000000.log", bytes, deep, deep_out, deep_err);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_NE(s.ToString().find("d/00000000000000000000.log"), std::string::npos) << s.ToString();
  EXPECT_NE(s.ToString().find("position 0"), std::string::npos) << s.ToString();
}

TEST(DumpLogTest, UnparseableLengthIsCorruptionNamingFileAndPosition) {
  std::vector<uint8_t> bytes =
      SlurpBytes(kSourceDir + "/tests/data/golden/batches/v0_none.bin");  // 42 + 50 + ...
  bytes[42 + 11] = 5;  // second entry's size field -> 5 (< 14)
  std::ostringstream out, err;
  Status s = DumpLogBytes("d/00000000000000000000.log", bytes, {}, out, err);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_NE(s.ToString().find("d/00000000000000000000.log"), std::string::npos) << s.ToString();
  EXPECT_NE(s.ToString().find("position 42"), std::string::npos) << s.ToString();
}

// --- The fixtures of tests/data/dump, rebuilt here from their definitions. ---

void PutBe(std::vector<uint8_t>* out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out->push_back(static_cast<uint8_t>(v >> (8 * i)));
}

// Offset index entries: (relative offset, position), 8 bytes each.
std::vector<uint8_t> OffsetIndex(std::vector<std::pair<int32_t, int32_t>> entries,
                                 std::vector<uint8_t> tail = {}) {
  std::vector<uint8_t> out;
  for (auto [rel, pos] : entries) {
    PutBe(&out, static_cast<uint32_t>(rel), 4);
    PutBe(&out, static_cast<uint32_t>(pos), 4);
  }
  out.insert(out.end(), tail.begin(), tail.end());
  return out;
}

// Time index entries: (timestamp, relative offset), 12 bytes each.
std::vector<uint8_t> TimeIndex(std::vector<std::pair<int64_t, int32_t>> entries,
                               std::vector<uint8_t> tail = {}) {
  std::vector<uint8_t> out;
  for (auto [ts, rel] : entries) {
    PutBe(&out, static_cast<uint64_t>(ts), 8);
    PutBe(&out, static_cast<uint32_t>(rel), 4);
  }
  out.insert(out.end(), tail.begin(), tail.end());
  return out;
}

TEST(DumpLogFixturesTest, IndexFilesAreTheHandBuiltBytes) {
  constexpr int64_t T = 1700000000000;
  struct Fixture {
    const char* dir;
    std::vector<uint8_t> index;
    std::vector<uint8_t> time_index;
  };
  // The golden segment's batches, as (lastOffset, position): (2,0) (4,221) (7,327) (9,474)
  // (12,596) (14,721) (15,814) (16,892); max timestamps T+lastOffset.
  const std::vector<Fixture> fixtures = {
      // Three good entries, then the zero-filled tail of a preallocated, untrimmed index.
      {"index_ok", OffsetIndex({{4, 221}, {9, 474}, {14, 721}, {0, 0}, {0, 0}, {0, 0}}),
       TimeIndex({{T + 4, 4}, {T + 9, 9}, {T + 14, 14}, {0, 0}, {0, 0}})},
      {"index_empty", {}, {}},
      // 8 and 16 point at batches ending at 9 and 7; the time index has a wrong timestamp
      // (T+5 for 7), an offset that is not a batch's last (8), a timestamp going back (T+8 for
      // 12) and an offset past the log (20).
      {"index_mismatch", OffsetIndex({{4, 221}, {8, 474}, {12, 596}, {16, 327}}),
       TimeIndex({{T + 4, 4}, {T + 5, 7}, {T + 9, 8}, {T + 8, 12}, {T + 20, 20}})},
      // Lengths that are not a multiple of the entry size (20 = 2*8+4, 30 = 2*12+6).
      {"index_corrupt", OffsetIndex({{4, 221}, {9, 474}}, {0, 0, 0, 7}),
       TimeIndex({{T + 4, 4}, {T + 9, 9}}, {0, 0, 0, 0, 0, 1})},
      // A last entry below the base offset.
      {"index_below_base", OffsetIndex({{4, 221}, {-1, 0}}), TimeIndex({{T + 4, 4}, {T + 9, -2}})},
      // The last timestamp is below the first one.
      {"timeindex_order", OffsetIndex({{4, 221}, {9, 474}, {14, 721}}),
       TimeIndex({{T + 9, 9}, {T + 14, 14}, {T + 4, 4}})},
      // The v1 segment: the gzip wrapper at position 178 ends at offset 3.
      {"legacy_v1", OffsetIndex({{3, 178}}), TimeIndex({{T + 2, 3}})},
  };
  for (const Fixture& f : fixtures) {
    SCOPED_TRACE(f.dir);
    const std::string base = kDumpDir + "/" + f.dir + "/00000000000000000000";
    EXPECT_EQ(SlurpBytes(base + ".index"), f.index);
    EXPECT_EQ(SlurpBytes(base + ".timeindex"), f.time_index);
  }
  // The logs are the golden segment and concatenations of golden legacy batches.
  const std::string golden = kSourceDir + "/tests/data/golden/";
  const std::vector<uint8_t> segment = SlurpBytes(golden + "segment/00000000000000000000.log");
  for (const char* dir : {"index_ok", "index_empty", "index_mismatch", "index_corrupt",
                          "index_below_base", "timeindex_order"}) {
    EXPECT_EQ(SlurpBytes(kDumpDir + "/" + dir + "/00000000000000000000.log"), segment) << dir;
  }
  auto concat = [&](std::vector<std::string> names) {
    std::vector<uint8_t> out;
    for (const std::string& n : names) {
      std::vector<uint8_t> b = SlurpBytes(golden + "batches/" + n + ".bin");
      out.insert(out.end(), b.begin(), b.end());
    }
    return out;
  };
  EXPECT_EQ(SlurpBytes(kDumpDir + "/legacy_v1/00000000000000000000.log"),
            concat({"v1_none", "v1_gzip", "v1_lz4_logappendtime", "v1_snappy_base1000"}));
  EXPECT_EQ(SlurpBytes(kDumpDir + "/legacy_v0/00000000000000000000.log"),
            concat({"v0_none", "v0_gzip", "v0_snappy", "v0_lz4"}));
}

// --- Every run of tests/data/dump/cases.txt against Kafka's captured output. ---

struct DumpCase {
  std::string name;
  std::vector<std::string> args;  // @DIR@ already replaced
};

std::vector<DumpCase> LoadCases() {
  std::vector<DumpCase> cases;
  std::istringstream lines(Slurp(kDumpDir + "/cases.txt"));
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(ReplaceAll(line, "@DIR@", kDumpDir));
    DumpCase c;
    words >> c.name;
    for (std::string w; words >> w;) c.args.push_back(w);
    cases.push_back(std::move(c));
  }
  return cases;
}

// The few DumpLogSegments options cases.txt uses, parsed as the CLI does.
void ParseArgs(const std::vector<std::string>& args, DumpLogOptions* o,
               std::vector<std::string>* files) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--deep-iteration") {
      o->deep_iteration = true;
    } else if (a == "--print-data-log") {
      o->print_data_log = true;
    } else if (a == "--verify-index-only") {
      o->verify_index_only = true;
    } else if (a == "--offsets-decoder") {
      o->offsets_decoder = true;
    } else if (a == "--share-group-state-decoder") {
      o->share_group_state_decoder = true;
    } else if (a == "--transaction-log-decoder") {
      o->transaction_log_decoder = true;
    } else if (a == "--index-sanity-check") {
      o->index_sanity_check = true;
    } else if (a == "--max-bytes" && i + 1 < args.size()) {
      o->max_bytes = std::stoi(args[++i]);
    } else if (a == "--max-message-size" && i + 1 < args.size()) {
      o->max_message_size = std::stoi(args[++i]);
    } else if (a == "--files" && i + 1 < args.size()) {
      std::istringstream list(args[++i]);
      for (std::string f; std::getline(list, f, ',');) files->push_back(f);
    } else {
      ADD_FAILURE() << "cases.txt: unknown argument " << a;
    }
  }
}

// Kafka prints its end-of-run reports per category (index mismatches, timestamp mismatches,
// out-of-order timestamps, offsets not found, non-consecutive offsets) and, within a category,
// one block per file in java.util.HashMap order of the absolute path - which changes with the
// checkout's location. This keeps the category order and sorts the blocks within each category
// (docs/format/dump_log.md).
std::string NormalizeReports(const std::string& err) {
  static const char* kHeaders[] = {"Ignoring unknown file",
                                   "Mismatches in",
                                   "Found timestamp mismatch in",
                                   "Found out of order timestamp in",
                                   "The following indexed offsets are not found in",
                                   "Non-consecutive offsets in"};
  auto kind = [](const std::string& line) -> int {
    for (int i = 0; i < 6; ++i) {
      if (line.rfind(kHeaders[i], 0) == 0) return i;
    }
    return -1;
  };
  std::vector<std::pair<int, std::string>> blocks;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);) {
    const int k = kind(line);
    if (k >= 0 || blocks.empty()) {
      blocks.emplace_back(k, line + "\n");
    } else {
      blocks.back().second += line + "\n";
    }
  }
  // Sort blocks within each run of the same kind.
  for (size_t i = 0; i < blocks.size();) {
    size_t j = i;
    while (j < blocks.size() && blocks[j].first == blocks[i].first) ++j;
    if (blocks[i].first > 0) std::sort(blocks.begin() + i, blocks.begin() + j);
    i = j;
  }
  std::string out;
  for (const auto& b : blocks) out += b.second;
  return out;
}

class KafkaCapturedDumpTest : public ::testing::TestWithParam<DumpCase> {};

TEST_P(KafkaCapturedDumpTest, StdoutAndStderrMatchKafka) {
  const DumpCase& c = GetParam();
  const std::string expected_out =
      ReplaceAll(Slurp(kDumpDir + "/expected/" + c.name + ".stdout.txt"), "@DIR@", kDumpDir);
  const std::string expected_err =
      ReplaceAll(Slurp(kDumpDir + "/expected/" + c.name + ".stderr.txt"), "@DIR@", kDumpDir);
  DumpLogOptions options;
  std::vector<std::string> files;
  ParseArgs(c.args, &options, &files);
  ASSERT_FALSE(files.empty());

  std::ostringstream out, err;
  Status s = DumpFiles(files, options, out, err);
  EXPECT_EQ(out.str(), expected_out);
  const std::string kUncaught = "Exception in thread \"main\" ";
  if (expected_err.rfind(kUncaught, 0) == 0) {
    // Kafka died with an exception: "<prefix><class>: <message>" then its stack trace. Ours is a
    // Status carrying the same message; nothing else goes to stderr (no end-of-run reports).
    const std::string first_line = expected_err.substr(0, expected_err.find('\n'));
    const size_t colon = first_line.find(": ", kUncaught.size());
    ASSERT_NE(colon, std::string::npos);
    EXPECT_FALSE(s.ok());
    EXPECT_EQ(std::string(s.message()), first_line.substr(colon + 2));
    EXPECT_EQ(err.str(), "");
  } else {
    EXPECT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(NormalizeReports(err.str()), NormalizeReports(expected_err));
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, KafkaCapturedDumpTest, ::testing::ValuesIn(LoadCases()),
                         [](const ::testing::TestParamInfo<DumpCase>& param_info) {
                           return param_info.param.name;
                         });

TEST(KafkaCapturedDumpCasesTest, AllCasesAreLoaded) { EXPECT_EQ(LoadCases().size(), 34u); }

// --- KRaft's metadata log and snapshots (__cluster_metadata-0) ---

const std::string kClusterMetadataDir = kSourceDir + "/tests/data/cluster_metadata";

// Kafka 4.4.0's DumpLogSegments over a metadata log and two snapshots a Kafka broker wrote
// (interop/kafka/broker/make_metadata_fixture.sh), captured with --cluster-metadata-decoder and
// with --deep-iteration alone (the control records' JSON), must equal ours line for line.
TEST(DumpClusterMetadataTest, KafkaWrittenFilesPrintAsKafkaPrintsThem) {
  const std::vector<std::string> files = {
      kClusterMetadataDir + "/kafka/00000000000000000000.log",
      kClusterMetadataDir + "/kafka/00000000000000000000-0000000000.checkpoint",
      kClusterMetadataDir + "/kafka/00000000000000000205-0000000001.checkpoint"};
  for (const bool decoder : {true, false}) {
    SCOPED_TRACE(decoder ? "--cluster-metadata-decoder" : "--deep-iteration");
    DumpLogOptions o;
    o.cluster_metadata_decoder = decoder;
    o.deep_iteration = !decoder;
    std::ostringstream out, err;
    Status s = DumpFiles(files, o, out, err);
    ASSERT_TRUE(s.ok()) << s.ToString();
    const std::string expected =
        Slurp(kClusterMetadataDir + (decoder ? "/kafka.decoder.txt" : "/kafka.deep.txt"));
    ASSERT_FALSE(expected.empty());
    // Kafka ran in tests/data/cluster_metadata on kafka/<file>.
    const std::string ours = ReplaceAll(out.str(), kClusterMetadataDir + "/", "");
    std::istringstream want(expected), got(ours);
    int line = 0;
    for (std::string w, g; std::getline(want, w);) {
      ++line;
      ASSERT_TRUE(std::getline(got, g)) << "seglog stops before line " << line;
      ASSERT_EQ(g, w) << "line " << line;
    }
    EXPECT_EQ(ours, expected);
    EXPECT_EQ(err.str(), "");
  }
}

Uuid TestId(uint8_t seed) {
  Uuid u;
  for (int i = 0; i < 16; ++i) u.bytes[i] = static_cast<uint8_t>(seed * 16 + i);
  return u;
}

// A metadata log seglog's MetadataLog writes (a standalone bootstrap, a leader change, a topic)
// and its snapshot, dumped with --cluster-metadata-decoder: Kafka's lines, the JSON of each
// record as Kafka's JsonConverters write it (interop.kafka_dumps_seglog_cluster_metadata runs
// Kafka's DumpLogSegments on such files too).
TEST(DumpClusterMetadataTest, SeglogMetadataLogDecodesAsKafkaDoes) {
  testing::TempDir dir;
  StandaloneVoter voter;
  voter.directory_id = TestId(1);
  voter.host = "localhost";
  voter.port = 9093;
  constexpr int64_t kT0 = 1796000000000;
  ASSERT_TRUE(
      WriteBootstrapSnapshot(Env::Default(), dir.path(), {{"metadata.version", 33}}, kT0, voter)
          .ok());
  MetadataLogOptions options;
  options.clock = [] { return kT0 + 5; };
  auto log = MetadataLog::Open(dir.path(), options);
  ASSERT_TRUE(log.ok()) << log.status().ToString();
  ASSERT_TRUE((*log)->BecomeLeader().ok());
  protocol::TopicRecord topic;
  topic.name = "orders \"é\"";
  topic.topic_id = TestId(2);
  protocol::PartitionRecord partition;
  partition.partition_id = 0;
  partition.topic_id = TestId(2);
  partition.leader_epoch = 0;
  partition.partition_epoch = 0;
  partition.replicas = {1};
  partition.isr = {1};
  partition.leader = 1;
  partition.directories = {TestId(1)};
  std::vector<MetadataRecordValue> records = {*EncodeMetadataRecord(topic),
                                              *EncodeMetadataRecord(partition)};
  ASSERT_TRUE((*log)->Append(records).ok());
  ASSERT_TRUE((*log)->Snapshot().ok());
  const int64_t end = (*log)->end_offset();
  ASSERT_TRUE((*log)->Close().ok());

  const std::string meta = dir.path() + "/__cluster_metadata-0/";
  const std::string snapshot = meta + SnapshotName({end, 1}) + ".checkpoint";
  std::ostringstream out, err;
  DumpLogOptions o;
  o.cluster_metadata_decoder = true;
  const std::vector<std::string> files = {meta + "00000000000000000000.log", snapshot};
  Status s = DumpFiles(files, o, out, err);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const std::string text = out.str();
  const std::string topic_id = TestId(2).ToString();
  const std::string dir_id = TestId(1).ToString();
  for (const std::string& want : std::vector<std::string>{
           "Dumping " + meta + "00000000000000000000.log\nLog starting offset: 0\n",
           "| offset: 0 CreateTime: 1796000000005 keySize: 4 valueSize: 19 sequence: -1 "
           "headerKeys: [] LeaderChange: "
           "{\"version\":0,\"leaderId\":1,\"voters\":[{\"voterId\":1}],\"grantingVoters\":[{"
           "\"voterId\":1}]}\n",
           "headerKeys: [] payload: {\"type\":\"BEGIN_TRANSACTION_RECORD\",\"version\":0,"
           "\"data\":{\"name\":\"Bootstrap records\"}}\n",
           "headerKeys: [] payload: {\"type\":\"FEATURE_LEVEL_RECORD\",\"version\":0,\"data\":{"
           "\"name\":\"metadata.version\",\"featureLevel\":33}}\n",
           "headerKeys: [] payload: {\"type\":\"TOPIC_RECORD\",\"version\":0,\"data\":{\"name\":"
           "\"orders \\\"é\\\"\",\"topicId\":\"" +
               topic_id + "\"}}\n",
           "headerKeys: [] payload: {\"type\":\"PARTITION_RECORD\",\"version\":2,\"data\":{"
           "\"partitionId\":0,\"topicId\":\"" +
               topic_id +
               "\",\"replicas\":[1],\"isr\":[1],\"removingReplicas\":[],\"addingReplicas\":[],"
               "\"leader\":1,\"leaderEpoch\":0,\"partitionEpoch\":0,\"directories\":[\"" +
               dir_id + "\"]}}\n",
           "Dumping " + snapshot + "\nSnapshot end offset: " + std::to_string(end) + ", epoch: 1\n",
           "headerKeys: [] SnapshotHeader {\"version\":0,\"lastContainedLogTimestamp\":"
           "1796000000005}\n",
           "headerKeys: [] KRaftVersion {\"version\":0,\"kRaftVersion\":1}\n",
           "headerKeys: [] KRaftVoters {\"version\":0,\"voters\":[{\"voterId\":1,"
           "\"voterDirectoryId\":\"" +
               dir_id +
               "\",\"endpoints\":[{\"name\":\"CONTROLLER\",\"host\":\"localhost\",\"port\":9093}],"
               "\"kRaftVersionFeature\":{\"minSupportedVersion\":0,\"maxSupportedVersion\":1}}]}\n",
           "headerKeys: [] SnapshotFooter {\"version\":0}\n"}) {
    EXPECT_NE(text.find(want), std::string::npos) << want << "\nnot in:\n" << text;
  }
  EXPECT_EQ(text.find("Error at"), std::string::npos) << text;
  EXPECT_EQ(err.str(), "");

  // Without the decoder the control records are still JSON, the data records bare.
  std::ostringstream deep_out, deep_err;
  DumpLogOptions deep;
  deep.deep_iteration = true;
  ASSERT_TRUE(DumpFiles(files, deep, deep_out, deep_err).ok());
  EXPECT_NE(deep_out.str().find(" LeaderChange: {\"version\":0,"), std::string::npos);
  EXPECT_EQ(deep_out.str().find("payload"), std::string::npos);
}

// One v2 batch of `values` (control or data) at offset 0, as a .log file's bytes.
std::vector<uint8_t> Batch(bool control,
                           const std::vector<std::pair<NullableBytes, NullableBytes>>& kv) {
  BatchOptions o;
  o.is_control = control;
  RecordBatchBuilder b(o);
  for (const auto& [k, v] : kv) EXPECT_TRUE(b.Append(1796000000000, k, v).ok());
  auto built = b.Build();
  EXPECT_TRUE(built.ok());
  return *built;
}

// Values Kafka's MetadataRecordSerde cannot read print Kafka's "Error at" payload, one line each,
// and the dump goes on.
TEST(DumpClusterMetadataTest, UndecodableRecordsPrintKafkasErrorLine) {
  const std::vector<uint8_t> empty, frame0 = {0}, unknown = {1, 99, 0}, garbage = {1, 20, 0, 0, 7};
  std::vector<uint8_t> bytes = Batch(false, {{std::nullopt, Bytes(empty)},
                                             {std::nullopt, Bytes(frame0)},
                                             {std::nullopt, Bytes(unknown)},
                                             {std::nullopt, Bytes(garbage)},
                                             {std::nullopt, std::nullopt}});
  DumpLogOptions o;
  o.cluster_metadata_decoder = true;
  std::ostringstream out, err;
  ASSERT_TRUE(DumpLogBytes("m/00000000000000000000.log", bytes, o, out, err).ok());
  const std::string text = out.str();
  for (const char* want :
       {"valueSize: 0 sequence: -1 headerKeys: [] payload: Error at 0, skipping. Error while "
        "reading frame version\n",
        "payload: Error at 1, skipping. Could not deserialize metadata record with frame "
        "version 0. Note that upgrades from the preview release of KRaft in 2.8 to newer "
        "versions are not supported.\n",
        "payload: Error at 2, skipping. org.apache.kafka.common.errors."
        "UnsupportedVersionException: Unknown metadata id 99\n",
        "payload: Error at 3, skipping. Found 1 byte(s) of garbage after 20\n",
        "valueSize: -1 sequence: -1 headerKeys: [] payload: Error at 4, skipping. Error while "
        "reading frame version\n"}) {
    EXPECT_NE(text.find(want), std::string::npos) << want << "\nnot in:\n" << text;
  }
}

// A KRaft control record whose value does not decode stops the dump, as Kafka's exception does,
// after the record's metadata (printed without its line end, as Kafka leaves it).
TEST(DumpClusterMetadataTest, UndecodableControlRecordStopsTheDump) {
  const uint8_t key[] = {0, 0, 0, 2};  // LEADER_CHANGE
  const uint8_t value[] = {0, 0, 0};   // Version 0, then nothing of leaderId
  std::vector<uint8_t> bytes = Batch(true, {{Bytes(key), Bytes(value)}});
  DumpLogOptions o;
  o.deep_iteration = true;
  std::ostringstream out, err;
  Status s = DumpLogBytes("m/00000000000000000000.log", bytes, o, out, err);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("LEADER_CHANGE"), std::string::npos) << s.ToString();
  EXPECT_TRUE(out.str().ends_with("keySize: 4 valueSize: 3 sequence: -1 headerKeys: []"))
      << out.str();
}

// .checkpoint names as Kafka's Snapshots.parse reads them: the bootstrap snapshot by its name,
// else 20 digits of end offset and 10 of epoch at fixed places, with Java's exception messages.
TEST(DumpClusterMetadataTest, SnapshotNamesAsKafkaReadsThem) {
  testing::TempDir dir;
  const std::vector<uint8_t> snapshot =
      SlurpBytes(kClusterMetadataDir + "/kafka/00000000000000000000-0000000000.checkpoint");
  ASSERT_FALSE(snapshot.empty());
  auto dump = [&](const std::string& name, std::string* out_text) {
    const std::string path = dir.path() + "/" + name;
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(snapshot.data()),
               static_cast<std::streamsize>(snapshot.size()));
    std::ostringstream out, err;
    Status s = DumpLogFile(path, {}, out, err);
    *out_text = ReplaceAll(out.str(), dir.path() + "/", "");
    return s;
  };
  std::string text;
  ASSERT_TRUE(dump("bootstrap.checkpoint", &text).ok());
  EXPECT_EQ(text.substr(0, text.find("baseOffset")),
            "Dumping bootstrap.checkpoint\nKRaft bootstrap snapshot\n");
  ASSERT_TRUE(dump("00000000000000000012-0000000007-x.checkpoint", &text).ok());
  EXPECT_NE(text.find("\nSnapshot end offset: 12, epoch: 7\nbaseOffset: 0"), std::string::npos);
  EXPECT_EQ(dump("abc.checkpoint", &text).message(), "begin 0, end 20, length 14");
  EXPECT_EQ(text, "Dumping abc.checkpoint\n");
  EXPECT_EQ(dump("0000000000000000000a-0000000000.checkpoint", &text).message(),
            "For input string: \"0000000000000000000a\"");
  EXPECT_EQ(dump("00000000000000000012-00000000xy.checkpoint", &text).message(),
            "For input string: \"00000000xy\"");
}

}  // namespace
}  // namespace seglog
