// Kafka's file and directory names; see file_names.h.
#include "io/file_names.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>

namespace seglog {

std::string FilenamePrefixFromOffset(int64_t offset) { return fmt::format("{:020d}", offset); }

namespace {
std::string Path(const std::string& dir, int64_t offset, std::string_view suffix,
                 std::string_view extra) {
  return fmt::format("{}/{}{}{}", dir, FilenamePrefixFromOffset(offset), suffix, extra);
}
}  // namespace

std::string LogFilePath(const std::string& dir, int64_t offset, std::string_view extra_suffix) {
  return Path(dir, offset, kLogFileSuffix, extra_suffix);
}
std::string OffsetIndexFilePath(const std::string& dir, int64_t offset,
                                std::string_view extra_suffix) {
  return Path(dir, offset, kIndexFileSuffix, extra_suffix);
}
std::string TimeIndexFilePath(const std::string& dir, int64_t offset,
                              std::string_view extra_suffix) {
  return Path(dir, offset, kTimeIndexFileSuffix, extra_suffix);
}
std::string TxnIndexFilePath(const std::string& dir, int64_t offset,
                             std::string_view extra_suffix) {
  return Path(dir, offset, kTxnIndexFileSuffix, extra_suffix);
}
std::string SnapshotFilePath(const std::string& dir, int64_t offset) {
  return Path(dir, offset, kSnapshotFileSuffix, "");
}

Result<int64_t> OffsetFromFileName(std::string_view file_name) {
  const std::string_view digits = file_name.substr(0, file_name.find('.'));
  int64_t value = -1;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || value < 0) {
    return Status::InvalidArgument(
        fmt::format("file name '{}' does not start with a non-negative offset", file_name));
  }
  return value;
}

std::string PartitionDirName(const TopicPartition& tp) {
  return fmt::format("{}-{}", tp.topic, tp.partition);
}

Result<TopicPartition> ParsePartitionDirName(std::string_view dir_name) {
  auto bad = [&] {
    return Status::InvalidArgument(fmt::format(
        "'{}' is not a partition directory name (expected <topic>-<partition>)", dir_name));
  };
  std::string_view name = dir_name;
  for (std::string_view suffix : {"-delete", "-stray", "-future"}) {
    if (name.size() > suffix.size() && name.ends_with(suffix)) {
      // Kafka's form: ^(\S+)-(\S+)\.(\S+)-<suffix>$ - a non-empty uuid part after the last dot.
      const size_t dot = name.rfind('.');
      if (dot == std::string_view::npos || dot + 1 >= name.size() - suffix.size()) return bad();
      for (char c : name) {
        if (std::isspace(static_cast<unsigned char>(c))) return bad();
      }
      name = name.substr(0, dot);
      break;
    }
  }
  const size_t dash = name.rfind('-');
  if (dash == std::string_view::npos || dash == 0 || dash + 1 == name.size()) return bad();
  TopicPartition tp;
  tp.topic = std::string(name.substr(0, dash));
  const std::string_view p = name.substr(dash + 1);
  auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), tp.partition);
  if (ec != std::errc() || end != p.data() + p.size() || tp.partition < 0) return bad();
  return tp;
}

Status ValidateTopicName(std::string_view topic) {
  if (topic.empty()) return Status::InvalidArgument("Topic name is illegal, it can't be empty");
  if (topic == "." || topic == "..") {
    return Status::InvalidArgument("Topic name cannot be \".\" or \"..\"");
  }
  if (topic.size() > 249) {
    return Status::InvalidArgument(fmt::format(
        "Topic name is illegal, it can't be longer than 249 characters, topic name: {}", topic));
  }
  for (char c : topic) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) {
      return Status::InvalidArgument(fmt::format(
          "Topic name \"{}\" is illegal, it contains a character other than ASCII alphanumerics, "
          "'.', '_' and '-'",
          topic));
    }
  }
  return Status::OK();
}

}  // namespace seglog
