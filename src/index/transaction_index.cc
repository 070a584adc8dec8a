// The aborted-transaction index; see transaction_index.h.
#include "index/transaction_index.h"

#include <fmt/format.h>

#include "base/coding.h"

namespace seglog {

std::vector<uint8_t> EncodeAbortedTxn(const AbortedTxn& txn) {
  std::vector<uint8_t> out(kAbortedTxnSize);
  StoreBE16(out.data(), 0);
  StoreBE64(out.data() + 2, static_cast<uint64_t>(txn.producer_id));
  StoreBE64(out.data() + 10, static_cast<uint64_t>(txn.first_offset));
  StoreBE64(out.data() + 18, static_cast<uint64_t>(txn.last_offset));
  StoreBE64(out.data() + 26, static_cast<uint64_t>(txn.last_stable_offset));
  return out;
}

Result<AbortedTxn> DecodeAbortedTxn(std::span<const uint8_t> entry, const std::string& path,
                                    int64_t position) {
  if (entry.size() < kAbortedTxnSize) {
    return Status::Corruption(
        fmt::format("{}: a partial aborted transaction entry at position {}", path, position));
  }
  // Kafka reads the int16 version's first byte only.
  if (entry[0] != 0) {
    return Status::Corruption(fmt::format(
        "KafkaException: Unexpected aborted transaction version {} in transaction index {}, "
        "current version is 0 (entry at position {})",
        static_cast<int>(entry[0]), path, position));
  }
  AbortedTxn t;
  t.producer_id = static_cast<int64_t>(LoadBE64(entry.data() + 2));
  t.first_offset = static_cast<int64_t>(LoadBE64(entry.data() + 10));
  t.last_offset = static_cast<int64_t>(LoadBE64(entry.data() + 18));
  t.last_stable_offset = static_cast<int64_t>(LoadBE64(entry.data() + 26));
  return t;
}

TransactionIndex::TransactionIndex(Env* env, int64_t base_offset, std::string path, bool writable)
    : env_(env), base_offset_(base_offset), writable_(writable), path_(std::move(path)) {}

std::string TransactionIndex::path() const {
  MutexLock l(&mu_);
  return path_;
}

Status TransactionIndex::Writable() const {
  if (writable_) return Status::OK();
  return Status::FailedPrecondition(
      fmt::format("{}: the transaction index of a read-only log cannot change", path()));
}

Result<std::pair<std::shared_ptr<File>, int64_t>> TransactionIndex::Open(bool create) const {
  std::string path;
  {
    MutexLock l(&mu_);
    if (file_) return std::make_pair(file_, length_);
    if (absent_ && !create) return std::make_pair(std::shared_ptr<File>(), int64_t{0});
    path = path_;
  }
  // Opened outside the lock (readers do not wait on the file system).
  if (!create && !env_->FileExists(path)) {
    MutexLock l(&mu_);
    if (path_ == path && !file_) absent_ = true;
    return std::make_pair(std::shared_ptr<File>(), int64_t{0});
  }
  const File::Mode mode =
      !writable_ ? File::Mode::kReadOnly : (create ? File::Mode::kCreate : File::Mode::kReadWrite);
  SEGLOG_ASSIGN_OR_RETURN(std::unique_ptr<File> opened, env_->OpenFile(path, mode));
  SEGLOG_ASSIGN_OR_RETURN(const int64_t size, opened->Size());
  MutexLock l(&mu_);
  if (file_) return std::make_pair(file_, length_);  // another reader was first
  if (path_ != path) {
    return Status::Aborted(fmt::format("{} was renamed while it was opened", path));
  }
  file_ = std::move(opened);
  length_ = size;
  absent_ = false;
  return std::make_pair(file_, length_);
}

Result<std::vector<AbortedTxn>> TransactionIndex::ReadAll(const File& file, int64_t length) const {
  std::vector<AbortedTxn> out;
  const int64_t entries = length / static_cast<int64_t>(kAbortedTxnSize);
  if (entries == 0) return out;
  std::vector<uint8_t> bytes(static_cast<size_t>(entries) * kAbortedTxnSize);
  SEGLOG_RETURN_IF_ERROR(file.ReadAt(0, bytes));
  out.reserve(static_cast<size_t>(entries));
  for (int64_t i = 0; i < entries; ++i) {
    const size_t at = static_cast<size_t>(i) * kAbortedTxnSize;
    SEGLOG_ASSIGN_OR_RETURN(
        AbortedTxn t, DecodeAbortedTxn(std::span<const uint8_t>(bytes).subspan(at, kAbortedTxnSize),
                                       file.path(), static_cast<int64_t>(at)));
    out.push_back(t);
  }
  return out;
}

Status TransactionIndex::Append(const AbortedTxn& txn) { return DoAppend(txn, false); }

Status TransactionIndex::AppendIfNew(const AbortedTxn& txn) { return DoAppend(txn, true); }

Status TransactionIndex::DoAppend(const AbortedTxn& txn, bool skip_old) {
  SEGLOG_RETURN_IF_ERROR(Writable());
  SEGLOG_ASSIGN_OR_RETURN(auto opened, Open(/*create=*/true));
  auto& [file, length] = opened;
  std::optional<int64_t> last;
  {
    MutexLock l(&mu_);
    last = last_offset_;
  }
  if (!last && length >= static_cast<int64_t>(kAbortedTxnSize)) {
    // The file's last whole entry.
    std::vector<uint8_t> entry(kAbortedTxnSize);
    const int64_t at = (length / static_cast<int64_t>(kAbortedTxnSize) - 1) *
                       static_cast<int64_t>(kAbortedTxnSize);
    SEGLOG_RETURN_IF_ERROR(file->ReadAt(at, entry));
    SEGLOG_ASSIGN_OR_RETURN(AbortedTxn t, DecodeAbortedTxn(entry, file->path(), at));
    last = t.last_offset;
  }
  if (last && txn.last_offset <= *last && skip_old) return Status::OK();
  if (last && txn.last_offset <= *last) {
    return Status::InvalidArgument(fmt::format(
        "IllegalArgumentException: The last offset of appended transactions must increase "
        "sequentially, but {} is not greater than current last offset {} of index {}",
        txn.last_offset, *last, file->path()));
  }
  // A partial tail entry (a crash mid-write) is overwritten.
  const int64_t at =
      length / static_cast<int64_t>(kAbortedTxnSize) * static_cast<int64_t>(kAbortedTxnSize);
  SEGLOG_RETURN_IF_ERROR(file->WriteAt(at, EncodeAbortedTxn(txn)));
  MutexLock l(&mu_);
  if (file_ == file) length_ = at + static_cast<int64_t>(kAbortedTxnSize);
  last_offset_ = txn.last_offset;
  return Status::OK();
}

Status TransactionIndex::Flush() {
  std::shared_ptr<File> file;
  {
    MutexLock l(&mu_);
    file = file_;
  }
  if (file == nullptr || !writable_) return Status::OK();
  return file->Sync();
}

Result<std::vector<AbortedTxn>> TransactionIndex::AllAbortedTxns() const {
  SEGLOG_ASSIGN_OR_RETURN(auto opened, Open(/*create=*/false));
  if (opened.first == nullptr) return std::vector<AbortedTxn>{};
  return ReadAll(*opened.first, opened.second);
}

Result<TransactionIndex::Collected> TransactionIndex::CollectAbortedTxns(
    int64_t fetch_offset, int64_t upper_bound_offset) const {
  SEGLOG_ASSIGN_OR_RETURN(std::vector<AbortedTxn> all, AllAbortedTxns());
  Collected out;
  for (const AbortedTxn& t : all) {
    if (t.last_offset >= fetch_offset && t.first_offset < upper_bound_offset) {
      out.txns.push_back(t);
    }
    if (t.last_stable_offset >= upper_bound_offset) {
      out.complete = true;
      break;
    }
  }
  return out;
}

Status TransactionIndex::TruncateTo(int64_t offset) {
  SEGLOG_ASSIGN_OR_RETURN(auto opened, Open(/*create=*/false));
  if (opened.first == nullptr) return Status::OK();
  SEGLOG_RETURN_IF_ERROR(Writable());
  SEGLOG_ASSIGN_OR_RETURN(std::vector<AbortedTxn> all, ReadAll(*opened.first, opened.second));
  int64_t keep = 0;
  std::optional<int64_t> last;
  for (const AbortedTxn& t : all) {
    if (t.last_offset >= offset) break;
    keep += static_cast<int64_t>(kAbortedTxnSize);
    last = t.last_offset;
  }
  if (keep == opened.second) return Status::OK();
  SEGLOG_RETURN_IF_ERROR(opened.first->Truncate(keep));
  MutexLock l(&mu_);
  if (file_ == opened.first) length_ = keep;
  last_offset_ = last;
  return Status::OK();
}

Status TransactionIndex::Reset() {
  // Without reading the entries: a reset is how a corrupt index is mended.
  SEGLOG_ASSIGN_OR_RETURN(auto opened, Open(/*create=*/false));
  if (opened.first == nullptr) return Status::OK();
  SEGLOG_RETURN_IF_ERROR(Writable());
  SEGLOG_RETURN_IF_ERROR(opened.first->Truncate(0));
  MutexLock l(&mu_);
  if (file_ == opened.first) length_ = 0;
  last_offset_.reset();
  return Status::OK();
}

Status TransactionIndex::SanityCheck(std::optional<int64_t> end_offset) const {
  SEGLOG_ASSIGN_OR_RETURN(std::vector<AbortedTxn> all, AllAbortedTxns());
  const std::string p = path();
  std::optional<int64_t> previous;
  for (const AbortedTxn& t : all) {
    if (t.last_offset < base_offset_) {
      return Status::Corruption(fmt::format(
          "CorruptIndexException: Last offset of aborted transaction {} in index {} is less "
          "than start offset {}",
          fmt::format("AbortedTxn(producerId={}, firstOffset={}, lastOffset={}, "
                      "lastStableOffset={})",
                      t.producer_id, t.first_offset, t.last_offset, t.last_stable_offset),
          p, base_offset_));
    }
    if (end_offset && t.last_offset >= *end_offset) {
      return Status::Corruption(fmt::format(
          "CorruptIndexException: the aborted transaction of producer {} in index {} ends at "
          "offset {}, past its segment (the next one starts at {})",
          t.producer_id, p, t.last_offset, *end_offset));
    }
    if (previous && t.last_offset <= *previous) {
      return Status::Corruption(fmt::format(
          "CorruptIndexException: the aborted transactions of index {} go backwards: last "
          "offset {} after {}",
          p, t.last_offset, *previous));
    }
    previous = t.last_offset;
  }
  return Status::OK();
}

Status TransactionIndex::Close() {
  MutexLock l(&mu_);
  file_.reset();  // the descriptor closes when the last reader lets go of it
  length_ = 0;
  absent_ = false;
  return Status::OK();
}

Status TransactionIndex::RenameTo(const std::string& new_path) {
  std::string old;
  {
    MutexLock l(&mu_);
    old = path_;
  }
  if (env_->FileExists(old)) SEGLOG_RETURN_IF_ERROR(env_->RenameFile(old, new_path));
  MutexLock l(&mu_);
  path_ = new_path;
  file_.reset();
  length_ = 0;
  absent_ = false;
  return Status::OK();
}

Status TransactionIndex::DeleteIfExists() {
  std::string p;
  {
    MutexLock l(&mu_);
    p = path_;
    file_.reset();
    length_ = 0;
    absent_ = true;
    last_offset_.reset();
  }
  return env_->RemoveFile(p, /*missing_ok=*/true);
}

}  // namespace seglog
