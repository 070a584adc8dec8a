// GroupConfig; see group_config.h.
#include "group/group_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

namespace seglog {

namespace {

using T = GroupConfigType;

constexpr GroupConfigDef kDefs[] = {
    {"consumer.session.timeout.ms", T::kInt, "45000", "group.consumer.session.timeout.ms", false,
     "The timeout to detect client failures when using the consumer group protocol."},
    {"consumer.heartbeat.interval.ms", T::kInt, "5000", "group.consumer.heartbeat.interval.ms",
     false, "The heartbeat interval given to the members of a consumer group."},
    {"consumer.assignment.interval.ms", T::kInt, "1000", "group.consumer.assignment.interval.ms",
     false, "The interval between assignment updates for a consumer group."},
    {"consumer.assignor.offload.enable", T::kBoolean, "true",
     "group.consumer.assignor.offload.enable", true,
     "Whether to offload consumer group assignment to a group coordinator background thread."},
    {"share.session.timeout.ms", T::kInt, "45000", "group.share.session.timeout.ms", false,
     "The timeout to detect client failures when using the share group protocol."},
    {"share.heartbeat.interval.ms", T::kInt, "5000", "group.share.heartbeat.interval.ms", false,
     "The heartbeat interval given to the members of a share group."},
    {"share.record.lock.duration.ms", T::kInt, "30000", "group.share.record.lock.duration.ms",
     false, "The record acquisition lock duration in milliseconds for share groups."},
    {"share.delivery.count.limit", T::kInt, "5", "group.share.delivery.count.limit", false,
     "The maximum number of delivery attempts for a record delivered to a share group."},
    {"share.partition.max.record.locks", T::kInt, "2000", "group.share.partition.max.record.locks",
     false, "Share-group record lock limit per share-partition."},
    {"share.auto.offset.reset", T::kString, "latest", nullptr, false,
     "The strategy to initialize the share-partition start offset. <ul><li>earliest: "
     "automatically reset the offset to the earliest offset</li><li>latest: automatically reset "
     "the offset to the latest offset</li><li>by_duration:&lt;duration&gt;: automatically reset "
     "the offset to a configured duration from the current timestamp. &lt;duration&gt; must be "
     "specified in ISO8601 format (PnDTnHnMn.nS). Negative duration is not allowed.</li><li>"
     "anything else: throw exception to the share consumer.</li></ul>"},
    {"share.isolation.level", T::kString, "read_uncommitted", nullptr, false,
     "Controls how to read records written transactionally. If set to \"read_committed\", the "
     "share group will only deliver transactional records which have been committed. If set to "
     "\"read_uncommitted\", the share group will return all messages, even transactional "
     "messages which have been aborted. Non-transactional records will be returned "
     "unconditionally in either mode."},
    {"share.renew.acknowledge.enable", T::kBoolean, "true", nullptr, false,
     "Whether the renew acknowledge type is enabled for the share group."},
    {"share.assignment.interval.ms", T::kInt, "1000", "group.share.assignment.interval.ms", false,
     "The interval between assignment updates for a share group."},
    {"share.assignor.offload.enable", T::kBoolean, "true", "group.share.assignor.offload.enable",
     true, "Whether to offload share group assignment to a group coordinator background thread."},
    {"streams.session.timeout.ms", T::kInt, "45000", "group.streams.session.timeout.ms", false,
     "The timeout to detect client failures when using the streams group protocol."},
    {"streams.heartbeat.interval.ms", T::kInt, "5000", "group.streams.heartbeat.interval.ms", false,
     "The heartbeat interval given to the members."},
    {"streams.num.standby.replicas", T::kInt, "0", "group.streams.num.standby.replicas", false,
     "The number of standby replicas for each task."},
    {"streams.initial.rebalance.delay.ms", T::kInt, "3000",
     "group.streams.initial.rebalance.delay.ms", false,
     "The amount of time the group coordinator will wait for more streams clients to join a new "
     "group before performing the first rebalance. A longer delay means potentially fewer "
     "rebalances."},
    {"streams.assignment.interval.ms", T::kInt, "1000", "group.streams.assignment.interval.ms",
     false, "The interval between assignment updates for a streams group."},
    {"streams.assignor.offload.enable", T::kBoolean, "true",
     "group.streams.assignor.offload.enable", true,
     "Whether to offload streams group assignment to a group coordinator background thread."},
    {"streams.task.offset.interval.ms", T::kInt, "60000", "group.streams.task.offset.interval.ms",
     true,
     "The interval in which the warmup task changelog offsets on a client are updated on the "
     "broker. The offsets are sent with the next heartbeat after this time has passed."},
    {"streams.num.warmup.replicas", T::kInt, "2", "group.streams.num.warmup.replicas", true,
     "The maximum number of warmup task replicas."},
    {"streams.rack.aware.assignment.tags", T::kList, "", "group.streams.rack.aware.assignment.tags",
     false,
     "List of client tag keys used to distribute standby replicas across Kafka Streams "
     "instances. When configured, and the used broker-side assignor supports it, it will make a "
     "best-effort to distribute standby tasks over each client tag dimension."},
    {"streams.acceptable.recovery.lag", T::kLong, "10000", "group.streams.acceptable.recovery.lag",
     true,
     "The maximum acceptable lag (number of offsets to catch up) for a client to be considered "
     "caught-up enough to receive an active task assignment."},
    {"streams.assignor.name", T::kString, nullptr, "group.streams.assignors", false,
     "The task assignor to use for this streams group, selected by short name from the "
     "assignors registered via the broker configuration group.streams.assignors. When unset, "
     "the group defaults to the first assignor configured in the broker's "
     "group.streams.assignors setting. Changing the assignor does not trigger a rebalance for "
     "the group; the new assignor takes effect on the next rebalance."},
    {"errors.deadletterqueue.topic.name", T::kString, "", nullptr, false,
     "The name of the topic to be used as the dead-letter queue (DLQ) topic for this share "
     "group. If blank (the default), the group does not have a DLQ topic."},
    {"errors.deadletterqueue.copy.record.enable", T::kBoolean, "false", nullptr, false,
     "When writing onto the dead-letter queue topic, whether to copy the original record onto "
     "the DLQ topic, or just write a record containing the context information headers."},
};

// The CONFIG_DEF minimum of each INT or LONG key (its Range.atLeast).
int64_t MinimumOf(std::string_view name) {
  static const std::map<std::string_view, int64_t> kMin = {
      {"consumer.session.timeout.ms", 1},        {"consumer.heartbeat.interval.ms", 1},
      {"consumer.assignment.interval.ms", 0},    {"share.session.timeout.ms", 1},
      {"share.heartbeat.interval.ms", 1},        {"share.record.lock.duration.ms", 1000},
      {"share.delivery.count.limit", 2},         {"share.partition.max.record.locks", 100},
      {"share.assignment.interval.ms", 0},       {"streams.session.timeout.ms", 1},
      {"streams.heartbeat.interval.ms", 1},      {"streams.num.standby.replicas", 0},
      {"streams.initial.rebalance.delay.ms", 0}, {"streams.assignment.interval.ms", 0},
      {"streams.task.offset.interval.ms", 1},    {"streams.num.warmup.replicas", 0},
      {"streams.acceptable.recovery.lag", 0},
  };
  auto it = kMin.find(name);
  return it != kMin.end() ? it->second : INT64_MIN;
}

std::string Trim(std::string_view v) {
  size_t b = 0;
  size_t e = v.size();
  while (b < e && std::isspace(static_cast<unsigned char>(v[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(v[e - 1]))) --e;
  return std::string(v.substr(b, e - b));
}

std::string Lower(std::string v) {
  for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return v;
}

template <typename V>
bool ParseNumber(const std::string& v, V* out) {
  const char* begin = v.data();
  if (!v.empty() && v[0] == '+') ++begin;  // Integer.parseInt takes a '+'
  auto [end, ec] = std::from_chars(begin, v.data() + v.size(), *out);
  return !v.empty() && ec == std::errc() && end == v.data() + v.size();
}

bool ParseBoolean(const std::string& v, bool* out) {
  const std::string t = Lower(Trim(v));
  if (t == "true") *out = true;
  if (t == "false") *out = false;
  return t == "true" || t == "false";
}

// "a , b,c" -> {"a", "b", "c"} as Kafka splits a LIST ("\\s*,\\s*", empty items kept).
std::vector<std::string> SplitList(const std::string& value) {
  std::vector<std::string> out;
  const std::string t = Trim(value);
  if (t.empty()) return out;
  size_t start = 0;
  while (true) {
    size_t comma = t.find(',', start);
    out.push_back(Trim(t.substr(start, comma == std::string::npos ? comma : comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

Status Invalid(std::string message) { return Status::InvalidArgument(std::move(message)); }

Status ConfigInvalid(const std::string& name, const std::string& value, const std::string& why) {
  return Invalid(fmt::format("Invalid value {} for configuration {}: {}", value, name, why));
}

// One key's value parsed as CONFIG_DEF.parse does it (type, then validator); the parsed value
// as Kafka prints it into *parsed.
Status ParseValue(const GroupConfigDef& def, const std::string& raw, std::string* parsed) {
  const std::string v = Trim(raw);
  switch (def.type) {
    case T::kInt:
    case T::kLong: {
      int64_t n = 0;
      bool ok = false;
      if (def.type == T::kInt) {
        int32_t i = 0;
        ok = ParseNumber(v, &i);
        n = i;
      } else {
        ok = ParseNumber(v, &n);
      }
      if (!ok) {
        return ConfigInvalid(
            def.name, raw,
            def.type == T::kInt ? "Not a number of type INT" : "Not a number of type LONG");
      }
      if (n < MinimumOf(def.name)) {
        return ConfigInvalid(def.name, std::to_string(n),
                             fmt::format("Value must be at least {}", MinimumOf(def.name)));
      }
      *parsed = std::to_string(n);
      return Status::OK();
    }
    case T::kBoolean: {
      bool b = false;
      if (!ParseBoolean(v, &b)) {
        return ConfigInvalid(def.name, raw, "Expected value to be either true or false");
      }
      *parsed = b ? "true" : "false";
      return Status::OK();
    }
    case T::kList:
      *parsed = fmt::format("{}", fmt::join(SplitList(v), ","));
      return Status::OK();
    case T::kString:
      break;
  }
  const std::string name = def.name;
  if (name == "share.auto.offset.reset" && !ParseShareAutoOffsetReset(v).has_value()) {
    return ConfigInvalid(
        name, v,
        fmt::format("Invalid value `{}` for configuration {}. The value must be either "
                    "'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS>'.",
                    v, name));
  }
  if (name == "share.isolation.level" && v != "read_committed" && v != "read_uncommitted") {
    return ConfigInvalid(name, v, "String must be one of: read_committed, read_uncommitted");
  }
  *parsed = v;
  return Status::OK();
}

Status CheckRange(const std::map<std::string, std::string>& parsed, const std::string& key,
                  int32_t min, int32_t max) {
  auto it = parsed.find(key);
  if (it == parsed.end()) return Status::OK();
  const int64_t v = std::stoll(it->second);
  if (v < min || v > max) {
    return Invalid(fmt::format("{} must be in the range {} to {} inclusive.", key, min, max));
  }
  return Status::OK();
}

Status CheckMax(const std::map<std::string, std::string>& parsed, const std::string& key,
                int32_t max) {
  auto it = parsed.find(key);
  if (it != parsed.end() && std::stoll(it->second) > max) {
    return Invalid(fmt::format("{} must be less than or equal to {}", key, max));
  }
  return Status::OK();
}

Status CheckMin(const std::map<std::string, std::string>& parsed, const std::string& key,
                int32_t min) {
  auto it = parsed.find(key);
  if (it != parsed.end() && std::stoll(it->second) < min) {
    return Invalid(fmt::format("{} must be greater than or equal to {}", key, min));
  }
  return Status::OK();
}

Status CheckSessionExceedsHeartbeat(const std::map<std::string, std::string>& parsed,
                                    const std::string& session_key, int32_t default_session,
                                    const std::string& heartbeat_key, int32_t default_heartbeat) {
  auto s = parsed.find(session_key);
  auto h = parsed.find(heartbeat_key);
  if (s == parsed.end() && h == parsed.end()) return Status::OK();
  const int64_t session = s != parsed.end() ? std::stoll(s->second) : default_session;
  const int64_t heartbeat = h != parsed.end() ? std::stoll(h->second) : default_heartbeat;
  if (session <= heartbeat) {
    return Invalid(fmt::format("{} must be greater than {}", session_key, heartbeat_key));
  }
  return Status::OK();
}

#define SEGLOG_GROUP_CONFIG_CHECK(expr) \
  do {                                  \
    Status s_ = (expr);                 \
    if (!s_.ok()) return s_;            \
  } while (0)

// Wide enough for any Duration in nanoseconds (Java keeps seconds as a long plus nanos).
__extension__ typedef __int128 Wide;

// Java's Duration.parse ("PnDTnHnMn.nS", signs allowed per part, case-insensitive) in
// milliseconds (Duration.toMillis: truncated towards negative infinity); nullopt when it does
// not parse.
std::optional<int64_t> ParseIsoDurationMs(std::string_view text) {
  std::string s = Lower(std::string(text));
  size_t i = 0;
  bool negate = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negate = s[i++] == '-';
  if (i >= s.size() || s[i] != 'p') return std::nullopt;
  ++i;
  Wide nanos = 0;
  bool any = false;
  bool in_time = false;
  bool time_any = false;
  char last = 0;  // the last unit read, to keep the order D < H < M < S
  auto order = [](char u, bool t) { return t ? (u == 'h' ? 2 : u == 'm' ? 3 : 4) : 1; };
  while (i < s.size()) {
    if (s[i] == 't') {
      if (in_time) return std::nullopt;
      in_time = true;
      ++i;
      continue;
    }
    size_t start = i;
    bool neg = false;
    if (s[i] == '+' || s[i] == '-') neg = s[i++] == '-';
    size_t digits = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    if (i == digits || digits - start > 1 || i - digits > 19) return std::nullopt;
    Wide whole = 0;
    for (size_t k = digits; k < i; ++k) whole = whole * 10 + (s[k] - '0');
    Wide fraction = 0;  // nanoseconds, seconds only
    if (i < s.size() && (s[i] == '.' || s[i] == ',')) {
      if (!in_time) return std::nullopt;
      size_t f = ++i;
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
      if (i - f > 9) return std::nullopt;
      std::string frac = s.substr(f, i - f);
      frac.resize(9, '0');
      for (char c : frac) fraction = fraction * 10 + (c - '0');
      if (i >= s.size() || s[i] != 's') return std::nullopt;
    }
    if (i >= s.size()) return std::nullopt;
    const char unit = s[i++];
    if ((!in_time && unit != 'd') || (in_time && unit != 'h' && unit != 'm' && unit != 's')) {
      return std::nullopt;
    }
    if (last != 0 && order(unit, in_time) <= order(last, in_time && last != 'd')) {
      return std::nullopt;
    }
    last = unit;
    const Wide per = unit == 'd'   ? Wide(86400) * 1000000000
                     : unit == 'h' ? Wide(3600) * 1000000000
                     : unit == 'm' ? Wide(60) * 1000000000
                                   : Wide(1000000000);
    Wide part = whole * per + fraction;
    nanos += neg ? -part : part;
    any = true;
    if (in_time) time_any = true;
  }
  if (!any || (in_time && !time_any)) return std::nullopt;
  if (negate) nanos = -nanos;
  Wide ms = nanos / 1000000;
  if (nanos % 1000000 < 0) --ms;
  if (ms > INT64_MAX || ms < INT64_MIN) return std::nullopt;
  return static_cast<int64_t>(ms);
}

int32_t Clamp(int32_t v, int32_t min, int32_t max) { return std::max(min, std::min(v, max)); }

}  // namespace

std::span<const GroupConfigDef> GroupConfigDefs() { return kDefs; }

const GroupConfigDef* FindGroupConfigDef(std::string_view name) {
  for (const GroupConfigDef& d : kDefs) {
    if (name == d.name) return &d;
  }
  return nullptr;
}

std::optional<ShareAutoOffsetReset> ParseShareAutoOffsetReset(std::string_view value) {
  if (value == "latest") return ShareAutoOffsetReset{ShareAutoOffsetReset::Type::kLatest, 0};
  if (value == "earliest") return ShareAutoOffsetReset{ShareAutoOffsetReset::Type::kEarliest, 0};
  constexpr std::string_view kByDuration = "by_duration:";
  if (value.substr(0, kByDuration.size()) != kByDuration) return std::nullopt;
  std::optional<int64_t> ms = ParseIsoDurationMs(value.substr(kByDuration.size()));
  // Invariant: Kafka refuses a negative duration (Duration.isNegative); PT-0.0001S is
  // negative though it truncates to -1 ms, and so is refused here as well.
  if (!ms.has_value() || *ms < 0) return std::nullopt;
  return ShareAutoOffsetReset{ShareAutoOffsetReset::Type::kByDuration, *ms};
}

Status ValidateGroupConfig(const std::map<std::string, std::string>& configs,
                           const GroupCoordinatorConfig& b) {
  for (const auto& [name, value] : configs) {
    if (FindGroupConfigDef(name) == nullptr) {
      return Invalid(fmt::format("Unknown group config name: {}", name));
    }
  }
  if (auto it = configs.find("streams.rack.aware.assignment.tags"); it != configs.end()) {
    const std::vector<std::string> tags = SplitList(it->second);
    if (std::set<std::string>(tags.begin(), tags.end()).size() != tags.size()) {
      return Invalid("streams.rack.aware.assignment.tags must not contain duplicate tag keys.");
    }
  }
  std::map<std::string, std::string> parsed;
  for (const GroupConfigDef& def : kDefs) {
    auto it = configs.find(def.name);
    if (it == configs.end()) continue;
    SEGLOG_GROUP_CONFIG_CHECK(ParseValue(def, it->second, &parsed[def.name]));
  }
  SEGLOG_GROUP_CONFIG_CHECK(CheckRange(parsed, "consumer.heartbeat.interval.ms",
                                       b.group_consumer_min_heartbeat_interval_ms,
                                       b.group_consumer_max_heartbeat_interval_ms));
  SEGLOG_GROUP_CONFIG_CHECK(CheckRange(parsed, "consumer.session.timeout.ms",
                                       b.group_consumer_min_session_timeout_ms,
                                       b.group_consumer_max_session_timeout_ms));
  SEGLOG_GROUP_CONFIG_CHECK(CheckRange(parsed, "consumer.assignment.interval.ms",
                                       b.group_consumer_min_assignment_interval_ms,
                                       b.group_consumer_max_assignment_interval_ms));
  SEGLOG_GROUP_CONFIG_CHECK(CheckRange(parsed, "share.heartbeat.interval.ms",
                                       b.group_share_min_heartbeat_interval_ms,
                                       b.group_share_max_heartbeat_interval_ms));
  SEGLOG_GROUP_CONFIG_CHECK(CheckRange(parsed, "share.session.timeout.ms",
                                       b.group_share_min_session_timeout_ms,
                                       b.group_share_max_session_timeout_ms));
  SEGLOG_GROUP_CONFIG_CHECK(CheckRange(parsed, "share.record.lock.duration.ms",
                                       b.group_share_min_record_lock_duration_ms,
                                       b.group_share_max_record_lock_duration_ms));
  SEGLOG_GROUP_CONFIG_CHECK(CheckRange(parsed, "share.delivery.count.limit",
                                       b.group_share_min_delivery_count_limit,
                                       b.group_share_max_delivery_count_limit));
  SEGLOG_GROUP_CONFIG_CHECK(CheckRange(parsed, "share.partition.max.record.locks",
                                       b.group_share_min_partition_max_record_locks,
                                       b.group_share_max_partition_max_record_locks));
  SEGLOG_GROUP_CONFIG_CHECK(CheckRange(parsed, "share.assignment.interval.ms",
                                       b.group_share_min_assignment_interval_ms,
                                       b.group_share_max_assignment_interval_ms));
  SEGLOG_GROUP_CONFIG_CHECK(CheckRange(parsed, "streams.heartbeat.interval.ms",
                                       b.streams.min_heartbeat_interval_ms,
                                       b.streams.max_heartbeat_interval_ms));
  SEGLOG_GROUP_CONFIG_CHECK(CheckRange(parsed, "streams.session.timeout.ms",
                                       b.streams.min_session_timeout_ms,
                                       b.streams.max_session_timeout_ms));
  SEGLOG_GROUP_CONFIG_CHECK(
      CheckMax(parsed, "streams.num.standby.replicas", b.streams.max_standby_replicas));
  SEGLOG_GROUP_CONFIG_CHECK(CheckRange(parsed, "streams.assignment.interval.ms",
                                       b.streams.min_assignment_interval_ms,
                                       b.streams.max_assignment_interval_ms));
  SEGLOG_GROUP_CONFIG_CHECK(
      CheckMin(parsed, "streams.task.offset.interval.ms", b.streams.min_task_offset_interval_ms));
  SEGLOG_GROUP_CONFIG_CHECK(
      CheckMax(parsed, "streams.num.warmup.replicas", b.streams.max_warmup_replicas));
  if (auto it = parsed.find("streams.assignor.name"); it != parsed.end()) {
    const std::vector<std::string> names = {b.streams.assignor};
    if (std::find(names.begin(), names.end(), it->second) == names.end()) {
      return Invalid(fmt::format(
          "streams.assignor.name '{}' is not a registered task assignor. Registered assignors "
          "are: [{}].",
          it->second, fmt::join(names, ", ")));
    }
  }
  SEGLOG_GROUP_CONFIG_CHECK(CheckSessionExceedsHeartbeat(
      parsed, "consumer.session.timeout.ms", b.group_consumer_session_timeout_ms,
      "consumer.heartbeat.interval.ms", b.group_consumer_heartbeat_interval_ms));
  SEGLOG_GROUP_CONFIG_CHECK(CheckSessionExceedsHeartbeat(
      parsed, "share.session.timeout.ms", b.group_share_session_timeout_ms,
      "share.heartbeat.interval.ms", b.group_share_heartbeat_interval_ms));
  SEGLOG_GROUP_CONFIG_CHECK(CheckSessionExceedsHeartbeat(
      parsed, "streams.session.timeout.ms", b.streams.session_timeout_ms,
      "streams.heartbeat.interval.ms", b.streams.heartbeat_interval_ms));
  if (auto it = parsed.find("errors.deadletterqueue.topic.name");
      it != parsed.end() && it->second.starts_with("__")) {
    return Invalid("errors.deadletterqueue.topic.name: DLQ topic name must not start with '__'");
  }
  return Status::OK();
}

GroupConfig EffectiveGroupConfig(const GroupCoordinatorConfig& b,
                                 const std::map<std::string, std::string>& stored) {
  // A stored value as CONFIG_DEF parses it; nullopt when unset or unparsable.
  auto value = [&stored](const char* key) -> std::optional<std::string> {
    auto it = stored.find(key);
    const GroupConfigDef* def = FindGroupConfigDef(key);
    std::string parsed;
    if (it == stored.end() || def == nullptr || !ParseValue(*def, it->second, &parsed).ok()) {
      return std::nullopt;
    }
    return parsed;
  };
  auto int_of = [&](const char* key, int32_t fallback, int32_t min, int32_t max) {
    std::optional<std::string> v = value(key);
    return v.has_value() ? Clamp(static_cast<int32_t>(std::stol(*v)), min, max) : fallback;
  };
  auto bool_of = [&](const char* key, bool fallback) {
    std::optional<std::string> v = value(key);
    return v.has_value() ? *v == "true" : fallback;
  };
  GroupConfig c;
  c.consumer_session_timeout_ms =
      int_of("consumer.session.timeout.ms", b.group_consumer_session_timeout_ms,
             b.group_consumer_min_session_timeout_ms, b.group_consumer_max_session_timeout_ms);
  c.consumer_heartbeat_interval_ms = int_of(
      "consumer.heartbeat.interval.ms", b.group_consumer_heartbeat_interval_ms,
      b.group_consumer_min_heartbeat_interval_ms, b.group_consumer_max_heartbeat_interval_ms);
  c.consumer_assignment_interval_ms = int_of(
      "consumer.assignment.interval.ms", b.group_consumer_assignment_interval_ms,
      b.group_consumer_min_assignment_interval_ms, b.group_consumer_max_assignment_interval_ms);
  c.consumer_assignor_offload_enable =
      bool_of("consumer.assignor.offload.enable", b.group_consumer_assignor_offload_enable);
  c.share_session_timeout_ms =
      int_of("share.session.timeout.ms", b.group_share_session_timeout_ms,
             b.group_share_min_session_timeout_ms, b.group_share_max_session_timeout_ms);
  c.share_heartbeat_interval_ms =
      int_of("share.heartbeat.interval.ms", b.group_share_heartbeat_interval_ms,
             b.group_share_min_heartbeat_interval_ms, b.group_share_max_heartbeat_interval_ms);
  c.share_record_lock_duration_ms =
      int_of("share.record.lock.duration.ms", b.group_share_record_lock_duration_ms,
             b.group_share_min_record_lock_duration_ms, b.group_share_max_record_lock_duration_ms);
  c.share_delivery_count_limit =
      int_of("share.delivery.count.limit", b.group_share_delivery_count_limit,
             b.group_share_min_delivery_count_limit, b.group_share_max_delivery_count_limit);
  c.share_partition_max_record_locks = int_of(
      "share.partition.max.record.locks", b.group_share_partition_max_record_locks,
      b.group_share_min_partition_max_record_locks, b.group_share_max_partition_max_record_locks);
  if (auto v = value("share.auto.offset.reset")) {
    c.share_auto_offset_reset = *ParseShareAutoOffsetReset(*v);
  }
  if (auto v = value("share.isolation.level")) {
    c.share_isolation_level = *v == "read_committed" ? ShareIsolationLevel::kReadCommitted
                                                     : ShareIsolationLevel::kReadUncommitted;
  }
  c.share_renew_acknowledge_enable = bool_of("share.renew.acknowledge.enable", true);
  c.share_assignment_interval_ms =
      int_of("share.assignment.interval.ms", b.group_share_assignment_interval_ms,
             b.group_share_min_assignment_interval_ms, b.group_share_max_assignment_interval_ms);
  c.share_assignor_offload_enable =
      bool_of("share.assignor.offload.enable", b.group_share_assignor_offload_enable);
  c.streams_session_timeout_ms =
      int_of("streams.session.timeout.ms", b.streams.session_timeout_ms,
             b.streams.min_session_timeout_ms, b.streams.max_session_timeout_ms);
  c.streams_heartbeat_interval_ms =
      int_of("streams.heartbeat.interval.ms", b.streams.heartbeat_interval_ms,
             b.streams.min_heartbeat_interval_ms, b.streams.max_heartbeat_interval_ms);
  c.streams_num_standby_replicas =
      int_of("streams.num.standby.replicas", b.streams.num_standby_replicas, INT32_MIN,
             b.streams.max_standby_replicas);
  c.streams_initial_rebalance_delay_ms =
      int_of("streams.initial.rebalance.delay.ms", b.streams.initial_rebalance_delay_ms, INT32_MIN,
             INT32_MAX);
  c.streams_assignment_interval_ms =
      int_of("streams.assignment.interval.ms", b.streams.assignment_interval_ms,
             b.streams.min_assignment_interval_ms, b.streams.max_assignment_interval_ms);
  const std::optional<std::string> tags = value("streams.rack.aware.assignment.tags");
  c.streams_rack_aware_assignment_tags =
      tags.has_value() ? SplitList(*tags) : b.streams.rack_aware_assignment_tags;
  c.streams_assignor_offload_enable =
      bool_of("streams.assignor.offload.enable", b.group_streams_assignor_offload_enable);
  c.streams_task_offset_interval_ms =
      int_of("streams.task.offset.interval.ms", b.streams.task_offset_interval_ms,
             b.streams.min_task_offset_interval_ms, INT32_MAX);
  c.streams_num_warmup_replicas =
      int_of("streams.num.warmup.replicas", b.streams.num_warmup_replicas, INT32_MIN,
             b.streams.max_warmup_replicas);
  const std::optional<std::string> lag = value("streams.acceptable.recovery.lag");
  c.streams_acceptable_recovery_lag =
      lag.has_value() ? std::stoll(*lag) : b.streams.acceptable_recovery_lag;
  const std::optional<std::string> assignor = value("streams.assignor.name");
  c.streams_assignor_name = assignor.value_or(b.streams.assignor);
  c.errors_deadletterqueue_topic_name = value("errors.deadletterqueue.topic.name").value_or("");
  c.errors_deadletterqueue_copy_record_enable =
      bool_of("errors.deadletterqueue.copy.record.enable", false);
  return c;
}

}  // namespace seglog
