// A randomized test of SharePartition against a per-offset reference model: random acquisitions,
// acknowledgements (good and bad), lock expiries, session releases, log-start moves and
// restarts from the persisted state, with fixed seeds and a bounded number of steps. The model
// predicts every acknowledgement's outcome and every state exactly; acquisitions (whose batching
// and throttling the model does not re-implement) are checked for what they may return.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "share/share_partition.h"

namespace seglog {
namespace {

constexpr int64_t kLogSize = 3000;
constexpr int64_t kLock = 1000;
const std::vector<std::string> kMembers = {"m0", "m1", "m2"};

struct ModelRecord {
  RecordState state = RecordState::kAvailable;
  int32_t count = 0;
  std::string member;
  int64_t deadline = -1;
};

class Model {
 public:
  explicit Model(const SharePartitionConfig& config) : config_(config) {}

  std::map<int64_t, ModelRecord> cache;  // [start, end] when not empty
  int64_t start = 0;
  int64_t end = 0;

  int64_t NextFetch() const {
    if (cache.empty()) return end;
    for (const auto& [offset, record] : cache) {
      if (record.state == RecordState::kAvailable) return offset;
    }
    return end + 1;
  }
  int64_t InFlight() const { return cache.empty() ? 0 : end - start + 1; }
  std::optional<int64_t> NextDeadline() const {
    std::optional<int64_t> earliest;
    for (const auto& [offset, record] : cache) {
      if (record.state != RecordState::kAcquired) continue;
      if (!earliest || record.deadline < *earliest) earliest = record.deadline;
    }
    return earliest;
  }

  void Release(ModelRecord& record) const {
    record.state = record.count >= config_.delivery_count_limit ? RecordState::kArchived
                                                                : RecordState::kAvailable;
    record.member.clear();
    record.deadline = -1;
  }

  void Advance() {
    if (cache.empty()) return;
    for (auto it = cache.begin(); it != cache.end(); ++it) {
      if (!IsTerminal(it->second.state)) {
        start = std::max(start, it->first);
        cache.erase(cache.begin(), it);
        return;
      }
    }
    start = cache.rbegin()->first + 1;
    end = start;
    cache.clear();
  }

  // The expected error code of an acknowledgement request, applying it when it succeeds.
  int16_t Acknowledge(const std::string& member, const std::vector<AcknowledgementBatch>& batches,
                      int64_t now) {
    for (const AcknowledgementBatch& batch : batches) {
      size_t size = static_cast<size_t>(batch.last_offset - batch.first_offset + 1);
      if (batch.last_offset < batch.first_offset || batch.acknowledge_types.empty() ||
          (batch.acknowledge_types.size() != 1 && batch.acknowledge_types.size() != size)) {
        return share_error::kInvalidRequest;
      }
    }
    std::map<int64_t, ModelRecord> copy = cache;
    for (const AcknowledgementBatch& batch : batches) {
      for (int8_t type : batch.acknowledge_types) {
        if (type < 0 || type > kMaxAcknowledgeType) return share_error::kInvalidRequest;
      }
      if (batch.last_offset < start) continue;
      if (copy.empty()) return share_error::kInvalidRecordState;
      int64_t first = std::max(batch.first_offset, start);
      // The last offset must be cached (past the end or in a hole of the log: INVALID_REQUEST,
      // "first/last offset in request is past acquired records").
      if (copy.find(batch.last_offset) == copy.end()) return share_error::kInvalidRequest;
      for (int64_t offset = first; offset <= batch.last_offset; ++offset) {
        auto cached = copy.find(offset);
        if (cached == copy.end()) continue;  // a hole of the log the cache never held
        ModelRecord& record = cached->second;
        if (record.state != RecordState::kAcquired || record.member != member) {
          return share_error::kInvalidRecordState;
        }
        int8_t type = batch.acknowledge_types.size() > 1
                          ? batch.acknowledge_types[offset - batch.first_offset]
                          : batch.acknowledge_types[0];
        switch (static_cast<AcknowledgeType>(type)) {
          case AcknowledgeType::kRenew:
            record.deadline = now + kLock;
            continue;
          case AcknowledgeType::kGap:
          case AcknowledgeType::kReject:
            record.state = RecordState::kArchived;
            break;
          case AcknowledgeType::kAccept:
            record.state = RecordState::kAcknowledged;
            break;
          case AcknowledgeType::kRelease:
            Release(record);
            break;
        }
        record.member.clear();
        record.deadline = -1;
      }
    }
    cache = std::move(copy);
    Advance();
    return share_error::kNone;
  }

