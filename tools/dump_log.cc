// DumpLog; see dump_log.h. The line formats follow Kafka 4.4.0's DumpLogSegments, as captured
// in tests/data/dump/ (docs/format/dump_log.md, "3. `.log` files" and the sections after it).
#include "tools/dump_log.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <string_view>
#include <utility>
#include <vector>

#include "base/coding.h"
#include "base/crc32c.h"
#include "index/offset_index.h"
#include "index/time_index.h"
#include "index/transaction_index.h"
#include "io/file.h"
#include "log/producer_state_manager.h"
#include "metadata/snapshot_file.h"
#include "record/batch_walker.h"
#include "record/legacy_record_batch.h"
#include "seglog/record_batch.h"
#include "tools/coordinator_record_text.h"
#include "tools/metadata_record_text.h"

namespace seglog {

namespace {

constexpr int32_t kJavaIntMax = std::numeric_limits<int32_t>::max();

// BootstrapDirectory.BINARY_BOOTSTRAP_FILENAME: the bootstrap snapshot of Kafka 3.x's format.
constexpr std::string_view kBootstrapSnapshotName = "bootstrap.checkpoint";

// new String(bytes, UTF_8), as Kafka's StringDecoder does, printed back as UTF-8: each maximal
// ill-formed subsequence becomes U+FFFD, except that Java decodes an encoded surrogate
// (ED A0..BF xx) as one sequence and replaces it with a single U+FFFD.
std::string JavaUtf8(Bytes b) {
  static constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
  std::string out;
  out.reserve(b.size());
  size_t i = 0;
  while (i < b.size()) {
    const uint8_t c = b[i];
    if (c < 0x80) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    size_t need = 0;               // continuation bytes
    uint8_t lo = 0x80, hi = 0xBF;  // allowed range of the first continuation byte
    if (c >= 0xC2 && c <= 0xDF) {
      need = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      need = 2;
      if (c == 0xE0) lo = 0xA0;
    } else if (c >= 0xF0 && c <= 0xF4) {
      need = 3;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      out += kReplacement;
      ++i;
      continue;
    }
    size_t j = 1;
    for (; j <= need && i + j < b.size(); ++j) {
      const uint8_t d = b[i + j];
      if (j == 1 ? (d < lo || d > hi) : (d < 0x80 || d > 0xBF)) break;
    }
    if (j == need + 1 && c == 0xED && b[i + 1] >= 0xA0) {
      out += kReplacement;  // a surrogate
    } else if (j == need + 1) {
      out.append(reinterpret_cast<const char*>(&b[i]), need + 1);
    } else {
      out += kReplacement;
    }
    i += j;
  }
  return out;
}

// The whole file at `path`, mapped read-only. A missing file is an I/O error, as Kafka's
// NoSuchFileException is.
Result<std::unique_ptr<MappedRegion>> MapFile(const std::string& path) {
  auto mapped = MappedRegion::MapWholeFile(path);
  if (mapped.status().IsNotFound()) return Status::IOError(mapped.status().message());
  return mapped;
}

// The index files, opened read-only as DumpLogSegments opens them (maxIndexSize -1: the file's
// length, whatever it is; an untrimmed, zero-filled tail reads as entries). They are opened at
// the absolute path, which Kafka's sanity-check messages name.
constexpr int64_t kIndexSizeOfFile = -1;

// A path as java.io.File holds it on Unix: repeated slashes collapsed, a trailing slash dropped.
// Kafka prints File.toString() in "Dumping" lines and getAbsolutePath() (the working directory
// prepended, nothing resolved) in its end-of-run reports.
class JavaFile {
 public:
  explicit JavaFile(std::string_view path) {
    for (char c : path) {
      if (c == '/' && !path_.empty() && path_.back() == '/') continue;
      path_ += c;
    }
    if (path_.size() > 1 && path_.back() == '/') path_.pop_back();
  }
  const std::string& path() const { return path_; }
  std::string Name() const {
    const size_t slash = path_.rfind('/');
    return slash == std::string::npos ? path_ : path_.substr(slash + 1);
  }
  std::string Absolute() const {
    if (!path_.empty() && path_[0] == '/') return path_;
    std::error_code ec;
    std::string cwd = std::filesystem::current_path(ec).string();
    if (path_.empty()) return cwd;
    return cwd == "/" ? "/" + path_ : cwd + "/" + path_;
  }
  // new File(getAbsoluteFile().getParent(), name): a file in the same directory.
  std::string Sibling(const std::string& name) const {
    const std::string abs = Absolute();
    const size_t slash = abs.rfind('/');
    return abs.substr(0, slash == std::string::npos ? 0 : slash) + "/" + name;
  }
  // name.split("\\.")[0]: the segment's base offset as text.
  std::string Stem() const {
    const std::string name = Name();
    return name.substr(0, name.find('.'));
  }

