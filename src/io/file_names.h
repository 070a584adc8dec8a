// Kafka's file and directory names for a partition's log (LogFileUtils, LocalLog):
//
//   <log.dir>/<topic>-<partition>/
//       00000000000000003830.log         segment data, named by its base offset (20 digits)
//       00000000000000003830.index       offset index
//       00000000000000003830.timeindex   time index
//       00000000000000003830.txnindex    aborted transactions (only when there are some)
//       00000000000000003830.snapshot    producer state at that offset
//   Transient suffixes after the normal one: .deleted (waiting for async delete), .cleaned
//   (cleaner output being written), .swap (cleaner output ready to replace the originals).
//
// Thread safety: pure functions.
#ifndef SEGLOG_IO_FILE_NAMES_H_
#define SEGLOG_IO_FILE_NAMES_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "seglog/result.h"
#include "seglog/topic_partition.h"

namespace seglog {

inline constexpr std::string_view kLogFileSuffix = ".log";
inline constexpr std::string_view kIndexFileSuffix = ".index";
inline constexpr std::string_view kTimeIndexFileSuffix = ".timeindex";
inline constexpr std::string_view kTxnIndexFileSuffix = ".txnindex";
inline constexpr std::string_view kSnapshotFileSuffix = ".snapshot";
inline constexpr std::string_view kDeletedFileSuffix = ".deleted";
inline constexpr std::string_view kCleanedFileSuffix = ".cleaned";
inline constexpr std::string_view kSwapFileSuffix = ".swap";

// The base offset left-padded with zeros to 20 digits, so that `ls` sorts segments by offset.
// REQUIRES: offset >= 0.
std::string FilenamePrefixFromOffset(int64_t offset);

// "<dir>/<prefix><suffix>" for the segment (or snapshot) at `offset`.
std::string LogFilePath(const std::string& dir, int64_t offset, std::string_view extra_suffix = "");
std::string OffsetIndexFilePath(const std::string& dir, int64_t offset,
                                std::string_view extra_suffix = "");
std::string TimeIndexFilePath(const std::string& dir, int64_t offset,
                              std::string_view extra_suffix = "");
std::string TxnIndexFilePath(const std::string& dir, int64_t offset,
                             std::string_view extra_suffix = "");
std::string SnapshotFilePath(const std::string& dir, int64_t offset);

// The offset a file name starts with: the digits before the first '.'. InvalidArgument when
// they are not a non-negative decimal int64.
Result<int64_t> OffsetFromFileName(std::string_view file_name);

// "<topic>-<partition>".
std::string PartitionDirName(const TopicPartition& tp);

// Parses a partition directory name as Kafka does: topic = text before the LAST '-', partition
// = the integer after it. Names of deleted, stray and future directories
// ("<topic>-<p>.<uuid>-delete", "-stray", "-future") have their ".<uuid>-<suffix>" removed
// first. InvalidArgument naming the directory when it is not of that form.
Result<TopicPartition> ParsePartitionDirName(std::string_view dir_name);

// Kafka's topic name rule: 1-249 characters of [a-zA-Z0-9._-], and not "." or "..".
Status ValidateTopicName(std::string_view topic);

}  // namespace seglog

#endif  // SEGLOG_IO_FILE_NAMES_H_