  template <typename Pred>
  int32_t ReleaseIf(Pred pred) {
    int32_t released = 0;
    for (auto& [offset, record] : cache) {
      if (record.state == RecordState::kAcquired && pred(record)) {
        Release(record);
        ++released;
      }
    }
    Advance();
    return released;
  }

  void UpdateLogStart(int64_t log_start) {
    if (log_start <= start) return;
    start = log_start;
    cache.erase(cache.begin(), cache.lower_bound(start));
    if (cache.empty()) {
      end = start;
      return;
    }
    end = std::max(end, start);
    Advance();
  }

  // A read from fetch_offset that returned its first batch at base_offset: cached AVAILABLE
  // records between them left the log.
  void ArchiveStale(int64_t fetch_offset, int64_t base_offset) {
    if (cache.empty() || fetch_offset >= base_offset) return;
    for (auto it = cache.lower_bound(fetch_offset); it != cache.end() && it->first < base_offset;
         ++it) {
      if (it->second.state == RecordState::kAvailable) it->second.state = RecordState::kArchived;
    }
    Advance();
  }

  // What a restart from the persisted state brings back.
  void Restart() {
    for (auto& [offset, record] : cache) {
      if (record.state != RecordState::kAcquired) continue;
      record.state = RecordState::kAvailable;
      record.count -= 1;
      record.member.clear();
      record.deadline = -1;
    }
    while (!cache.empty() && cache.rbegin()->second.state == RecordState::kAvailable &&
           cache.rbegin()->second.count == 0) {
      cache.erase(std::prev(cache.end()));
    }
    end = cache.empty() ? start : cache.rbegin()->first;
    for (int64_t offset = start; offset <= end && !cache.empty(); ++offset) cache[offset];
    Advance();
  }

 private:
  SharePartitionConfig config_;
};

class Runner {
 public:
  // holes: the log has offsets missing between batches (compaction), which leaves holes in the
  // cache between fetches and archives records on a read that starts past them.
  Runner(uint32_t seed, const SharePartitionConfig& config, bool holes)
      : rng_(seed), config_(config), model_(config), sp_(Create({0, 0, {}})) {
    // The log: batches of 1-8 records.
    for (int64_t base = 0; base < kLogSize;) {
      int64_t last = std::min<int64_t>(kLogSize - 1, base + Random(8));
      log_.push_back({base, last});
      base = last + 1 + (holes && Random(4) == 0 ? 1 + Random(4) : 0);
    }
  }

  SharePartition Create(const PersistedShareState& state) {
    Result<SharePartition> partition = SharePartition::Create(config_, state);
    EXPECT_TRUE(partition.ok()) << partition.status().ToString();
    return std::move(partition).value();
  }

  int64_t Random(int64_t n) { return static_cast<int64_t>(rng_() % static_cast<uint64_t>(n)); }
  const std::string& Member() { return kMembers[Random(kMembers.size())]; }

  void Step(int step) {
    int64_t op = Random(100);
    if (op < 35) {
      DoAcquire();
    } else if (op < 75) {
      DoAcknowledge();
    } else if (op < 85) {
      now_ += Random(kLock / 2);
      int32_t expected =
          model_.ReleaseIf([this](const ModelRecord& record) { return record.deadline <= now_; });
      EXPECT_EQ(sp_.ExpireLocks(now_).released, expected) << "step " << step;
    } else if (op < 92) {
      const std::string& member = Member();
      int32_t expected = model_.ReleaseIf(
          [&member](const ModelRecord& record) { return record.member == member; });
      EXPECT_EQ(sp_.ReleaseMember(member).released, expected) << "step " << step;
    } else if (op < 95) {
      int64_t log_start = std::min(kLogSize, model_.start + Random(6) - 1);
      model_.UpdateLogStart(log_start);
      sp_.UpdateLogStart(log_start);
    } else {
      sp_ = Create(sp_.PersistableState());
      model_.Restart();
    }
    Compare(step);
  }