 private:
  std::string path_;
};

// Long.parseLong: an optional sign, then decimal digits, within int64.
Result<int64_t> ParseJavaLong(std::string_view s) {
  size_t i = 0;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    i = 1;
  }
  if (i == s.size()) {
    return Status::InvalidArgument(fmt::format("For input string: \"{}\"", s));
  }
  // Accumulate negatively so that INT64_MIN parses.
  int64_t value = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9' ||
        value < (std::numeric_limits<int64_t>::min() + (s[i] - '0')) / 10) {
      return Status::InvalidArgument(fmt::format("For input string: \"{}\"", s));
    }
    value = value * 10 - (s[i] - '0');
  }
  if (!negative) {
    if (value == std::numeric_limits<int64_t>::min()) {
      return Status::InvalidArgument(fmt::format("For input string: \"{}\"", s));
    }
    value = -value;
  }
  return value;
}

Result<int64_t> BaseOffsetOf(const JavaFile& file) {
  auto base = ParseJavaLong(file.Stem());
  if (!base.ok()) {
    return Status::InvalidArgument(
        fmt::format("{}: the file name does not start with a base offset ({})", file.path(),
                    base.status().message()));
  }
  return *base;
}

// java.lang.String.hashCode() of UTF-8 text: over its UTF-16 code units.
int32_t JavaStringHash(std::string_view utf8) {
  uint32_t h = 0;
  auto add = [&h](uint32_t unit) { h = 31 * h + unit; };
  for (size_t i = 0; i < utf8.size();) {
    const auto c = static_cast<unsigned char>(utf8[i]);
    uint32_t cp = c;
    size_t len = 1;
    if (c >= 0xF0) {
      len = 4;
      cp = c & 0x07;
    } else if (c >= 0xE0) {
      len = 3;
      cp = c & 0x0F;
    } else if (c >= 0xC0) {
      len = 2;
      cp = c & 0x1F;
    }
    if (len > 1 && i + len > utf8.size()) {
      cp = 0xFFFD;
      len = utf8.size() - i;
    } else {
      for (size_t k = 1; k < len; ++k)
        cp = cp << 6 | (static_cast<unsigned char>(utf8[i + k]) & 0x3F);
    }
    if (cp >= 0x10000) {
      cp -= 0x10000;
      add(0xD800 + (cp >> 10));
      add(0xDC00 + (cp & 0x3FF));
    } else {
      add(cp);
    }
    i += len;
  }
  return static_cast<int32_t>(h);
}

// The iteration order of a java.util.HashMap<String, ...> holding `keys`, inserted in this order:
// by bucket (spread hash masked by the table size, which starts at 16 and doubles past a 0.75
// load), then by insertion within a bucket.
std::vector<size_t> JavaHashMapOrder(const std::vector<std::string>& keys) {
  size_t capacity = 16;
  while (keys.size() > capacity * 3 / 4) capacity *= 2;
  std::vector<size_t> bucket(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    const auto h = static_cast<uint32_t>(JavaStringHash(keys[i]));
    bucket[i] = (h ^ (h >> 16)) & (capacity - 1);
  }
  std::vector<size_t> order(keys.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&bucket](size_t a, size_t b) { return bucket[a] < bucket[b]; });
  return order;
}

// Values keyed by a file's absolute path, remembering insertion order (see JavaHashMapOrder).
template <typename V>
class PerFile {
 public:
  V& operator[](const std::string& key) {
    for (size_t i = 0; i < keys_.size(); ++i) {
      if (keys_[i] == key) return values_[i];
    }
    keys_.push_back(key);
    values_.emplace_back();
    return values_.back();
  }
  template <typename F>
  void ForEachInJavaOrder(F&& f) const {
    for (size_t i : JavaHashMapOrder(keys_)) f(keys_[i], values_[i]);
  }

 private:
  std::vector<std::string> keys_;
  std::vector<V> values_;
};

using Pairs = std::vector<std::pair<int64_t, int64_t>>;

// What DumpLogSegments collects while dumping and prints on stderr after the last file.
struct Reports {
  PerFile<std::map<int64_t, int64_t, std::greater<>>> index_mismatches;  // TreeMap, reversed
  PerFile<Pairs> timestamp_mismatches;
  PerFile<Pairs> out_of_order_timestamps;
  PerFile<Pairs> offsets_not_found;
  PerFile<std::map<int64_t, int64_t>> non_consecutive;  // TreeMap

