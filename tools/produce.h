// Produce: the library function behind `seglog produce` - writes generated records, or
// key:value lines from a stream, to a topic's partitions in a log directory, creating the topic
// (LogManager::CreateTopic, with its --config overrides) if it does not exist. The directory
// is opened as the storage node opens it (tools/node.h): recovered after an unclean shutdown,
// and shut down cleanly at the end. Keys pick partitions with Kafka's murmur2
// partitioner when no partition is given.
// Thread safety: thread-compatible.
#ifndef SEGLOG_TOOLS_PRODUCE_H_
#define SEGLOG_TOOLS_PRODUCE_H_

#include <cstdint>
#include <functional>
#include <istream>
#include <map>
#include <optional>
#include <string>

#include "seglog/record_batch.h"
#include "seglog/result.h"

namespace seglog {

struct ProduceOptions {
  std::string log_dir;
  std::string topic;
  std::optional<int32_t> partition;  // default: by key (murmur2), or round-robin per batch
  int32_t partitions = 1;            // when the topic is created
  std::map<std::string, std::string> configs;  // topic configs, when the topic is created
  // Generated records (when num_records is set); otherwise lines from the input stream.
  std::optional<int64_t> num_records;
  int32_t batch_records = 1;
  std::string key_format = "k-%06d";  // printf-style with one integer (or none: fixed key)
  int32_t value_size = 100;
  char value_char = 'v';
  // Stream lines: "key<sep>value" when key_separator is set, else the whole line is the value.
  std::string key_separator;
  std::string null_marker;  // a value equal to this is written as null (a tombstone)
  // Timestamps: start + i * step when set, else the clock.
  std::optional<int64_t> timestamp_start;
  int64_t timestamp_step = 0;
  CompressionType compression = CompressionType::kNone;
  std::function<int64_t()> clock;  // for tests
  // After an unclean shutdown every partition of the directory is recovered first, with this
  // many threads (num.recovery.threads.per.data.dir), reporting each step to `progress`.
  int recovery_threads = 2;
  std::function<void(const std::string&)> progress;
};

struct ProduceResult {
  int64_t records = 0;
  int64_t batches = 0;
  std::map<int32_t, int64_t> log_end_offsets;  // per partition written
};

Result<ProduceResult> Produce(const ProduceOptions& options, std::istream& input);

// Formats `n` with a printf-style pattern holding at most one %d / %0Nd (also %%).
Result<std::string> FormatKey(const std::string& pattern, int64_t n);

}  // namespace seglog

#endif  // SEGLOG_TOOLS_PRODUCE_H_
