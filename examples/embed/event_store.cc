// event_store: an append-only event store with retention, over seglog's public API only.
//
// Events go to one partition of a topic "events" as record batches (key: the event id, value:
// its payload), built with seglog's RecordBatchBuilder and appended through Storage's log.
// The store keeps events for a day (retention.ms): it imports a batch of events three days
// old, appends fresh ones, reads everything back, runs Kafka's retention task, and shows the
// old segments deleted and the fresh events still there - also after a restart.
//
// Prints what it does and "OK" at the end; exits 1 on any wrong result.
#include <seglog/record_batch.h>
#include <seglog/storage.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace {

constexpr int64_t kDayMs = 24 * 60 * 60 * 1000;

struct Event {
  std::string id;
  std::string payload;
  int64_t timestamp_ms = 0;
};

[[noreturn]] void Fail(const std::string& what, const seglog::Status& status = {}) {
  std::fprintf(stderr, "event_store: %s%s%s\n", what.c_str(), status.ok() ? "" : ": ",
               status.ok() ? "" : status.ToString().c_str());
  std::exit(1);
}

void Check(bool ok, const std::string& what) {
  if (!ok) Fail(what);
}

seglog::Bytes AsBytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

std::string AsString(seglog::NullableBytes b) {
  return b ? std::string(reinterpret_cast<const char*>(b->data()), b->size()) : std::string();
}

// The store: one partition's log. Appends are batches of events; reads walk the batches a
// Log::Read returns.
class EventStore {
 public:
  explicit EventStore(std::shared_ptr<seglog::Log> log) : log_(std::move(log)) {}

  // Appends `events` as one record batch; returns the offset of the first.
  int64_t Append(const std::vector<Event>& events) {
    seglog::RecordBatchBuilder builder(seglog::BatchOptions{});
    for (const Event& e : events) {
      seglog::Status s = builder.Append(e.timestamp_ms, AsBytes(e.id), AsBytes(e.payload));
      if (!s.ok()) Fail("building a batch", s);
    }
    seglog::Result<std::vector<uint8_t>> batch = builder.Build();
    if (!batch.ok()) Fail("building a batch", batch.status());
    seglog::Result<seglog::LogAppendInfo> info = log_->AppendAsLeader(*batch);
    if (!info.ok()) Fail("appending", info.status());
    return info->first_offset;
  }

  // Every event from `offset` to the log end offset, with its offset.
  seglog::Result<std::vector<std::pair<int64_t, Event>>> ReadFrom(int64_t offset) const {
    std::vector<std::pair<int64_t, Event>> out;
    std::vector<uint8_t> bytes;
    while (offset < log_->log_end_offset()) {
      seglog::Result<seglog::FetchDataInfo> fetched = log_->Read(offset, 1 << 20);
      if (!fetched.ok()) return fetched.status();
      if (seglog::Status s = fetched->slice.ReadInto(&bytes); !s.ok()) return s;
      seglog::Bytes rest(bytes);
      const int64_t before = offset;
      // The slice holds whole batches, and perhaps a partial one at its end (read next time).
      while (true) {
        seglog::Result<seglog::RecordBatchView> batch = seglog::RecordBatchView::Parse(rest);
        if (!batch.ok()) break;
        seglog::RecordIterator it(*batch);
        while (it.Next()) {
          const seglog::Record& r = it.record();
          if (r.offset >= offset) {
            out.push_back({r.offset, Event{AsString(r.key), AsString(r.value), r.timestamp}});
          }
        }
        if (!it.status().ok()) return it.status();
        offset = batch->next_offset();
        rest = rest.subspan(batch->size_in_bytes());
      }
      if (offset == before) return seglog::Status::Corruption("no whole batch at the read offset");
    }
    return out;
  }

 private:
  std::shared_ptr<seglog::Log> log_;
};

std::vector<Event> MakeEvents(int first_id, int count, int64_t timestamp_ms) {
  std::vector<Event> out;
  for (int i = first_id; i < first_id + count; ++i) {
    out.push_back(Event{"event-" + std::to_string(i),
                        "payload " + std::to_string(i) + " " + std::string(900, 'x'),
                        timestamp_ms + i});
  }
  return out;
}

int CountSegmentFiles(const std::string& partition_dir) {
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(partition_dir)) {
    if (entry.path().extension() == ".log") ++n;
  }
  return n;
}