  void Print(std::ostream& err) const {
    index_mismatches.ForEachInJavaOrder([&err](const std::string& file, const auto& m) {
      err << "Mismatches in :" << file << "\n";
      for (auto [index_offset, log_offset] : m) {
        err << "  Index offset: " << index_offset << ", log offset: " << log_offset << "\n";
      }
    });
    timestamp_mismatches.ForEachInJavaOrder([&err](const std::string& file, const Pairs& v) {
      err << "Found timestamp mismatch in :" << file << "\n";
      for (auto [index_ts, log_ts] : v) {
        err << "  Index timestamp: " << index_ts << ", log timestamp: " << log_ts << "\n";
      }
    });
    out_of_order_timestamps.ForEachInJavaOrder([&err](const std::string& file, const Pairs& v) {
      err << "Found out of order timestamp in :" << file << "\n";
      for (auto [index_ts, prev_ts] : v) {
        err << "  Index timestamp: " << index_ts << ", Previously indexed timestamp: " << prev_ts
            << "\n";
      }
    });
    offsets_not_found.ForEachInJavaOrder([&err](const std::string& file, const Pairs& v) {
      err << "The following indexed offsets are not found in :" << file << "\n";
      for (auto [index_offset, log_offset] : v) {
        err << "Indexed offset: " << index_offset << ", found log offset: " << log_offset << "\n";
      }
    });
    non_consecutive.ForEachInJavaOrder([&err](const std::string& file, const auto& m) {
      err << "Non-consecutive offsets in " << file << "\n";
      for (auto [prev, next] : m) err << "  " << prev << " is followed by " << next << "\n";
    });
  }
};

// The record printing of DumpLogSegments.dumpBatchRecords, shared by v2 and legacy batches.
struct RecordLine {
  int64_t offset;
  TimestampType timestamp_type;  // the batch's
  int64_t timestamp;
  NullableBytes key;
  NullableBytes value;
};

std::string RecordPrefix(const RecordLine& r) {
  return fmt::format("| offset: {} {}: {} keySize: {} valueSize: {}", r.offset,
                     TimestampTypeName(r.timestamp_type), r.timestamp,
                     r.key ? static_cast<int64_t>(r.key->size()) : -1,
                     r.value ? static_cast<int64_t>(r.value->size()) : -1);
}

// DumpLogSegments.shouldPrintDataLog: --print-data-log or a decoder; deep iteration follows.
bool PrintsData(const DumpLogOptions& options) {
  return options.print_data_log || options.cluster_metadata_decoder || options.offsets_decoder ||
         options.share_group_state_decoder || options.transaction_log_decoder;
}

// printRecordContents with the options' MessageParser, chosen in Kafka's order of precedence
// (DumpLogSegmentsOptions.messageParser): a coordinator's records as JSON
// (coordinator_record_text.h), the value as a KRaft metadata record and no key
// (ClusterMetadataLogMessageParser; metadata_record_text.h), or key and value as strings (Kafka's
// StringDecoder). An error (Kafka's exception) for a record a coordinator decoder cannot take.
Result<std::string> RecordContents(const RecordLine& r, const DumpLogOptions& options) {
  if (options.offsets_decoder) {
    return CoordinatorRecordContents(protocol::Coordinator::kGroup, r.offset, r.key, r.value);
  }
  if (options.transaction_log_decoder) {
    return CoordinatorRecordContents(protocol::Coordinator::kTransaction, r.offset, r.key, r.value);
  }
  if (options.cluster_metadata_decoder) {
    return " payload: " + ClusterMetadataPayload(r.offset, r.value);
  }
  if (options.share_group_state_decoder) {
    return CoordinatorRecordContents(protocol::Coordinator::kShare, r.offset, r.key, r.value);
  }
  std::string s;
  if (r.key) s += " key: " + JavaUtf8(*r.key);
  if (r.value) s += " payload: " + JavaUtf8(*r.value);
  return s;
}

// Kafka's deep-iteration offset check: every record must follow the previous one (-1 before the
// first record of the file, so a first offset other than 0 is reported too).
void CheckConsecutive(int64_t offset, int64_t* last_offset, const JavaFile& file,
                      Reports* reports) {
  if (offset != WrappingAdd(*last_offset, 1))
    reports->non_consecutive[file.Absolute()][*last_offset] = offset;
  *last_offset = offset;
}

std::string_view LegacyCodecName(int id) {
  // Kafka prints CompressionType.forId(id).name, which knows zstd (4) even for magic 0/1.
  return id <= 4 ? CompressionName(static_cast<CompressionType>(id)) : std::string_view();
}

