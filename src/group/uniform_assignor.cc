// UniformAssignor; see uniform_assignor.h. Both builders follow Kafka's step by step, on member
// indexes (0..M-1 in member id order, where Kafka numbers members in HashMap order) and one
// owner array per subscribed topic.
#include "group/uniform_assignor.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <utility>
#include <vector>

namespace seglog {
namespace {

constexpr int kNoOwner = -1;

// Kafka's MAX_ITERATION_COUNT: the passes over the topics the heterogeneous balancing makes at
// most. Identical subscriptions converge in one pass (and a second finds nothing to move);
// overlapping ones roughly halve the imbalance per pass.
constexpr int kMaxBalancePasses = 16;

// A subscribed topic while its partitions are being assigned.
struct TopicState {
  int32_t num_partitions = 0;
  std::vector<int> subscribers;  // member indexes, ascending
  std::vector<int> owners;       // partition -> member index, or kNoOwner
};

using Topics = std::map<Uuid, TopicState, UuidLess>;
using TopicEntry = Topics::value_type;

// The group as the builders see it: its members by member id and the topics they subscribe
// to, each partition with the member that keeps it from the current assignment.
struct Group {
  std::vector<const AssignmentMemberSpec*> members;
  Topics topics;
};

// REQUIRES: CheckAssignmentSpec(spec) is OK.
//
// Kafka trusts `assigned` to be a target assignment it made (disjoint, within the partition
// counts); we do not: a partition past its topic's count is dropped, and a partition two members
// claim stays with the first in member id order. A partition of a topic the member no longer
// subscribes to is dropped (revoked), as Kafka does.
Group BuildGroup(const AssignmentSpec& spec) {
  Group group;
  for (const AssignmentMemberSpec& member : spec.members) group.members.push_back(&member);
  std::sort(group.members.begin(), group.members.end(),
            [](const AssignmentMemberSpec* a, const AssignmentMemberSpec* b) {
              return a->member_id < b->member_id;
            });
  const int num_members = static_cast<int>(group.members.size());
  for (int i = 0; i < num_members; ++i) {
    for (const Uuid& topic_id : group.members[i]->subscribed_topic_ids) {
      TopicState& topic = group.topics[topic_id];
      if (topic.subscribers.empty()) {
        topic.num_partitions = spec.topics.find(topic_id)->second.num_partitions;
        topic.owners.assign(topic.num_partitions, kNoOwner);
      }
      topic.subscribers.push_back(i);
    }
  }
  for (int i = 0; i < num_members; ++i) {
    const AssignmentMemberSpec& member = *group.members[i];
    for (const auto& [topic_id, partitions] : member.assigned) {
      if (member.subscribed_topic_ids.count(topic_id) == 0) continue;
      TopicState& topic = group.topics.find(topic_id)->second;
      for (int32_t partition : partitions) {
        if (partition < 0 || partition >= topic.num_partitions) continue;
        if (topic.owners[partition] == kNoOwner) topic.owners[partition] = i;
      }
    }
  }
  return group;
}

// The owner arrays as the assignment: one entry per member, empty for those without partitions.
GroupAssignment Collect(const Group& group) {
  GroupAssignment assignment;
  std::vector<TopicPartitions*> by_index;
  for (const AssignmentMemberSpec* member : group.members) {
    by_index.push_back(&assignment[member->member_id]);
  }
  for (const auto& [topic_id, topic] : group.topics) {
    for (int32_t partition = 0; partition < topic.num_partitions; ++partition) {
      const int owner = topic.owners[partition];
      if (owner == kNoOwner) continue;
      std::set<int32_t>& partitions = (*by_index[owner])[topic_id];
      partitions.insert(partitions.end(), partition);
    }
  }
  return assignment;
}

[[noreturn]] void BrokenInvariant(const char* what, long long a, long long b) {
  std::fprintf(stderr, "seglog: uniform assignor: %s (%lld vs %lld)\n", what, a, b);
  std::abort();
}

// Kafka's UniformHomogeneousAssignmentBuilder. REQUIRES: every member subscribes to the same
// topics, and there is at least one member.
void AssignHomogeneous(Group& group) {
  using Partition = std::pair<TopicState*, int32_t>;
  const int num_members = static_cast<int>(group.members.size());

  // The partitions nobody keeps come first in the unassigned list; each member's own
  // partitions are visited in topic id, then partition order (Kafka: HashMap and HashSet order).
  std::vector<Partition> unassigned;
  std::vector<std::vector<Partition>> owned(num_members);
  int64_t total = 0;
  for (auto& [topic_id, topic] : group.topics) {
    total += topic.num_partitions;
    for (int32_t partition = 0; partition < topic.num_partitions; ++partition) {
      const int owner = topic.owners[partition];
      if (owner == kNoOwner) {
        unassigned.emplace_back(&topic, partition);
      } else {
        owned[owner].emplace_back(&topic, partition);
      }
    }
  }

  const int64_t min_quota = total / num_members;
  int64_t members_with_extra = total % num_members;

  // Each member keeps up to its quota; the excess joins the unassigned list.
  struct Unfilled {
    int member;
    int64_t remaining;
  };
  std::vector<Unfilled> unfilled;
  for (int i = 0; i < num_members; ++i) {
    int64_t quota = min_quota;
    if (members_with_extra > 0) {
      ++quota;
      --members_with_extra;
    }
    for (const auto& [topic, partition] : owned[i]) {
      if (quota > 0) {
        --quota;
      } else {
        topic->owners[partition] = kNoOwner;
        unassigned.emplace_back(topic, partition);
      }
    }
    if (quota > 0) unfilled.push_back(Unfilled{i, quota});
  }

  // The members below quota fill up from the list, in member order.
  size_t next = 0;
  for (const Unfilled& member : unfilled) {
    for (int64_t k = 0; k < member.remaining && next < unassigned.size(); ++k) {
      const auto& [topic, partition] = unassigned[next++];
      topic->owners[partition] = member.member;
    }
  }
  // Invariant: the quotas add up to the partition count and nobody kept more than its quota,
  // so the members below quota take the whole list (Kafka: "Partitions were left unassigned").
  if (next != unassigned.size()) {
    BrokenInvariant("partitions were left unassigned", static_cast<long long>(next),
                    static_cast<long long>(unassigned.size()));
  }
}

// Kafka's UniformHeterogeneousAssignmentBuilder.MemberAssignmentBalancer: hands out the least-
// and most-loaded subscribers of one topic in turn, as partitions are given to the former and
// taken from the latter. It keeps two ranges of `sorted_members_`, which starts in ascending
// load: [0, least_loaded_end_) of the members at the lowest level, which grows rightwards once
// each of them has had a partition, and [most_loaded_start_, most_loaded_end_) of those at the
// highest level, which grows leftwards and loses the members that have nothing to give up.
//
// Thread safety: not thread-safe; one builder uses it.
class MemberAssignmentBalancer {
 public:
  explicit MemberAssignmentBalancer(const std::vector<int>* loads) : loads_(*loads) {}

