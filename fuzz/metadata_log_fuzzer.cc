// libFuzzer target for KRaft's metadata log as seglog reads it from disk (src/metadata): the
// input is used as
//   - a metadata record's value (frame + record), replayed into an image, and as the body of
//     a record of every type and version (so each schema's decoder is reached without the
//     fuzzer having to find a frame first);
//   - a snapshot file (<offset>-<epoch>.checkpoint), read and its records replayed;
//   - a quorum-state file;
//   - the segment of a metadata log (__cluster_metadata-0/00000000000000000000.log beside a
//     bootstrap snapshot), opened as a node opens it: recovery cuts a bad tail, replay refuses
//     a bad record with an error.
// Invariants checked: an image that replayed cleanly writes snapshot records that replay
// cleanly into the same topics and features. Build with the `asan-ubsan` preset.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "fuzz_files.h"
#include "metadata/bootstrap.h"
#include "metadata/metadata_image.h"
#include "metadata/metadata_log.h"
#include "metadata/quorum_state.h"
#include "metadata/snapshot_file.h"
#include "protocol/generated/metadata_records.h"

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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> input(data, size);
  {
    MetadataImage image;
    (void)image.ReplayValue(input);
    CheckRoundTrip(image);
  }
  for (const protocol::MetadataRecordInfo& info : protocol::AllMetadataRecords()) {
    for (int16_t v = info.lowest_version; v <= info.highest_version; ++v) {
      MetadataImage image;
      (void)image.ReplayValue(FrameMetadataRecord(info.api_key, v, input));
      CheckRoundTrip(image);
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
  MetadataLogOptions o;
  o.clock = [] { return int64_t{1}; };
  auto opened = MetadataLog::Open(log_dir, o);
  if (opened.ok()) {
    CheckRoundTrip(opened.value()->image());
    (void)opened.value()->Close();
  }
  return 0;
}
