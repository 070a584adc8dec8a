// libFuzzer target for KRaft's metadata log as seglog reads it from disk (src/metadata): the
// input is used as
//   - a metadata record's value (frame + record), replayed into an image, and as the body of
//     a record of every type and version (so each schema's decoder is reached without the
//     fuzzer having to find a frame first);
//   - a snapshot file (<offset>-<epoch>.checkpoint), read and its records replayed;
//   - a quorum-state file;
//   - the segment of a metadata log (__cluster_metadata-0/00000000000000000000.log beside a
//     bootstrap snapshot), opened as a node opens it: recovery cuts a bad tail, replay refuses
//     a bad record with an error;
//   - all of the above as `seglog dump-log --cluster-metadata-decoder` prints it
//     (tools/metadata_record_text.h): every value and framed body as a payload, the input as
//     each KRaft control record's value, the snapshot and the segment dumped.
// Invariants checked: an image that replayed cleanly writes snapshot records that replay
// cleanly into the same topics and features; a payload, whatever the bytes, is one line (Kafka's
// JSON, where Jackson escapes every control character, or Kafka's "Error at" line), and a
// control record that does not decode is an error. Build with the `asan-ubsan` preset.
#include <cstddef>
#include <cstdint>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz_files.h"
#include "metadata/bootstrap.h"
#include "metadata/metadata_image.h"
#include "metadata/metadata_log.h"
#include "metadata/quorum_state.h"
#include "metadata/snapshot_file.h"
#include "protocol/generated/metadata_records.h"
#include "seglog/record_batch.h"
#include "tools/dump_log.h"
#include "tools/metadata_record_text.h"

using namespace seglog;

namespace {

constexpr const char* kTarget = "metadata_log_fuzzer";

void CheckRoundTrip(const MetadataImage& image) {
  if (image.in_transaction()) return;
  auto records = image.SnapshotRecords();
  if (!records.ok()) return;  // a value a version cannot carry (from a bad record) is refused
  MetadataImage again;
  for (const auto& r : records.value()) {
    fuzz::Check(kTarget, again.ReplayValue(r.bytes).ok(), "a snapshot record does not replay");
  }
  fuzz::Check(kTarget, again.features() == image.features(), "features differ after a snapshot");
  fuzz::Check(kTarget, again.topics().size() == image.topics().size(),
              "topics differ after a snapshot");
}

// What dump-log prints of a value: one line, never empty.
void CheckPayload(NullableBytes value) {
  const std::string text = ClusterMetadataPayload(42, value);
  fuzz::Check(kTarget, !text.empty(), "an empty payload");
  for (char c : text) {
    fuzz::Check(kTarget, static_cast<unsigned char>(c) >= 0x20, "a control character in a payload");
  }
}

// dump-log with the decoder over a file; the text is not checked (a bad batch may stop it).
void Dump(const std::string& path) {
  std::ostringstream out, err;
  DumpLogOptions options;
  options.cluster_metadata_decoder = true;
  (void)DumpLogFile(path, options, out, err);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> input(data, size);
  {
    MetadataImage image;
    (void)image.ReplayValue(input);
    CheckRoundTrip(image);
    CheckPayload(input);
  }
  for (const protocol::MetadataRecordInfo& info : protocol::AllMetadataRecords()) {
    for (int16_t v = info.lowest_version; v <= info.highest_version; ++v) {
      MetadataImage image;
      const std::vector<uint8_t> framed = FrameMetadataRecord(info.api_key, v, input);
      (void)image.ReplayValue(framed);
      CheckRoundTrip(image);
      CheckPayload(framed);
    }
  }
  for (int type = 0; type <= 7; ++type) {
    auto text = KRaftControlRecordText(static_cast<ControlRecordType>(type), input);
    if (text.ok() && text.value().has_value()) {
      for (char c : *text.value()) {
        fuzz::Check(kTarget, static_cast<unsigned char>(c) >= 0x20,
                    "a control character in a control record's text");
      }
    }
  }
  (void)ParseQuorumState("quorum-state", std::string(reinterpret_cast<const char*>(data), size));

  const std::string& dir = fuzz::ScratchDir("metadata-log");
  const std::string snapshot = dir + "/00000000000000000007-0000000001.checkpoint";
  fuzz::WriteInputFile(kTarget, snapshot, input);
  if (auto contents = ReadSnapshot(Env::Default(), snapshot); contents.ok()) {
    MetadataImage image;
    for (const auto& r : contents.value().records) {
      if (!image.ReplayValue(r).ok()) break;
    }
    CheckRoundTrip(image);
  }
  Dump(snapshot);
  (void)RemoveFile(snapshot, true);

  // A log directory with the bootstrap snapshot and the input as the metadata log's segment.
  static const std::string log_dir = [&] {
    const std::string d = dir + "/logdir";
    fuzz::Check(kTarget,
                WriteBootstrapSnapshot(Env::Default(), d, DefaultBootstrapFeatures(), 1).ok(),
                "cannot write the bootstrap snapshot");
    return d;
  }();
  const std::string meta = log_dir + "/" + kMetadataPartitionDir;
  for (const char* f : {"00000000000000000000.index", "00000000000000000000.timeindex",
                        "leader-epoch-checkpoint", "quorum-state"}) {
    (void)RemoveFile(meta + "/" + f, true);
  }
  fuzz::WriteInputFile(kTarget, meta + "/00000000000000000000.log", input);
  Dump(meta + "/00000000000000000000.log");
  MetadataLogOptions o;
  o.clock = [] { return int64_t{1}; };
  auto opened = MetadataLog::Open(log_dir, o);
  if (opened.ok()) {
    CheckRoundTrip(opened.value()->image());
    (void)opened.value()->Close();
  }
  return 0;
}