Status DumpLegacyBatch(const JavaFile& file, const LogBatchWalker& walker, bool deep,
                       const DumpLogOptions& options, int64_t* last_offset, std::ostream& out,
                       Reports* reports) {
  // The batch line reads only fixed fields (the walker guarantees size >= 14, so the entry holds
  // at least 26 bytes, enough for a magic 1 timestamp), as Kafka does: an entry whose key or
  // value lengths are corrupt still gets its line, with isvalid: false.
  namespace ll = legacy_layout;
  const BatchPrefix& p = walker.current();
  const std::span<const uint8_t> entry = walker.current_bytes();
  const int8_t attributes = static_cast<int8_t>(entry[ll::kAttributesOffset]);
  const int codec = attributes & ll::kCompressionCodecMask;
  if (LegacyCodecName(codec).empty()) {
    return Status::Corruption(
        fmt::format("{}: batch at position {}: unknown compression codec id {}", file.path(),
                    p.position, codec));
  }
  const bool v0 = p.magic == kMagicV0;
  const TimestampType timestamp_type =
      v0 ? TimestampType::kNoTimestampType
         : ((attributes & ll::kTimestampTypeMask) != 0 ? TimestampType::kLogAppendTime
                                                       : TimestampType::kCreateTime);
  const int64_t timestamp = v0 ? kNoTimestamp : LoadBEInt64(&entry[ll::kTimestampOffset]);
  const uint32_t stored_crc = LoadBE32(&entry[ll::kCrcOffset]);
  const bool valid = Crc32Ieee(entry.subspan(ll::kMagicOffset)) == stored_crc;
  out << fmt::format(
      "offset: {} position: {} {}: {} size: {} magic: {} compresscodec: {} crc: {} isvalid: {}\n",
      p.base_offset, p.position, TimestampTypeName(timestamp_type), timestamp, entry.size(),
      p.magic, LegacyCodecName(codec), stored_crc, valid);
  if (!deep) return Status::OK();
  auto view = LegacyRecordBatchView::Parse(entry, p.position);
  if (!view.ok()) return view.status().WithContext(file.path());
  LegacyRecordIterator it(*view);
  while (it.Next()) {
    const Record& r = it.record();
    CheckConsecutive(r.offset, last_offset, file, reports);
    const RecordLine line{r.offset, timestamp_type, r.timestamp, r.key, r.value};
    out << RecordPrefix(line)
        << fmt::format(" isValid: {} crc: {}", it.inner_entry().IsValid(),
                       it.inner_entry().stored_crc());
    if (PrintsData(options)) {
      auto contents = RecordContents(line, options);
      if (!contents.ok()) return contents.status();  // Kafka's exception message, as it is
      out << *contents;
    }
    out << "\n";
  }
  return it.status().WithContext(file.path());
}

Status DumpV2Batch(const JavaFile& file, const LogBatchWalker& walker, bool deep,
                   const DumpLogOptions& options, int64_t* last_offset, std::ostream& out,
                   Reports* reports) {
  const BatchPrefix& p = walker.current();
  auto view = RecordBatchView::Parse(walker.current_bytes(), p.position);
  if (!view.ok()) return view.status().WithContext(file.path());
  const RecordBatchView& b = *view;
  auto codec = b.compression();
  out << fmt::format(
      "baseOffset: {} lastOffset: {} count: {} baseSequence: {} lastSequence: {} producerId: {} "
      "producerEpoch: {} partitionLeaderEpoch: {} isTransactional: {} isControl: {} "
      "deleteHorizonMs: {} position: {} {}: {} size: {} magic: {} compresscodec: {} crc: {} "
      "isvalid: {}\n",
      b.base_offset(), b.last_offset(), b.records_count(), b.base_sequence(), b.last_sequence(),
      b.producer_id(), b.producer_epoch(), b.partition_leader_epoch(), b.is_transactional(),
      b.is_control(),
      b.delete_horizon_ms() ? fmt::format("OptionalLong[{}]", *b.delete_horizon_ms())
                            : std::string("OptionalLong.empty"),
      p.position, TimestampTypeName(b.timestamp_type()), b.max_timestamp(), b.size_in_bytes(),
      b.magic(), codec.ok() ? CompressionName(*codec) : "unknown", b.stored_crc(), b.IsValid());
  if (!deep) return Status::OK();
  RecordIterator it(b);
  while (it.Next()) {
    const Record& r = it.record();
    CheckConsecutive(r.offset, last_offset, file, reports);
    const RecordLine record_line{r.offset, b.timestamp_type(), r.timestamp, r.key, r.value};
    std::string line =
        RecordPrefix(record_line) + fmt::format(" sequence: {} headerKeys: [", r.sequence);
    for (size_t i = 0; i < r.headers.size(); ++i) {
      if (i > 0) line += ',';
      line += r.headers[i].key;
    }
    line += ']';
    if (b.is_control()) {
      auto key = ParseControlRecordKey(r.key);
      if (key.ok() &&
          (key->type() == ControlRecordType::kAbort || key->type() == ControlRecordType::kCommit)) {
        auto marker = ParseEndTransactionMarker(r.value);
        if (marker.ok()) {
          line += fmt::format(" endTxnMarker: {} coordinatorEpoch: {}",
                              ControlRecordTypeName(key->type()), marker->coordinator_epoch);
        }
      } else if (key.ok()) {
        // KRaft's control records print their message as JSON; a value that does not decode
        // stops the dump mid-line, as Kafka's exception does.
        auto kraft = KRaftControlRecordText(key->type(), r.value);
        if (!kraft.ok()) {
          out << line;
          return kraft.status().WithContext(
              fmt::format("{}: control record at offset {}", file.path(), r.offset));
        }
        line += kraft->has_value() ? **kraft
                                   : fmt::format(" controlType: {}({})",
                                                 ControlRecordTypeName(key->type()), key->type_id);
      }
    } else if (PrintsData(options)) {
      auto contents = RecordContents(record_line, options);
      if (!contents.ok()) {
        out << line;
        return contents.status();  // Kafka's exception message, as it is
      }
      line += *contents;
    }
    out << line << "\n";
  }
  return it.status().WithContext(file.path());
}