  void DoAcquire() {
    int64_t fetch_offset = sp_.NextFetchOffset();
    ASSERT_EQ(fetch_offset, model_.NextFetch());
    AcquireRequest request;
    request.member_id = Member();
    request.mode =
        Random(2) == 0 ? ShareAcquireMode::kBatchOptimized : ShareAcquireMode::kRecordLimit;
    request.batch_size = static_cast<int32_t>(1 + Random(20));
    request.max_fetch_records = static_cast<int32_t>(1 + Random(30));
    request.fetch_offset = fetch_offset;
    // The log read: from the batch holding the fetch offset, a few batches.
    size_t index = 0;
    while (index < log_.size() && log_[index].last_offset < fetch_offset) ++index;
    for (int64_t n = 1 + Random(5); n > 0 && index < log_.size(); --n, ++index) {
      request.batches.push_back(log_[index]);
    }
    if (request.batches.empty()) return;
    int64_t fetched_first = request.batches.front().base_offset;
    int64_t fetched_last = request.batches.back().last_offset;
    if (config_.max_record_locks > model_.InFlight() || fetch_offset <= model_.end) {
      model_.ArchiveStale(fetch_offset, fetched_first);
    }

    bool anything_available = false;
    for (int64_t offset = std::max(fetched_first, model_.start); offset <= fetched_last; ++offset) {
      auto it = model_.cache.find(offset);
      if (it == model_.cache.end() ? offset > model_.end || model_.cache.empty()
                                   : it->second.state == RecordState::kAvailable) {
        anything_available = true;
      }
    }
    bool room = model_.InFlight() < config_.max_record_locks;
    bool was_empty = model_.cache.empty();
    int64_t old_end = model_.end;

    ShareAcquiredRecords acquired = sp_.Acquire(request, now_);
    if (anything_available && room) {
      EXPECT_GT(acquired.count, 0);
    }
    if (request.mode == ShareAcquireMode::kRecordLimit) {
      EXPECT_LE(acquired.count, request.max_fetch_records);
    }
    int32_t total = 0;
    int64_t previous_last = -1;
    std::optional<int64_t> first_new;
    for (const AcquiredRecords& records : acquired.records) {
      ASSERT_LE(records.first_offset, records.last_offset);
      ASSERT_GT(records.first_offset, previous_last);
      ASSERT_GE(records.first_offset, std::max(fetched_first, model_.start));
      ASSERT_LE(records.last_offset, fetched_last);
      previous_last = records.last_offset;
      for (int64_t offset = records.first_offset; offset <= records.last_offset; ++offset) {
        ++total;
        auto it = model_.cache.find(offset);
        if (it == model_.cache.end()) {
          ASSERT_TRUE(was_empty || offset > old_end) << offset;
          ASSERT_EQ(records.delivery_count, 1) << offset;
          if (!first_new) first_new = offset;
          it = model_.cache.try_emplace(offset).first;
        } else {
          ASSERT_EQ(it->second.state, RecordState::kAvailable) << offset;
          ASSERT_EQ(records.delivery_count, it->second.count + 1) << offset;
        }
        it->second.state = RecordState::kAcquired;
        it->second.count = records.delivery_count;
        it->second.member = request.member_id;
        it->second.deadline = now_ + kLock;
      }
    }
    EXPECT_EQ(total, acquired.count);
    records_acquired_ += total;
    // New in-flight batches run from their first acquired offset to the new end offset, holes of
    // the log inside them included; record-limit mode leaves their tail AVAILABLE.
    if (first_new) {
      for (int64_t offset = *first_new; offset <= sp_.EndOffset(); ++offset) {
        model_.cache.try_emplace(offset);
      }
      if (was_empty) model_.start = *first_new;
      model_.end = sp_.EndOffset();
    }
  }

