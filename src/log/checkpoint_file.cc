// Checkpoint files; see checkpoint_file.h.
#include "log/checkpoint_file.h"

#include <fmt/format.h>

#include <charconv>
#include <sstream>

#include "base/uuid.h"
#include "io/atomic_file.h"

namespace seglog {

namespace {

std::vector<std::string> SplitWhitespace(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string f; in >> f;) out.push_back(f);
  return out;
}

template <typename T>
bool ParseNumber(const std::string& s, T* out) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return !s.empty() && ec == std::errc() && end == s.data() + s.size();
}

// Reads the version and count lines and returns the entry lines, checking the count.
Result<std::vector<std::string>> ReadLines(Env* env, const std::string& path) {
  SEGLOG_ASSIGN_OR_RETURN(std::string text, ReadFileToString(env, path));
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  if (lines.empty()) return std::vector<std::string>{};  // an empty file: no entries
  int32_t version = -1;
  if (!ParseNumber(lines[0], &version) || version != 0) {
    return Status::Corruption(fmt::format(
        "{}: line 1: unrecognised checkpoint version: expected 0, found '{}'", path, lines[0]));
  }
  if (lines.size() == 1) return std::vector<std::string>{};
  int64_t count = -1;
  if (!ParseNumber(lines[1], &count) || count < 0) {
    return Status::Corruption(
        fmt::format("{}: line 2: expected the entry count, found '{}'", path, lines[1]));
  }
  const int64_t found = static_cast<int64_t>(lines.size()) - 2;
  if (found != count) {
    return Status::Corruption(fmt::format(
        "{}: the count line says {} entries, found {} entry line(s)", path, count, found));
  }
  return std::vector<std::string>(lines.begin() + 2, lines.end());
}

std::string Malformed(const std::string& path, size_t index, const std::string& line,
                      const char* expected) {
  return fmt::format("{}: line {}: malformed entry '{}': expected '{}'", path, index + 3, line,
                     expected);
}

}  // namespace

Result<OffsetMap> ReadOffsetCheckpoint(Env* env, const std::string& path) {
  SEGLOG_ASSIGN_OR_RETURN(std::vector<std::string> lines, ReadLines(env, path));
  OffsetMap out;
  for (size_t i = 0; i < lines.size(); ++i) {
    const auto f = SplitWhitespace(lines[i]);
    TopicPartition tp;
    int64_t offset = 0;
    if (f.size() != 3 || !ParseNumber(f[1], &tp.partition) || !ParseNumber(f[2], &offset)) {
      return Status::Corruption(Malformed(path, i, lines[i], "topic partition offset"));
    }
    tp.topic = f[0];
    out[tp] = offset;
  }
  return out;
}

Status WriteOffsetCheckpoint(Env* env, const std::string& path, const OffsetMap& offsets) {
  std::string text = fmt::format("0\n{}\n", offsets.size());
  for (const auto& [tp, offset] : offsets) {
    text += fmt::format("{} {} {}\n", tp.topic, tp.partition, offset);
  }
  return WriteFileAtomically(env, path, text);
}

Result<std::vector<EpochEntry>> ReadLeaderEpochCheckpoint(Env* env, const std::string& path) {
  SEGLOG_ASSIGN_OR_RETURN(std::vector<std::string> lines, ReadLines(env, path));
  std::vector<EpochEntry> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    const auto f = SplitWhitespace(lines[i]);
    EpochEntry e;
    if (f.size() != 2 || !ParseNumber(f[0], &e.epoch) || !ParseNumber(f[1], &e.start_offset)) {
      return Status::Corruption(Malformed(path, i, lines[i], "epoch startOffset"));
    }
    out.push_back(e);
  }
  return out;
}

Status WriteLeaderEpochCheckpoint(Env* env, const std::string& path,
                                  const std::vector<EpochEntry>& entries) {
  std::string text = fmt::format("0\n{}\n", entries.size());
  for (const EpochEntry& e : entries) text += fmt::format("{} {}\n", e.epoch, e.start_offset);
  return WriteFileAtomically(env, path, text);
}

Status WritePartitionMetadata(Env* env, const std::string& path, const std::string& topic_id) {
  return WriteFileAtomically(env, path, fmt::format("version: 0\ntopic_id: {}", topic_id));
}

Result<std::string> ReadPartitionMetadata(Env* env, const std::string& path) {
  SEGLOG_ASSIGN_OR_RETURN(std::string text, ReadFileToString(env, path));
  std::vector<std::string> lines;
  for (size_t start = 0; start <= text.size();) {
    const size_t nl = text.find('\n', start);
    lines.push_back(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  auto field = [&](size_t i, const char* key) -> Result<std::string> {
    if (i >= lines.size()) {
      return Status::Corruption(fmt::format(
          "{}: line {}: expected '{}: <value>', found the end of the file", path, i + 1, key));
    }
    const std::string& line = lines[i];
    const size_t colon = line.find(':');
    if (colon == std::string::npos || colon + 1 >= line.size() || line[colon + 1] != ' ' ||
        line.substr(0, colon) != key) {
      return Status::Corruption(
          fmt::format("{}: line {}: expected '{}: <value>', found '{}'", path, i + 1, key, line));
    }
    size_t v = colon + 1;
    while (v < line.size() && (line[v] == ' ' || line[v] == '\t')) ++v;
    return line.substr(v);
  };
  SEGLOG_ASSIGN_OR_RETURN(std::string version, field(0, "version"));
  int32_t v = -1;
  if (!ParseNumber(version, &v) || v < 0) {
    return Status::Corruption(
        fmt::format("{}: line 1: version '{}' is not an integer >= 0", path, version));
  }
  SEGLOG_ASSIGN_OR_RETURN(std::string id, field(1, "topic_id"));
  auto uuid = Uuid::Parse(id);
  if (!uuid.ok())
    return Status::Corruption(fmt::format("{}: line 2: {}", path, uuid.status().message()));
  if (uuid->IsZero()) {
    return Status::Corruption(fmt::format("{}: line 2: the topic id is the zero Uuid", path));
  }
  return id;
}

}  // namespace seglog
