// seglog_write_vectors OUTDIR: writes record batches built by seglog for every codec and flag
// combination, plus a manifest.json of what each batch is meant to contain, in the schema of
// interop/kafka/src/VerifyBatches.java. The `interop` ctest label then has Kafka 4.4.0's own
// classes read every batch back and compare it with the intent (not with our decoder), and has
// Kafka's DumpLogSegments read OUTDIR/segment/00000000000000000000.log.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "seglog/record_batch.h"

namespace seglog {
namespace {

using nlohmann::json;

std::string Base64(Bytes b) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < b.size(); i += 3) {
    const uint32_t v = (uint32_t{b[i]} << 16) | (uint32_t{b[i + 1]} << 8) | b[i + 2];
    out += {k[v >> 18], k[(v >> 12) & 63], k[(v >> 6) & 63], k[v & 63]};
  }
  if (b.size() - i == 1) {
    const uint32_t v = uint32_t{b[i]} << 16;
    out += {k[v >> 18], k[(v >> 12) & 63], '=', '='};
  } else if (b.size() - i == 2) {
    const uint32_t v = (uint32_t{b[i]} << 16) | (uint32_t{b[i + 1]} << 8);
    out += {k[v >> 18], k[(v >> 12) & 63], k[(v >> 6) & 63], '='};
  }
  return out;
}

json Nullable(const NullableBytes& b) { return b ? json(Base64(*b)) : json(nullptr); }

struct InRecord {
  int64_t timestamp;
  std::optional<std::string> key, value;
  std::vector<std::pair<std::string, std::optional<std::string>>> headers = {};
};

NullableBytes View(const std::optional<std::string>& s) {
  if (!s) return std::nullopt;
  return Bytes(reinterpret_cast<const uint8_t*>(s->data()), s->size());
}

// Builds one batch and its intended manifest entry.
json Build(const BatchOptions& o, const std::vector<InRecord>& recs, std::vector<uint8_t>* out) {
  RecordBatchBuilder b(o);
  json jrecs = json::array();
  int64_t max_ts = -1;
  for (size_t i = 0; i < recs.size(); ++i) {
    const InRecord& r = recs[i];
    std::vector<Header> headers;
    json jh = json::array();
    for (const auto& [k, v] : r.headers) {
      headers.push_back(Header{k, View(v)});
      jh.push_back({{"key", k}, {"value", Nullable(View(v))}});
    }
    Status s = b.Append(r.timestamp, View(r.key), View(r.value), headers);
    if (!s.ok()) {
      std::cerr << s.ToString() << "\n";
      std::exit(1);
    }
    max_ts = std::max(max_ts, r.timestamp);
    const int64_t offset = o.base_offset + static_cast<int64_t>(i);
    int32_t seq = -1;
    if (o.base_sequence >= 0) {
      seq = static_cast<int32_t>((int64_t{o.base_sequence} + static_cast<int64_t>(i)) %
                                 (int64_t{INT32_MAX} + 1));
    }
    const bool lat = o.timestamp_type == TimestampType::kLogAppendTime;
    jrecs.push_back({{"offset", offset},
                     {"timestamp", lat ? o.log_append_time : r.timestamp},
                     {"sequence", seq},
                     {"key", Nullable(View(r.key))},
                     {"value", Nullable(View(r.value))},
                     {"headers", jh}});
  }
  auto built = b.Build();
  if (!built.ok()) {
    std::cerr << built.status().ToString() << "\n";
    std::exit(1);
  }
  out->insert(out->end(), built->begin(), built->end());
  const int64_t last = o.base_offset + static_cast<int64_t>(recs.size()) - 1;
  json jb = {{"magic", 2},
             {"baseOffset", o.base_offset},
             {"lastOffset", last},
             {"partitionLeaderEpoch", o.partition_leader_epoch},
             {"compression", std::string(CompressionName(o.compression))},
             {"timestampType", std::string(TimestampTypeName(o.timestamp_type))},
             {"maxTimestamp",
              o.timestamp_type == TimestampType::kLogAppendTime ? o.log_append_time : max_ts},
             {"producerId", o.producer_id},
             {"producerEpoch", o.producer_epoch},
             {"baseSequence", o.base_sequence},
             {"isTransactional", o.is_transactional},
             {"isControl", o.is_control},
             {"deleteHorizonMs", o.delete_horizon_ms ? json(*o.delete_horizon_ms) : json(nullptr)},
             {"recordCount", recs.size()},
             {"records", jrecs}};
  return jb;
}

