// TransactionIndex: one segment's index of aborted transactions (<base>.txnindex), Kafka's
// TransactionIndex and AbortedTxn: one 34-byte entry per transaction whose ABORT marker is in
// the segment, in marker order, so that a read_committed fetch can tell its client which
// records to drop. Only aborts are recorded; the file is created at the first one (a segment
// without aborts has none), not preallocated, never trimmed.
//
//   entry (34 bytes, big-endian, no header):
//   +---------+-------------+--------------+-------------+--------------------+
//   | version | producer id | first offset | last offset | last stable offset |
//   | int16=0 | int64       | int64        | int64       | int64              |
//   +---------+-------------+--------------+-------------+--------------------+
//   0         2             10             18            26                   34
//
//   first offset        the transaction's first offset (maybe in an earlier segment)
//   last offset         the offset of its ABORT marker
//   last stable offset  the LSO when the abort completed: the first offset of the earliest
//                       other ongoing transaction, else last offset + 1
//
// Kafka reads the version as the entry's first byte alone and refuses anything above 0; the
// entries are floor(file size / 34) (a partial tail is not an entry). Spec:
// docs/format/transaction_index.md.
//
// Thread safety: thread-safe. One writer (the log's appender: Append, TruncateTo, Reset,
// Flush, Close, RenameTo, DeleteIfExists) and any number of concurrent readers
// (CollectAbortedTxns, AllAbortedTxns, SanityCheck); the internal mutex guards only which file
// is open and its length - reads and writes of the file happen outside it.
#ifndef SEGLOG_INDEX_TRANSACTION_INDEX_H_
#define SEGLOG_INDEX_TRANSACTION_INDEX_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "io/env.h"
#include "io/file.h"
#include "seglog/result.h"

namespace seglog {

struct AbortedTxn {
  int64_t producer_id = -1;
  int64_t first_offset = 0;
  int64_t last_offset = 0;
  int64_t last_stable_offset = 0;
  bool operator==(const AbortedTxn&) const = default;
};

inline constexpr size_t kAbortedTxnSize = 34;

// The 34 bytes of an entry, and back (Corruption for a version other than 0, in Kafka's words,
// naming `path` and the entry's position).
std::vector<uint8_t> EncodeAbortedTxn(const AbortedTxn& txn);
Result<AbortedTxn> DecodeAbortedTxn(std::span<const uint8_t> entry, const std::string& path,
                                    int64_t position);

class TransactionIndex {
 public:
  // The index of the segment at `base_offset`, at `path`; nothing is opened or created yet.
  // A non-`writable` index (a read-only log) opens the file read-only and refuses changes.
  TransactionIndex(Env* env, int64_t base_offset, std::string path, bool writable = true);
  TransactionIndex(const TransactionIndex&) = delete;
  TransactionIndex& operator=(const TransactionIndex&) = delete;

  std::string path() const EXCLUDES(mu_);
  int64_t base_offset() const { return base_offset_; }

  // Appends an entry, creating the file if needed. InvalidArgument (Kafka's
  // IllegalArgumentException) unless its last offset is above the last entry's.
  Status Append(const AbortedTxn& txn) EXCLUDES(mu_);
  // Append, unless the index already has an entry at or after `txn`'s last offset (a replay
  // of markers the index may already hold).
  Status AppendIfNew(const AbortedTxn& txn) EXCLUDES(mu_);
  // fsync, if the file is open.
  Status Flush() EXCLUDES(mu_);
  // Every entry, in file order.
  Result<std::vector<AbortedTxn>> AllAbortedTxns() const EXCLUDES(mu_);

  // Kafka's collectAbortedTxns: the entries with last offset >= `fetch_offset` and first
  // offset < `upper_bound_offset`; `complete` once an entry's last stable offset reaches
  // `upper_bound_offset` (no later segment can hold a transaction the range needs).
  struct Collected {
    std::vector<AbortedTxn> txns;
    bool complete = false;
  };
  Result<Collected> CollectAbortedTxns(int64_t fetch_offset, int64_t upper_bound_offset) const
      EXCLUDES(mu_);

  // Removes the entries whose last offset is >= `offset` (a segment truncated there).
  Status TruncateTo(int64_t offset) EXCLUDES(mu_);
  // Empties the file (a segment being recovered rebuilds it).
  Status Reset() EXCLUDES(mu_);
  // Kafka's sanityCheck: Corruption ("CorruptIndexException: ...") for an entry whose last
  // offset is below the segment's base offset, or one that goes backwards, or (given the next
  // segment's base offset, `end_offset`) one whose marker lies past the segment - seglog's
  // additions: Kafka would only refuse the next append, or serve the entry from the wrong
  // segment.
  Status SanityCheck(std::optional<int64_t> end_offset = std::nullopt) const EXCLUDES(mu_);
  // Closes the file (later calls open it again).
  Status Close() EXCLUDES(mu_);
  // Moves the file (a segment's suffix change); fine when it does not exist.
  Status RenameTo(const std::string& new_path) EXCLUDES(mu_);
  Status DeleteIfExists() EXCLUDES(mu_);

 private:
  // The open file (opened, or created when `create`), and its length; nullptr with 0 when it
  // does not exist and `create` is false.
  Result<std::pair<std::shared_ptr<File>, int64_t>> Open(bool create) const EXCLUDES(mu_);
  Result<std::vector<AbortedTxn>> ReadAll(const File& file, int64_t length) const;
  Status Writable() const;
  Status DoAppend(const AbortedTxn& txn, bool skip_old) EXCLUDES(mu_);

  Env* const env_;
  const int64_t base_offset_;
  const bool writable_;
  mutable Mutex mu_;
  std::string path_ GUARDED_BY(mu_);
  mutable std::shared_ptr<File> file_ GUARDED_BY(mu_);
  mutable int64_t length_ GUARDED_BY(mu_) = 0;   // valid while file_ is open
  mutable bool absent_ GUARDED_BY(mu_) = false;  // known not to exist (file_ is null)
  // The last entry's last offset, once known (read at the first append).
  std::optional<int64_t> last_offset_ GUARDED_BY(mu_);
};

}  // namespace seglog

#endif  // SEGLOG_INDEX_TRANSACTION_INDEX_H_