std::unique_ptr<seglog::Storage> OpenStorage(const std::string& dir) {
  seglog::StorageOptions options;
  options.properties = {{"log.dirs", dir}, {"num.recovery.threads.per.data.dir", "1"}};
  // This program runs retention itself (RunTask) so that its output is the same every time;
  // a server would leave the default (true) and let kafka-log-retention run every
  // log.retention.check.interval.ms.
  options.start_background_tasks = false;
  seglog::Result<std::unique_ptr<seglog::Storage>> storage = seglog::Storage::Open(options);
  if (!storage.ok()) Fail("opening " + dir, storage.status());
  return std::move(storage).value();
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir;
  if (argc > 1) {
    dir = argv[1];
  } else {
    // mkdtemp(3) replaces the six Xs with a unique suffix.
    std::string tmpl = (std::filesystem::temp_directory_path() / "event-store-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) Fail("mkdtemp");
    dir = tmpl;
  }
  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  constexpr int kOld = 2000, kNew = 500, kPerBatch = 100;
  const std::string partition_dir = dir + "/events-0";

  {
    std::unique_ptr<seglog::Storage> storage = OpenStorage(dir);
    seglog::Status s = storage->CreateTopic(
        "events", 1,
        {{"segment.bytes", "1048576"},              // roll every MiB (Kafka's minimum)
         {"retention.ms", std::to_string(kDayMs)},  // keep events for a day
         {"file.delete.delay.ms", "0"}});           // remove deleted segments' files at once
    if (!s.ok()) Fail("creating topic events", s);
    seglog::Result<std::shared_ptr<seglog::Log>> log = storage->GetLog({"events", 0});
    if (!log.ok()) Fail("getting events-0", log.status());
    EventStore store(*log);

    // An import of events three days old, then the day's events in a segment of their own.
    for (int i = 0; i < kOld; i += kPerBatch)
      store.Append(MakeEvents(i, kPerBatch, now - 3 * kDayMs));
    if (s = (*log)->Roll(); !s.ok()) Fail("roll", s);
    for (int i = kOld; i < kOld + kNew; i += kPerBatch) store.Append(MakeEvents(i, kPerBatch, now));
    std::printf(
        "appended %d events (3 days old) and %d events (now): offsets %lld..%lld in %d segments\n",
        kOld, kNew, static_cast<long long>((*log)->log_start_offset()),
        static_cast<long long>((*log)->log_end_offset() - 1), (*log)->num_segments());
    Check((*log)->log_end_offset() == kOld + kNew, "log end offset after the appends");

    auto all = store.ReadFrom(0);
    if (!all.ok()) Fail("reading from 0", all.status());
    Check(all->size() == kOld + kNew, "number of events read back");
    for (int i = 0; i < kOld + kNew; ++i) {
      const auto& [offset, e] = (*all)[i];
      Check(offset == i && e.id == "event-" + std::to_string(i) &&
                e.payload.rfind("payload " + std::to_string(i) + " ", 0) == 0,
            "event " + std::to_string(i) + " read back");
    }
    std::printf("read back %zu events: ok\n", all->size());

    // The lookups: by offset, and by time (the first event of the day).
    auto by_time = (*log)->FetchOffsetByTimestamp(now - kDayMs);
    Check(by_time.ok() && by_time->has_value() && (*by_time)->offset == kOld,
          "first offset at or after a day ago");
    std::printf("first event at or after a day ago: offset %lld\n",
                static_cast<long long>((*by_time)->offset));

    const int segments_before = (*log)->num_segments();
    if (s = storage->RunTask("retention"); !s.ok()) Fail("retention", s);
    if (s = storage->RunTask("delete-files"); !s.ok()) Fail("delete-files", s);
    const int deleted = segments_before - (*log)->num_segments();
    std::printf(
        "retention (retention.ms=%lld) deleted %d segments: log start offset %lld, %d segment(s) "
        "left, %d .log file(s) on disk\n",
        static_cast<long long>(kDayMs), deleted, static_cast<long long>((*log)->log_start_offset()),
        (*log)->num_segments(), CountSegmentFiles(partition_dir));
    Check(deleted >= 2 && (*log)->log_start_offset() == kOld, "retention of the old events");
    Check(CountSegmentFiles(partition_dir) == (*log)->num_segments(), "segment files on disk");

    auto gone = (*log)->Read(0, 1 << 20);
    Check(!gone.ok() && gone.status().IsOutOfRange(), "a read below the log start offset");
    std::printf("read from offset 0: %s (below the log start offset)\n",
                std::string(seglog::Status::CodeName(gone.status().code())).c_str());

    auto fresh = store.ReadFrom((*log)->log_start_offset());
    Check(fresh.ok() && fresh->size() == kNew && fresh->front().second.id == "event-2000",
          "the day's events after retention");
    std::printf("read back %zu events from offset %d: ok\n", fresh->size(), kOld);

    if (s = storage->Shutdown(); !s.ok()) Fail("shutdown", s);
    Check(!(*log)->Read(kOld, 1 << 20).ok(), "a read after shutdown fails");
  }

  {
    // A clean restart: no recovery, the offsets as they were.
    std::unique_ptr<seglog::Storage> storage = OpenStorage(dir);
    auto log = storage->GetLog({"events", 0});
    if (!log.ok()) Fail("getting events-0 after restart", log.status());
    std::printf("reopened: log start offset %lld, log end offset %lld\n",
                static_cast<long long>((*log)->log_start_offset()),
                static_cast<long long>((*log)->log_end_offset()));
    Check((*log)->log_start_offset() == kOld && (*log)->log_end_offset() == kOld + kNew,
          "offsets after restart");
    if (seglog::Status s = storage->Shutdown(); !s.ok()) Fail("shutdown", s);
  }
  if (argc <= 1) std::filesystem::remove_all(dir);
  std::printf("OK\n");
  return 0;
}
