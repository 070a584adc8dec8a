// seglog_write_remote_log_metadata DIR: writes a __remote_log_metadata partition directory
// through seglog's Log: one record batch per fixed case (protocol/remote_log_metadata_cases.h),
// each record with a null key and the case's value as EncodeRemoteLogMetadata frames it, as
// Kafka's ProducerManager publishes them. Prints the case names in offset order, one line, for
// check_remote_log_metadata.sh to ask Kafka what DumpLogSegments must show.
#include <cstdio>
#include <optional>
#include <string>

#include "protocol/remote_log_metadata_cases.h"
#include "protocol/remote_log_metadata_serde.h"
#include "seglog/log.h"
#include "seglog/record_batch.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  constexpr int64_t kT0 = 1700000000000;
  seglog::LogOptions options;
  options.clock = [] { return kT0 + 100000; };
  auto log = seglog::Log::Open(argv[1], seglog::LogConfig{}, options);
  if (!log.ok()) {
    std::fprintf(stderr, "%s\n", log.status().ToString().c_str());
    return 1;
  }
  namespace p = seglog::protocol;
  std::string names;
  int64_t i = 0;
  for (const p::testing::RemoteLogMetadataCase& c : p::testing::AllRemoteLogMetadataCases()) {
    seglog::Result<std::vector<uint8_t>> value = p::EncodeRemoteLogMetadata(c.record);
    if (!value.ok()) {
      std::fprintf(stderr, "%s: %s\n", c.name.c_str(), value.status().ToString().c_str());
      return 1;
    }
    seglog::RecordBatchBuilder b{seglog::BatchOptions{}};
    seglog::Status s =
        b.Append(kT0 + i++, std::nullopt, seglog::Bytes(value->data(), value->size()));
    auto batch = b.Build();
    if (!s.ok() || !batch.ok()) return 1;
    auto r = (*log)->AppendAsLeader(*batch);
    if (!r.ok()) {
      std::fprintf(stderr, "%s: %s\n", c.name.c_str(), r.status().ToString().c_str());
      return 1;
    }
    names += (names.empty() ? "" : " ") + c.name;
  }
  if (!(*log)->Close().ok()) return 1;
  std::printf("%s\n", names.c_str());
  return 0;
}