  // An acquired offset of the model and its owner; none when nothing is acquired.
  std::optional<std::pair<int64_t, std::string>> RandomAcquired() {
    std::vector<int64_t> acquired;
    for (const auto& [offset, record] : model_.cache) {
      if (record.state == RecordState::kAcquired) acquired.push_back(offset);
    }
    if (acquired.empty()) return std::nullopt;
    int64_t offset = acquired[Random(acquired.size())];
    return std::make_pair(offset, model_.cache.at(offset).member);
  }

  void DoAcknowledge() {
    std::string member = Member();
    // Mostly what a well-behaved member sends: a run of its own acquired records.
    std::optional<std::pair<int64_t, std::string>> owned;
    if (Random(10) < 7) owned = RandomAcquired();
    if (owned) member = owned->second;
    std::vector<AcknowledgementBatch> batches;
    for (int64_t n = Random(4) == 0 ? 2 + Random(2) : 1; n > 0; --n) {
      AcknowledgementBatch batch;
      if (owned) {
        batch.first_offset = owned->first;
        batch.last_offset = owned->first;
        int64_t length = Random(8);
        while (length-- > 0) {
          auto next = model_.cache.find(batch.last_offset + 1);
          if (next == model_.cache.end() || next->second.member != member) break;
          ++batch.last_offset;
        }
        if (Random(2) == 0) owned = RandomAcquired();
        if (owned && owned->second != member) owned.reset();
      } else {
        batch.first_offset = model_.start - 3 + Random(model_.end - model_.start + 8);
        batch.last_offset = batch.first_offset + Random(6) - (Random(30) == 0 ? 3 : 0);
      }
      int64_t size = batch.last_offset - batch.first_offset + 1;
      int64_t kind = Random(20);
      int8_t bad = Random(10) == 0 ? 5 : -1;
      if (kind < 12 || size <= 0) {
        batch.acknowledge_types = {static_cast<int8_t>(Random(5))};
      } else if (kind < 19) {
        for (int64_t i = 0; i < size; ++i) {
          batch.acknowledge_types.push_back(static_cast<int8_t>(Random(5)));
        }
      } else {
        batch.acknowledge_types = {1, 1};  // wrong count (unless size is 2)
      }
      if (bad >= 0 && Random(4) == 0) batch.acknowledge_types.back() = bad;
      batches.push_back(std::move(batch));
    }
    int16_t expected = model_.Acknowledge(member, batches, now_);
    ShareError error = sp_.Acknowledge(member, batches, now_);
    EXPECT_EQ(error.code(), expected) << error.message();
    ++(error.ok() ? acks_applied_ : acks_refused_);
  }

  void Compare(int step) {
    Status invariants = sp_.CheckInvariants();
    ASSERT_TRUE(invariants.ok()) << "step " << step << ": " << invariants.ToString();
    ASSERT_EQ(sp_.StartOffset(), model_.start) << "step " << step;
    ASSERT_EQ(sp_.EndOffset(), model_.end) << "step " << step;
    ASSERT_EQ(sp_.NextFetchOffset(), model_.NextFetch()) << "step " << step;
    ASSERT_EQ(sp_.NextLockDeadline(), model_.NextDeadline()) << "step " << step;
    ASSERT_EQ(sp_.InFlightRecords(), model_.InFlight()) << "step " << step;
    ASSERT_FALSE(sp_.StateOf(model_.start - 1).has_value()) << "step " << step;
    for (const auto& [offset, record] : model_.cache) {
      std::optional<OffsetSnapshot> state = sp_.StateOf(offset);
      ASSERT_TRUE(state.has_value()) << "step " << step << " offset " << offset;
      ASSERT_EQ(state->state, record.state) << "step " << step << " offset " << offset;
      ASSERT_EQ(state->delivery_count, record.count) << "step " << step << " offset " << offset;
      ASSERT_EQ(state->member_id, record.member) << "step " << step << " offset " << offset;
      if (record.state == RecordState::kAcquired) {
        ASSERT_EQ(state->lock_deadline_ms, record.deadline) << "step " << step;
      }
    }
    if (!model_.cache.empty()) {
      ASSERT_FALSE(sp_.StateOf(model_.end + 1).has_value()) << "step " << step;
      for (int64_t offset = model_.start; offset <= model_.end; ++offset) {
        if (model_.cache.count(offset) == 0) {
          ASSERT_FALSE(sp_.StateOf(offset).has_value()) << "step " << step << " hole " << offset;
        }
      }
    }
  }