// DumpLogSegments.dumpLog after the "Log starting offset" line: the batches of `bytes` (the
// file, already cut to --max-bytes) and the trailing-bytes line.
Status DumpLogBatches(const JavaFile& file, std::span<const uint8_t> bytes,
                      const DumpLogOptions& options, std::ostream& out, Reports* reports) {
  const bool deep = options.deep_iteration || PrintsData(options);
  LogBatchWalker walker(bytes);
  int64_t last_offset = -1;
  while (walker.Next()) {
    // FileLogInputStream: any magic below 2 is a legacy entry, anything else a v2 batch.
    Status s = walker.current().magic < kMagicV2
                   ? DumpLegacyBatch(file, walker, deep, options, &last_offset, out, reports)
                   : DumpV2Batch(file, walker, deep, options, &last_offset, out, reports);
    if (!s.ok()) return s;
    if (options.progress) options.progress({.bytes = walker.current().size_in_bytes()});
  }
  if (!walker.status().ok()) return walker.status().WithContext(file.path());
  if (walker.trailing_bytes() > 0 && options.max_bytes == kJavaIntMax) {
    out << fmt::format("Found {} invalid bytes at the end of {}\n", walker.trailing_bytes(),
                       file.Name());
  }
  return Status::OK();
}

// Snapshots.parse as DumpLogSegments uses it on a .checkpoint name: the end offset is
// Long.parseLong of the first 20 characters and the epoch Integer.parseInt of characters 21 to
// 30, whatever separates or follows them. Kafka's exception message when either is missing or
// not a number.
Result<std::pair<int64_t, int32_t>> KafkaSnapshotId(const std::string& name) {
  constexpr size_t kOffsetWidth = 20;
  constexpr size_t kEpochBegin = kOffsetWidth + 1;
  constexpr size_t kEpochEnd = kEpochBegin + 10;
  for (auto [begin, end] :
       {std::pair{size_t{0}, kOffsetWidth}, std::pair{kEpochBegin, kEpochEnd}}) {
    if (name.size() < end) {
      return Status::InvalidArgument(
          fmt::format("begin {}, end {}, length {}", begin, end, name.size()));
    }
  }
  SEGLOG_ASSIGN_OR_RETURN(const int64_t end_offset,
                          ParseJavaLong(std::string_view(name).substr(0, kOffsetWidth)));
  const std::string_view epoch_text =
      std::string_view(name).substr(kEpochBegin, kEpochEnd - kEpochBegin);
  SEGLOG_ASSIGN_OR_RETURN(const int64_t epoch, ParseJavaLong(epoch_text));
  if (epoch < std::numeric_limits<int32_t>::min() || epoch > kJavaIntMax) {
    return Status::InvalidArgument(fmt::format("For input string: \"{}\"", epoch_text));
  }
  return std::pair{end_offset, static_cast<int32_t>(epoch)};
}

// DumpLogSegments.dumpLog's first line: a segment's base offset, the id of a KRaft snapshot
// (<end offset>-<epoch>.checkpoint), or that the file is the bootstrap snapshot.
Status PrintLogHeader(const JavaFile& file, std::ostream& out) {
  const std::string name = file.Name();
  if (name.ends_with(kSnapshotSuffix)) {
    if (name == kBootstrapSnapshotName) {
      out << "KRaft bootstrap snapshot\n";
      return Status::OK();
    }
    SEGLOG_ASSIGN_OR_RETURN(const auto id, KafkaSnapshotId(name));
    out << fmt::format("Snapshot end offset: {}, epoch: {}\n", id.first, id.second);
    return Status::OK();
  }
  auto base = BaseOffsetOf(file);
  if (!base.ok()) return base.status();
  out << "Log starting offset: " << *base << "\n";
  return Status::OK();
}