int Main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: seglog_write_vectors OUTDIR\n";
    return 2;
  }
  namespace fs = std::filesystem;
  const fs::path dir = argv[1];
  fs::create_directories(dir / "batches");
  fs::create_directories(dir / "segment");
  json manifest = json::array();
  std::mt19937 rng(20261129);
  std::string large;
  for (int i = 0; i < 150000; ++i)
    large += static_cast<char>('a' + (rng() % 7 == 0 ? rng() % 26 : i % 13));
  const int64_t t0 = 1700000000000;

  std::vector<uint8_t> segment;
  json segment_batches = json::array();
  int64_t next_offset = 0;

  const CompressionType codecs[] = {CompressionType::kNone, CompressionType::kGzip,
                                    CompressionType::kSnappy, CompressionType::kLz4,
                                    CompressionType::kZstd};
  for (CompressionType c : codecs) {
    const std::string cn(CompressionName(c));
    struct Case {
      std::string name;
      BatchOptions o;
      std::vector<InRecord> recs;
    };
    std::vector<Case> cases;
    BatchOptions base;
    base.compression = c;
    base.partition_leader_epoch = 0;
    cases.push_back({"plain",
                     base,
                     {{t0, "k", "v"},
                      {t0 + 5, std::nullopt, "no key"},
                      {t0 - 3, "", ""},
                      {t0 + 1, "tomb", std::nullopt}}});
    cases.push_back(
        {"headers",
         base,
         {{t0, "hk", "hv", {{"a", "1"}, {"nul", std::nullopt}, {"empty", ""}, {"", "x"}}}}});
    cases.push_back({"large", base, {{t0, "big", large}, {t0 + 1, "big2", large.substr(7)}}});
    std::vector<InRecord> many;
    for (int i = 0; i < 1000; ++i) {
      many.push_back(
          {t0 + (i * 37) % 1000, "key-" + std::to_string(i % 50),
           "value-" + std::to_string(i) + std::string(static_cast<size_t>(i % 90), 'x')});
    }
    BatchOptions many_o = base;
    many_o.base_offset = 1LL << 40;
    cases.push_back({"many", many_o, many});
    BatchOptions idem = base;
    idem.producer_id = 123456789;
    idem.producer_epoch = 7;
    idem.base_sequence = INT32_MAX - 1;
    cases.push_back({"idempotent_wrap", idem, {{t0, "a", "1"}, {t0, "b", "2"}, {t0, "c", "3"}}});
    BatchOptions txn = idem;
    txn.base_sequence = 0;
    txn.is_transactional = true;
    cases.push_back({"transactional", txn, {{t0, "t", "x"}}});
    BatchOptions lat = base;
    lat.timestamp_type = TimestampType::kLogAppendTime;
    lat.log_append_time = t0 + 99999;
    lat.partition_leader_epoch = 7;
    cases.push_back({"logappendtime", lat, {{t0, "l", "1"}, {t0 - 50, "l2", "2"}}});
    BatchOptions dh = base;
    dh.delete_horizon_ms = t0 + 86400000;
    cases.push_back({"delete_horizon", dh, {{t0, "gone", std::nullopt}, {t0 + 9, "kept", "v"}}});
    for (const Case& cs : cases) {
      std::vector<uint8_t> bytes;
      json jb = Build(cs.o, cs.recs, &bytes);
      const std::string name = "seglog_" + cn + "_" + cs.name;
      std::ofstream(dir / "batches" / (name + ".bin"), std::ios::binary)
          .write(reinterpret_cast<const char*>(bytes.data()),
                 static_cast<std::streamsize>(bytes.size()));
      manifest.push_back({{"name", name}, {"file", "batches/" + name + ".bin"}, {"batches", {jb}}});
    }
    // Control batch (COMMIT and ABORT markers), built through the marker API.
    for (auto type : {ControlRecordType::kCommit, ControlRecordType::kAbort}) {
      BatchOptions co = base;
      co.is_control = true;
      co.is_transactional = true;
      co.producer_id = 42;
      co.producer_epoch = 3;
      co.base_offset = 500;
      RecordBatchBuilder b(co);
      if (!b.AppendEndTxnMarker(type, 17, t0).ok()) return 1;
      auto bytes = b.Build();
      if (!bytes.ok()) return 1;
      const uint8_t key[4] = {0, 0, 0, static_cast<uint8_t>(type)};
      const uint8_t value[6] = {0, 0, 0, 0, 0, 17};
      json jb = {{"magic", 2},
                 {"baseOffset", 500},
                 {"lastOffset", 500},
                 {"compression", cn},
                 {"isControl", true},
                 {"isTransactional", true},
                 {"producerId", 42},
                 {"producerEpoch", 3},
                 {"recordCount", 1},
                 {"records",
                  {{{"offset", 500},
                    {"timestamp", t0},
                    {"key", Base64(Bytes(key, 4))},
                    {"value", Base64(Bytes(value, 6))},
                    {"headers", json::array()}}}}};
      const std::string name =
          "seglog_" + cn + "_control_" + std::string(ControlRecordTypeName(type));
      std::ofstream(dir / "batches" / (name + ".bin"), std::ios::binary)
          .write(reinterpret_cast<const char*>(bytes->data()),
                 static_cast<std::streamsize>(bytes->size()));
      manifest.push_back({{"name", name}, {"file", "batches/" + name + ".bin"}, {"batches", {jb}}});
    }
    // Two batches of this codec in the shared segment, contiguous offsets.
    for (int k = 0; k < 2; ++k) {
      BatchOptions so = base;
      so.base_offset = next_offset;
      std::vector<InRecord> recs;
      for (int i = 0; i < 10; ++i) {
        recs.push_back(
            {t0 + next_offset + i, "k-" + std::to_string(next_offset + i), std::string(250, 'v')});
      }
      segment_batches.push_back(Build(so, recs, &segment));
      next_offset += 10;
    }
  }
  std::ofstream(dir / "segment" / "00000000000000000000.log", std::ios::binary)
      .write(reinterpret_cast<const char*>(segment.data()),
             static_cast<std::streamsize>(segment.size()));
  manifest.push_back({{"name", "seglog_segment"},
                      {"file", "segment/00000000000000000000.log"},
                      {"batches", segment_batches}});
  std::ofstream(dir / "manifest.json") << manifest.dump(1) << "\n";
  std::cout << "wrote " << manifest.size() << " cases to " << dir << "\n";
  return 0;
}

}  // namespace
}  // namespace seglog

int main(int argc, char** argv) { return seglog::Main(argc, argv); }