  // Starts over for `members` (REQUIRES: not empty). Returns the difference between the
  // highest and the lowest load among them.
  int Initialize(const std::vector<int>& members) {
    sorted_members_ = members;
    std::sort(sorted_members_.begin(), sorted_members_.end(), [this](int a, int b) {
      return loads_[a] != loads_[b] ? loads_[a] < loads_[b] : a < b;
    });
    const int size = static_cast<int>(sorted_members_.size());
    least_loaded_end_ = 0;
    least_loaded_level_ = loads_[sorted_members_.front()] - 1;
    next_least_loaded_ = 0;
    most_loaded_start_ = size;
    most_loaded_end_ = size;
    most_loaded_level_ = loads_[sorted_members_.back()] + 1;
    next_most_loaded_ = size - 1;
    return loads_[sorted_members_.back()] - loads_[sorted_members_.front()];
  }

  // The member to give the next partition to; assumes that it gets one.
  int NextLeastLoaded() {
    if (next_least_loaded_ >= least_loaded_end_) {
      // Everyone in the range has had one: the range is a level higher and may take in the
      // members that were already there.
      ++least_loaded_level_;
      const int size = static_cast<int>(sorted_members_.size());
      while (least_loaded_end_ < size &&
             loads_[sorted_members_[least_loaded_end_]] == least_loaded_level_) {
        ++least_loaded_end_;
      }
      next_least_loaded_ = 0;
    }
    return sorted_members_[next_least_loaded_++];
  }