// A .log segment or a .checkpoint snapshot: the same batches after a different first line.
Status DumpLog(const JavaFile& file, const DumpLogOptions& options, std::ostream& out,
               Reports* reports) {
  SEGLOG_RETURN_IF_ERROR(PrintLogHeader(file, out));
  auto mapped = MapFile(file.path());
  if (!mapped.ok()) return mapped.status();
  if (options.max_bytes < 0) {
    return Status::InvalidArgument(
        fmt::format("{}: invalid --max-bytes {}", file.path(), options.max_bytes));
  }
  std::span<const uint8_t> bytes = (*mapped)->bytes();
  bytes = bytes.first(std::min(bytes.size(), static_cast<size_t>(options.max_bytes)));
  return DumpLogBatches(file, bytes, options, out, reports);
}

// FileRecords.slice(position, size): the bytes from `position`, at most `size` of them.
Result<std::span<const uint8_t>> SliceLog(const std::string& index_path,
                                          const std::string& log_path, std::span<const uint8_t> log,
                                          int64_t position, int32_t size) {
  if (position < 0 || position > static_cast<int64_t>(log.size())) {
    return Status::OutOfRange(
        fmt::format("{}: index entry points at position {}, outside {} ({} bytes)", index_path,
                    position, log_path, log.size()));
  }
  if (size < 0) {
    return Status::InvalidArgument(
        fmt::format("{}: invalid --max-message-size {}", index_path, size));
  }
  const size_t from = static_cast<size_t>(position);
  return log.subspan(from, std::min(log.size() - from, static_cast<size_t>(size)));
}

// The last offset of the walker's current batch (FileChannelRecordBatch.lastOffset()).
Result<int64_t> BatchLastOffset(const LogBatchWalker& walker) {
  const BatchPrefix& p = walker.current();
  if (p.magic < kMagicV2) return p.base_offset;  // the offset field of a legacy entry
  auto view = RecordBatchView::Parse(walker.current_bytes(), p.position);
  if (!view.ok()) return view.status();
  return view->last_offset();
}

Status DumpOffsetIndex(const JavaFile& file, const DumpLogOptions& options, std::ostream& out,
                       Reports* reports) {
  auto base_or = BaseOffsetOf(file);
  if (!base_or.ok()) return base_or.status();
  const int64_t base = *base_or;
  const std::string log_path = file.Sibling(file.Stem() + ".log");
  auto log = MapFile(log_path);
  if (!log.ok()) return log.status();
  auto index = OffsetIndex::Open(Env::Default(), file.Absolute(), base, kIndexSizeOfFile,
                                 /*writable=*/false);
  if (!index.ok()) return index.status();
  const int entries = (*index)->entries();
  if (entries == 0) {
    out << file.path() << " is empty.\n";
    return Status::OK();
  }
  if (options.index_sanity_check) {
    // OffsetIndex.sanityCheck, with its exception messages.
    SEGLOG_RETURN_IF_ERROR((*index)->SanityCheck());
    out << file.path() << " passed sanity check.\n";
    return Status::OK();
  }
  for (int i = 0; i < entries; ++i) {
    const auto [offset, position] = (*index)->EntryAt(i);
    // A preallocated index that was never trimmed ends in zeros: Kafka stops at the first one.
    if (offset == base && i > 0) return Status::OK();
    auto slice =
        SliceLog(file.path(), log_path, (*log)->bytes(), position, options.max_message_size);
    if (!slice.ok()) return slice.status();
    LogBatchWalker walker(*slice, position);
    if (!walker.Next()) {
      if (!walker.status().ok()) return walker.status().WithContext(log_path);
      return Status::Corruption(fmt::format(
          "{}: entry {} (offset {}) points at position {} of {}, where no whole batch of at most "
          "{} bytes (--max-message-size) starts",
          file.path(), i, offset, position, log_path, options.max_message_size));
    }
    auto last_offset = BatchLastOffset(walker);
    if (!last_offset.ok()) return last_offset.status().WithContext(log_path);
    if (*last_offset != offset) reports->index_mismatches[file.Absolute()][offset] = *last_offset;
    if (!options.verify_index_only) {
      out << "offset: " << offset << " position: " << position << "\n";
    }
  }
  return Status::OK();
}