  int64_t Delivered() const { return model_.start; }
  int64_t acks_applied() const { return acks_applied_; }
  int64_t acks_refused() const { return acks_refused_; }
  int64_t records_acquired() const { return records_acquired_; }

 private:
  std::mt19937 rng_;
  SharePartitionConfig config_;
  Model model_;
  SharePartition sp_;
  std::vector<FetchedBatch> log_;
  int64_t now_ = 0;
  int64_t acks_applied_ = 0;
  int64_t acks_refused_ = 0;
  int64_t records_acquired_ = 0;
};

void RunSeed(uint32_t seed, const SharePartitionConfig& config, int steps, bool holes = false) {
  Runner runner(seed, config, holes);
  for (int step = 0; step < steps; ++step) {
    runner.Step(step);
    if (::testing::Test::HasFatalFailure() || ::testing::Test::HasNonfatalFailure()) {
      FAIL() << "seed " << seed << " diverged at step " << step;
    }
  }
  // The run made progress through the log and took both paths of acknowledgements.
  EXPECT_GT(runner.Delivered(), 0) << "seed " << seed;
  EXPECT_GT(runner.acks_applied(), steps / 20) << "seed " << seed;
  EXPECT_GT(runner.acks_refused(), steps / 20) << "seed " << seed;
  EXPECT_GT(runner.records_acquired(), steps / 10) << "seed " << seed;
  std::printf(
      "seed %u: start offset %lld, %lld acknowledgements applied, %lld refused, %lld records "
      "acquired\n",
      seed, static_cast<long long>(runner.Delivered()),
      static_cast<long long>(runner.acks_applied()), static_cast<long long>(runner.acks_refused()),
      static_cast<long long>(runner.records_acquired()));
}

TEST(SharePartitionModelTest, DefaultLimits) {
  SharePartitionConfig config;
  config.record_lock_duration_ms = kLock;
  for (uint32_t seed : {1u, 2u, 3u}) {
    RunSeed(seed, config, 3000);
    if (HasFailure()) break;
  }
}

TEST(SharePartitionModelTest, LowDeliveryLimitAndFewLocks) {
  SharePartitionConfig config;
  config.record_lock_duration_ms = kLock;
  config.delivery_count_limit = 2;
  config.max_record_locks = 12;
  for (uint32_t seed : {11u, 12u, 13u}) {
    RunSeed(seed, config, 3000);
    if (HasFailure()) break;
  }
}

TEST(SharePartitionModelTest, HighDeliveryLimitThrottles) {
  SharePartitionConfig config;
  config.record_lock_duration_ms = kLock;
  config.delivery_count_limit = 10;
  config.max_record_locks = 40;
  for (uint32_t seed : {21u, 22u}) {
    RunSeed(seed, config, 3000);
    if (HasFailure()) break;
  }
}

TEST(SharePartitionModelTest, LogWithHoles) {
  SharePartitionConfig config;
  config.record_lock_duration_ms = kLock;
  config.max_record_locks = 60;
  for (uint32_t seed : {31u, 32u, 33u}) {
    RunSeed(seed, config, 3000, /*holes=*/true);
    if (HasFailure()) break;
  }
}

}  // namespace
}  // namespace seglog