  // The member to take the next partition from, or -1 when none is left; assumes that it
  // loses one.
  int NextMostLoaded() {
    if (next_most_loaded_ < most_loaded_start_) {
      if (most_loaded_end_ <= most_loaded_start_ && most_loaded_start_ > 0) {
        // Exclusions emptied the range: restart it at the level of the next member down, so
        // that it grows by at least that member.
        most_loaded_level_ = loads_[sorted_members_[most_loaded_start_ - 1]];
      } else {
        --most_loaded_level_;
      }
      while (most_loaded_start_ > 0 &&
             loads_[sorted_members_[most_loaded_start_ - 1]] == most_loaded_level_) {
        --most_loaded_start_;
      }
      next_most_loaded_ = most_loaded_end_ - 1;
    }
    if (next_most_loaded_ < 0) return -1;
    return sorted_members_[next_most_loaded_--];
  }

  // Drops the member NextMostLoaded last returned from the most-loaded range (it has nothing
  // of the topic to give up). REQUIRES: NextMostLoaded returned a member.
  void ExcludeMostLoaded() {
    std::swap(sorted_members_[next_most_loaded_ + 1], sorted_members_[most_loaded_end_ - 1]);
    --most_loaded_end_;
  }

  // Whether the levels of the two ranges differ by at most one.
  bool IsBalanced() const { return most_loaded_level_ - least_loaded_level_ <= 1; }

 private:
  const std::vector<int>& loads_;
  std::vector<int> sorted_members_;
  int least_loaded_end_ = 0;  // exclusive
  int least_loaded_level_ = -1;
  int next_least_loaded_ = 0;
  int most_loaded_start_ = 0;
  int most_loaded_end_ = 0;  // exclusive
  int most_loaded_level_ = 1;
  int next_most_loaded_ = -1;
};

// Kafka's UniformHeterogeneousAssignmentBuilder.
//
// Thread safety: not thread-safe; one Assign call builds with it.
class HeterogeneousBuilder {
 public:
  explicit HeterogeneousBuilder(Group* group)
      : group_(*group), loads_(group->members.size(), 0), balancer_(&loads_) {
    for (const auto& [topic_id, topic] : group_.topics) {
      for (int owner : topic.owners) {
        if (owner != kNoOwner) ++loads_[owner];
      }
    }
  }

  void Build() {
    AssignRemainingPartitions();
    Balance();
  }

 private:
  // Partitions per subscriber, descending; then subscriber count, ascending; then topic id.
  // Kafka compares the ratios as doubles; so do we.
  static bool TopicBefore(const TopicEntry* a, const TopicEntry* b) {
    const auto subscribers_a = static_cast<double>(a->second.subscribers.size());
    const auto subscribers_b = static_cast<double>(b->second.subscribers.size());
    const double per_subscriber_a = a->second.num_partitions / subscribers_a;
    const double per_subscriber_b = b->second.num_partitions / subscribers_b;
    if (per_subscriber_a != per_subscriber_b) return per_subscriber_a > per_subscriber_b;
    if (subscribers_a != subscribers_b) return subscribers_a < subscribers_b;
    return UuidLess()(a->first, b->first);
  }

  void AssignPartition(TopicState& topic, int32_t partition, int member) {
    const int old_owner = topic.owners[partition];
    if (old_owner != kNoOwner) --loads_[old_owner];
    topic.owners[partition] = member;
    ++loads_[member];
  }

  // Each partition nobody keeps goes to the least-loaded subscriber of its topic.
  void AssignRemainingPartitions() {
    std::vector<TopicEntry*> topics;
    for (TopicEntry& entry : group_.topics) {
      const std::vector<int>& owners = entry.second.owners;
      if (std::find(owners.begin(), owners.end(), kNoOwner) != owners.end()) {
        topics.push_back(&entry);
      }
    }
    std::sort(topics.begin(), topics.end(), TopicBefore);
    for (TopicEntry* entry : topics) {
      TopicState& topic = entry->second;
      balancer_.Initialize(topic.subscribers);
      for (int32_t partition = 0; partition < topic.num_partitions; ++partition) {
        if (topic.owners[partition] != kNoOwner) continue;
        AssignPartition(topic, partition, balancer_.NextLeastLoaded());
      }
    }
  }