// The largest record timestamp of the walker's current batch, -1 if none (deep iteration).
Result<int64_t> MaxRecordTimestamp(std::span<const uint8_t> bytes, const BatchPrefix& p) {
  int64_t max_timestamp = kNoTimestamp;
  if (p.magic < kMagicV2) {
    auto view = LegacyRecordBatchView::Parse(bytes, p.position);
    if (!view.ok()) return view.status();
    LegacyRecordIterator it(*view);
    while (it.Next()) max_timestamp = std::max(max_timestamp, it.record().timestamp);
    if (!it.status().ok()) return it.status();
  } else {
    auto view = RecordBatchView::Parse(bytes, p.position);
    if (!view.ok()) return view.status();
    RecordIterator it(*view);
    while (it.Next()) max_timestamp = std::max(max_timestamp, it.record().timestamp);
    if (!it.status().ok()) return it.status();
  }
  return max_timestamp;
}

Status DumpTimeIndex(const JavaFile& file, const DumpLogOptions& options, std::ostream& out,
                     Reports* reports) {
  auto base_or = BaseOffsetOf(file);
  if (!base_or.ok()) return base_or.status();
  const int64_t base = *base_or;
  const std::string log_path = file.Sibling(file.Stem() + ".log");
  const std::string index_path = file.Sibling(file.Stem() + ".index");
  auto log = MapFile(log_path);
  if (!log.ok()) return log.status();
  // (Kafka creates a missing .index here, empty, and then fails; seglog only reports it.)
  auto index =
      OffsetIndex::Open(Env::Default(), index_path, base, kIndexSizeOfFile, /*writable=*/false);
  if (!index.ok()) return index.status();
  auto time_index =
      TimeIndex::Open(Env::Default(), file.Absolute(), base, kIndexSizeOfFile, /*writable=*/false);
  if (!time_index.ok()) return time_index.status();
  const int entries = (*time_index)->entries();
  if (options.index_sanity_check) {
    // TimeIndex.sanityCheck, with its exception messages. The last entry is the last slot.
    SEGLOG_RETURN_IF_ERROR((*time_index)->SanityCheck());
    out << file.path() << " passed sanity check.\n";
    return Status::OK();
  }
  int64_t prev_timestamp = kNoTimestamp;
  for (int i = 0; i < entries; ++i) {
    const auto [timestamp, offset] = (*time_index)->EntryAt(i);
    if (offset == base && i > 0) return Status::OK();
    // OffsetIndex.lookup: Kafka's search, which matters when a zero-filled tail breaks the
    // order; position 0 when no entry is at or below the offset.
    const int32_t position = (*index)->Lookup(offset).position;
    auto slice = SliceLog(file.path(), log_path, (*log)->bytes(), position, kJavaIntMax);
    if (!slice.ok()) return slice.status();
    // Kafka reads every batch from there to the end first, so corruption anywhere after the
    // position fails the dump.
    std::vector<BatchPrefix> batches;
    LogBatchWalker walker(*slice, position);
    while (walker.Next()) batches.push_back(walker.current());
    if (!walker.status().ok()) return walker.status().WithContext(log_path);
    auto bytes_of = [&](const BatchPrefix& p) {
      return slice->subspan(static_cast<size_t>(p.position - position),
                            static_cast<size_t>(p.size_in_bytes()));
    };
    const BatchPrefix* match = nullptr;
    int64_t match_last_offset = -1;
    for (const BatchPrefix& p : batches) {
      int64_t last = p.base_offset;
      if (p.magic >= kMagicV2) {
        auto view = RecordBatchView::Parse(bytes_of(p), p.position);
        if (!view.ok()) return view.status().WithContext(log_path);
        last = view->last_offset();
      }
      if (last >= offset) {
        match = &p;
        match_last_offset = last;
        break;
      }
    }
    if (match == nullptr) {
      reports->offsets_not_found[file.Absolute()].emplace_back(offset, -1);
    } else if (match_last_offset != offset) {
      reports->offsets_not_found[file.Absolute()].emplace_back(offset, match_last_offset);
    } else {
      auto max_timestamp = MaxRecordTimestamp(bytes_of(*match), *match);
      if (!max_timestamp.ok()) return max_timestamp.status().WithContext(log_path);
      if (*max_timestamp != timestamp) {
        reports->timestamp_mismatches[file.Absolute()].emplace_back(timestamp, *max_timestamp);
      }
      if (prev_timestamp >= timestamp) {
        reports->out_of_order_timestamps[file.Absolute()].emplace_back(timestamp, prev_timestamp);
      }
    }
    if (!options.verify_index_only) {
      out << "timestamp: " << timestamp << " offset: " << offset << "\n";
    }
    prev_timestamp = timestamp;
  }
  return Status::OK();
}

// Kafka's dumpTxnIndex: one line per aborted transaction.
Status DumpTxnIndex(const JavaFile& file, std::ostream& out) {
  auto base = BaseOffsetOf(file);
  if (!base.ok()) return base.status();
  TransactionIndex index(Env::Default(), *base, file.Absolute(), /*writable=*/false);
  SEGLOG_ASSIGN_OR_RETURN(std::vector<AbortedTxn> txns, index.AllAbortedTxns());
  for (const AbortedTxn& t : txns) {
    out << fmt::format(
        "version: 0 producerId: {} firstOffset: {} lastOffset: {} lastStableOffset: {}\n",
        t.producer_id, t.first_offset, t.last_offset, t.last_stable_offset);
  }
  return Status::OK();
}

// Java's OptionalLong.toString.
std::string JavaOptionalLong(int64_t v) {
  return v < 0 ? "OptionalLong.empty" : fmt::format("OptionalLong[{}]", v);
}

// Kafka's dumpProducerIdSnapshot: one line per producer, with its newest batch.
Status DumpProducerSnapshot(const JavaFile& file, std::ostream& out) {
  auto mapped = MapFile(file.path());
  if (!mapped.ok()) return mapped.status();
  SEGLOG_ASSIGN_OR_RETURN(std::vector<ProducerStateEntry> entries,
                          ParseProducerSnapshot((*mapped)->bytes(), file.Absolute()));
  for (const ProducerStateEntry& e : entries) {
    out << fmt::format(
        "producerId: {} producerEpoch: {} coordinatorEpoch: {} currentTxnFirstOffset: {} "
        "lastTimestamp: {} ",
        e.producer_id, e.producer_epoch, e.coordinator_epoch,
        JavaOptionalLong(e.current_txn_first_offset), e.last_timestamp);
    if (!e.batches.empty()) {
      const BatchMetadata& b = e.batches.front();
      out << fmt::format(
          "firstSequence: {} lastSequence: {} lastOffset: {} offsetDelta: {} timestamp: {}",
          b.FirstSeq(), b.last_seq, b.last_offset, b.offset_delta, b.timestamp);
    }
    out << "\n";
  }
  return Status::OK();
}

}  // namespace

Status DumpFiles(std::span<const std::string> paths, const DumpLogOptions& options,
                 std::ostream& out, std::ostream& err) {
  Reports reports;
  if (options.progress) {
    ProgressStep total;
    for (const std::string& path : paths) {
      if (path.size() < 4 || path.compare(path.size() - 4, 4, ".log") != 0) continue;
      std::error_code ec;
      const auto size = std::filesystem::file_size(path, ec);
      if (ec) continue;
      total.add_bytes_total += std::min<int64_t>(static_cast<int64_t>(size), options.max_bytes);
      ++total.add_segments_total;
    }
    options.progress(total);
  }
  for (const std::string& path : paths) {
    const JavaFile file(path);
    out << "Dumping " << file.path() << "\n";
    const std::string name = file.Name();
    const size_t dot = name.rfind('.');
    const std::string suffix = dot == std::string::npos ? "" : name.substr(dot);
    Status s;
    if (suffix == ".log") {
      s = DumpLog(file, options, out, &reports);
    } else if (suffix == ".index") {
      s = DumpOffsetIndex(file, options, out, &reports);
    } else if (suffix == ".timeindex") {
      s = DumpTimeIndex(file, options, out, &reports);
    } else if (suffix == ".txnindex") {
      s = DumpTxnIndex(file, out);
    } else if (suffix == ".snapshot") {
      s = DumpProducerSnapshot(file, out);
    } else if (suffix == kSnapshotSuffix) {
      s = DumpLog(file, options, out, &reports);
    } else {
      err << "Ignoring unknown file " << file.path() << "\n";
    }
    if (!s.ok()) return s;
    if (options.progress && suffix == ".log") options.progress({.segments = 1});
  }
  reports.Print(err);
  return Status::OK();
}

Status DumpLogBytes(const std::string& path_as_given, std::span<const uint8_t> bytes,
                    const DumpLogOptions& options, std::ostream& out, std::ostream& err) {
  const JavaFile file(path_as_given);
  out << "Dumping " << file.path() << "\n";
  auto base = BaseOffsetOf(file);
  if (!base.ok()) return base.status();
  out << "Log starting offset: " << *base << "\n";
  Reports reports;
  SEGLOG_RETURN_IF_ERROR(DumpLogBatches(file, bytes, options, out, &reports));
  reports.Print(err);
  return Status::OK();
}

Status DumpLogFile(const std::string& path, const DumpLogOptions& options, std::ostream& out,
                   std::ostream& err) {
  return DumpFiles(std::span<const std::string>(&path, 1), options, out, err);
}

}  // namespace seglog