  // Passes over the topics with two or more subscribers until a whole pass moves nothing.
  void Balance() {
    std::vector<TopicEntry*> topics;
    for (TopicEntry& entry : group_.topics) {
      if (entry.second.subscribers.size() >= 2) topics.push_back(&entry);
    }
    if (topics.empty()) return;
    std::sort(topics.begin(), topics.end(), TopicBefore);
    // The index of the topic that last moved partitions (or the first visited).
    int last_moved = -1;
    for (int pass = 0; pass < kMaxBalancePasses; ++pass) {
      for (int i = 0; i < static_cast<int>(topics.size()); ++i) {
        // Back at the topic that last moved something: a whole pass moved nothing.
        if (i == last_moved) return;
        const int moved = BalanceTopic(topics[i]->second);
        if (moved > 0 || last_moved == -1) last_moved = i;
      }
    }
  }

  // Moves partitions of `topic` from its most-loaded subscribers (each one's highest partition
  // numbers first) to its least-loaded ones until their levels differ by at most one. Returns
  // the number moved. REQUIRES: every partition of the topic has an owner.
  int BalanceTopic(TopicState& topic) {
    if (balancer_.Initialize(topic.subscribers) <= 1) return 0;

    // The partitions grouped by owner (then ascending); [start, end) of each owner's group.
    partitions_.clear();
    for (int32_t partition = 0; partition < topic.num_partitions; ++partition) {
      partitions_.push_back(partition);
    }
    std::sort(partitions_.begin(), partitions_.end(), [&topic](int32_t a, int32_t b) {
      const int owner_a = topic.owners[a];
      const int owner_b = topic.owners[b];
      return owner_a != owner_b ? owner_a < owner_b : a < b;
    });
    start_.assign(loads_.size(), 0);
    end_.assign(loads_.size(), 0);
    for (int i = static_cast<int>(partitions_.size()) - 1; i >= 0; --i) {
      const int owner = topic.owners[partitions_[i]];
      if (owner == kNoOwner) BrokenInvariant("unowned partition while balancing", i, owner);
      if (end_[owner] == 0) end_[owner] = i + 1;
      start_[owner] = i;
    }

    int moved = 0;
    while (!balancer_.IsBalanced()) {
      int most_loaded = -1;
      for (;;) {
        most_loaded = balancer_.NextMostLoaded();
        if (most_loaded == -1) break;
        if (end_[most_loaded] - start_[most_loaded] > 0) break;
        balancer_.ExcludeMostLoaded();  // nothing of this topic to give up
      }
      if (most_loaded == -1) break;

      const int32_t partition = partitions_[--end_[most_loaded]];
      const int least_loaded = balancer_.NextLeastLoaded();
      // The levels the two came from are within one: the topic is balanced.
      if (balancer_.IsBalanced()) break;
      AssignPartition(topic, partition, least_loaded);
      ++moved;
    }
    return moved;
  }

  Group& group_;
  std::vector<int> loads_;  // member index -> partitions over all topics
  MemberAssignmentBalancer balancer_;
  // BalanceTopic's scratch space, kept between topics.
  std::vector<int32_t> partitions_;
  std::vector<int> start_;
  std::vector<int> end_;  // exclusive
};

}  // namespace

Result<GroupAssignment> UniformAssignor::Assign(const AssignmentSpec& spec) const {
  SEGLOG_RETURN_IF_ERROR(CheckAssignmentSpec(spec));
  Group group = BuildGroup(spec);
  if (group.members.empty()) return GroupAssignment{};
  // Kafka's SubscriptionType: homogeneous when every member subscribes to the same topics.
  // Kafka counts subscribed topic names, topics that do not exist included; the spec carries
  // only the ids of existing topics, so members that differ only in missing topics are
  // homogeneous here and heterogeneous in Kafka (both builders balance, but may place
  // partitions differently).
  const bool homogeneous =
      std::all_of(group.members.begin(), group.members.end(), [&](const AssignmentMemberSpec* m) {
        return m->subscribed_topic_ids == group.members.front()->subscribed_topic_ids;
      });
  if (homogeneous) {
    AssignHomogeneous(group);
  } else {
    HeterogeneousBuilder builder(&group);
    builder.Build();
  }
  return Collect(group);
}

}  // namespace seglog
