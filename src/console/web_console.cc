// WebConsole; see web_console.h.
#include "console/web_console.h"

#include <fmt/format.h>

#include <charconv>
#include <chrono>
#include <nlohmann/json.hpp>

#include "console/console_assets.h"
#include "console/console_json.h"
#include "console/html.h"
#include "console/lookup_trace.h"
#include "console/partition_view.h"
#include "group/group_coordinator.h"
#include "io/file_names.h"
#include "manager/log_manager.h"
#include "txn/transaction_coordinator.h"

namespace seglog {

namespace {

using nlohmann::json;

// A request's topic and partition, resolved to the partition's log.
struct ResolvedPartition {
  std::string topic;
  int32_t partition = 0;
  std::shared_ptr<Log> log;
};

// An integer parameter: digits only (a leading '-' allowed), the whole value.
Result<int64_t> IntParam(const HttpRequest& req, const std::string& name) {
  auto it = req.params.find(name);
  if (it == req.params.end() || it->second.empty()) {
    return Status::InvalidArgument(fmt::format("missing parameter {}", name));
  }
  int64_t v = 0;
  const std::string& s = it->second;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) {
    return Status::InvalidArgument(
        fmt::format("parameter {}: \"{}\" is not an integer", name, s.substr(0, 64)));
  }
  return v;
}

// InvalidArgument (400) for a malformed request, NotFound (404) for a topic or partition that
// is not there.
Result<ResolvedPartition> Resolve(LogManager& logs, const HttpRequest& req) {
  auto t = req.params.find("topic");
  if (t == req.params.end() || t->second.empty()) {
    return Status::InvalidArgument("missing parameter topic");
  }
  SEGLOG_ASSIGN_OR_RETURN(const int64_t p, IntParam(req, "partition"));
  if (p < 0 || p > INT32_MAX) {
    return Status::InvalidArgument(fmt::format("partition {} is not a partition number", p));
  }
  ResolvedPartition r{t->second, static_cast<int32_t>(p), nullptr};
  // A name Kafka could never create is unknown too (the message shows it, escaped).
  if (!ValidateTopicName(r.topic).ok() || !logs.FindTopic(r.topic).ok()) {
    return Status::NotFound(fmt::format("Unknown topic {}", r.topic));
  }
  auto log = logs.GetLog({r.topic, r.partition});
  if (!log.ok()) {
    return Status::NotFound(fmt::format("Topic {} has no partition {}", r.topic, r.partition));
  }
  r.log = *log;
  return r;
}

int StatusCode(const Status& s) {
  if (s.IsInvalidArgument()) return 400;
  if (s.IsNotFound()) return 404;
  return 500;
}

HttpResponse JsonOk(const json& j) {
  HttpResponse r;
  r.content_type = "application/json";
  r.body = SafeJsonText(j);
  return r;
}

HttpResponse JsonError(const Status& s) {
  HttpResponse r = JsonOk(json{{"error", s.message()}});
  r.status = StatusCode(s);
  return r;
}

HttpResponse PageError(const Status& s) {
  const int code = StatusCode(s);
  return HtmlError(code == 500 ? 404 : code, s.message());
}

std::string ByteSize(int64_t n) {
  if (n < 1024) return fmt::format("{} B", n);
  if (n < 1024 * 1024) return fmt::format("{:.1f} KiB", static_cast<double>(n) / 1024);
  if (n < int64_t{1024} * 1024 * 1024) {
    return fmt::format("{:.1f} MiB", static_cast<double>(n) / (1024 * 1024));
  }
  return fmt::format("{:.2f} GiB", static_cast<double>(n) / (1024.0 * 1024 * 1024));
}

std::string PartitionHref(const std::string& topic, int32_t partition) {
  return HtmlEscape(fmt::format("/partition?topic={}&partition={}", UrlEncode(topic), partition));
}

std::string More(int omitted, const char* what) {
  return omitted > 0 ? fmt::format("<p class=\"note\">{} more {} not shown.</p>", omitted, what)
                     : "";
}

}  // namespace

WebConsole::WebConsole(WebConsoleSources sources) : sources_(std::move(sources)) {}

int64_t WebConsole::Now() const {
  if (sources_.clock) return sources_.clock();
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::map<std::string, HttpHandler> WebConsole::Routes(std::shared_ptr<const WebConsole> c) {
  std::map<std::string, HttpHandler> routes;
  auto add = [&](const char* path, HttpResponse (WebConsole::*page)(const HttpRequest&) const) {
    routes[path] = [c, page](const HttpRequest& req) { return ((*c).*page)(req); };
  };
  add("/", &WebConsole::Overview);
  add("/topics", &WebConsole::Topics);
  add("/groups", &WebConsole::Groups);
  add("/transactions", &WebConsole::Transactions);
  add("/partition", &WebConsole::Partition);
  add("/api/partition", &WebConsole::ApiPartition);
  add("/api/lookup", &WebConsole::ApiLookup);
  add("/api/topics", &WebConsole::ApiTopics);
  for (const char* name : {"console.js", "console.css"}) {
    const ConsoleAsset* asset = FindConsoleAsset(name);
    if (asset == nullptr) continue;
    routes[fmt::format("/{}", name)] = [asset](const HttpRequest&) {
      HttpResponse r;
      r.content_type = std::string(asset->content_type);
      r.body = std::string(asset->bytes);
      return r;
    };
  }
  return routes;
}

HttpResponse WebConsole::Overview(const HttpRequest&) const {
  LogManager& logs = *sources_.logs;
  const std::vector<std::string> topics = logs.ListTopics();
  int partitions = 0;
  int64_t bytes = 0;
  for (const std::string& t : topics) {
    auto d = logs.DescribeTopic(t);
    if (!d.ok()) continue;
    for (const PartitionDescription& p : d->partitions) {
      ++partitions;
      bytes += p.bytes;
    }
  }
  size_t groups = 0;
  if (sources_.groups != nullptr) groups = sources_.groups->ListGroups({}, {}).size();
  size_t txns = 0;
  if (sources_.txns != nullptr) txns = sources_.txns->List({}).transaction_states.size();
  std::string listeners;
  for (const std::string& l : sources_.listeners) {
    listeners += fmt::format("<li><code>{}</code></li>", HtmlEscape(l));
  }
  std::string dirs;
  for (const std::string& d : logs.config().log_dirs) {
    dirs += fmt::format("<li><code>{}</code></li>", HtmlEscape(d));
  }
  const std::string body = fmt::format(
      "<dl class=\"facts\" id=\"overview\">"
      "<dt>Cluster id</dt><dd id=\"cluster-id\">{}</dd>"
      "<dt>Node id</dt><dd id=\"node-id\">{}</dd>"
      "<dt>Role</dt><dd>broker and controller (single node)</dd>"
      "<dt>Topics</dt><dd id=\"topic-count\"><a href=\"/topics\">{}</a></dd>"
      "<dt>Partitions</dt><dd id=\"partition-count\">{}</dd>"
      "<dt>Size on disk</dt><dd id=\"total-bytes\">{}</dd>"
      "<dt>Consumer groups</dt><dd id=\"group-count\"><a href=\"/groups\">{}</a></dd>"
      "<dt>Transactions</dt><dd id=\"txn-count\"><a href=\"/transactions\">{}</a></dd>"
      "</dl><h2>Listeners</h2><ul>{}</ul><h2>Log directories</h2><ul>{}</ul>",
      HtmlEscape(sources_.cluster_id), sources_.node_id, topics.size(), partitions, ByteSize(bytes),
      groups, txns, listeners, dirs);
  return HtmlOk(HtmlPage("Cluster overview", "overview", body));
}

HttpResponse WebConsole::Topics(const HttpRequest&) const {
  LogManager& logs = *sources_.logs;
  const std::vector<std::string> topics = logs.ListTopics();
  std::string rows;
  int listed = 0;
  for (const std::string& t : topics) {
    if (listed == kMaxTopicsListed) break;
    auto d = logs.DescribeTopic(t);
    if (!d.ok()) continue;
    ++listed;
    int64_t bytes = 0, end = 0;
    for (const PartitionDescription& p : d->partitions) {
      bytes += p.bytes;
      end += p.log_end_offset;
    }
    const std::string name = HtmlEscape(t);
    std::string parts;
    for (const PartitionDescription& p : d->partitions) {
      parts += fmt::format(
          "<tr class=\"partition-row\"><td></td><td><a class=\"partition-link\" href=\"{}\">{}</a>"
          "</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td></td><td></td></tr>",
          PartitionHref(t, p.partition), p.partition, p.segments, ByteSize(p.bytes),
          p.log_start_offset, p.log_end_offset);
    }
    rows += fmt::format(
        "<tbody class=\"topic\" data-topic=\"{0}\"><tr class=\"topic-row\"><td "
        "class=\"topic-name\">"
        "{0}</td><td>{1} partition{2}</td><td></td><td>{3}</td><td></td><td>{4}</td>"
        "<td class=\"rate\" data-rate=\"messages\">-</td><td class=\"rate\" data-rate=\"bytes\">-"
        "</td></tr>{5}</tbody>",
        name, d->partitions.size(), d->partitions.size() == 1 ? "" : "s", ByteSize(bytes), end,
        parts);
  }
  const std::string body = fmt::format(
      "<p>Rates are measured by this page between its refreshes (every 2 s).</p>"
      "<table class=\"data\" id=\"topics\"><thead><tr><th>Topic</th><th>Partition</th>"
      "<th>Segments</th><th>Size</th><th>Log start</th><th>Log end</th><th>Messages/s</th>"
      "<th>Bytes/s</th></tr></thead>{}</table>{}",
      rows, More(static_cast<int>(topics.size()) - listed, "topics"));
  return HtmlOk(HtmlPage("Topics", "topics", body));
}

HttpResponse WebConsole::Groups(const HttpRequest&) const {
  LogManager& logs = *sources_.logs;
  if (sources_.groups == nullptr) {
    return HtmlOk(HtmlPage("Consumer groups", "groups", "<p>No group coordinator.</p>"));
  }
  GroupCoordinator& gc = *sources_.groups;
  const std::vector<GroupCoordinator::ListedGroup> groups = gc.ListGroups({}, {});
  std::string sections;
  int listed = 0;
  for (const GroupCoordinator::ListedGroup& g : groups) {
    if (listed == kMaxGroupsListed) break;
    ++listed;
    std::string state = g.state, protocol, members;
    if (g.type == "consumer") {
      const auto d = gc.DescribeConsumerGroup(g.group_id);
      if (d.error_code == 0) {
        state = d.group_state;
        protocol = fmt::format("consumer protocol, assignor {}, group epoch {}",
                               HtmlEscape(d.assignor_name), d.group_epoch);
        for (const auto& m : d.members) {
          std::string assigned;
          for (const auto& tp : m.assignment.topic_partitions) {
            assigned += fmt::format("{}{}:{}", assigned.empty() ? "" : " ",
                                    HtmlEscape(tp.topic_name), fmt::join(tp.partitions, ","));
          }
          members += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                                 HtmlEscape(m.member_id), HtmlEscape(m.client_id),
                                 HtmlEscape(m.client_host), m.member_epoch, assigned);
        }
      }
    } else {
      int16_t error = 0;
      const auto d = gc.DescribeGroup(g.group_id, &error);
      if (d) {
        state = d->group_state;
        protocol =
            fmt::format("classic protocol{}{}",
                        d->protocol_type.empty() ? "" : ", type " + HtmlEscape(d->protocol_type),
                        d->protocol_data.empty() ? "" : ", " + HtmlEscape(d->protocol_data));
        for (const auto& m : d->members) {
          members += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td></td><td></td></tr>",
                                 HtmlEscape(m.member_id), HtmlEscape(m.client_id),
                                 HtmlEscape(m.client_host));
        }
      }
    }
    std::string offsets;
    int64_t total_lag = 0;
    const GroupCoordinator::FetchResult fetched = gc.FetchOffsets(g.group_id, std::nullopt);
    for (const GroupCoordinator::FetchedOffset& o : fetched.offsets) {
      if (o.offset < 0) continue;
      std::string end = "-", lag = "-";
      if (auto log = logs.GetLog({o.topic, o.partition}); log.ok()) {
        const int64_t leo = (*log)->log_end_offset();
        end = std::to_string(leo);
        total_lag += std::max<int64_t>(0, leo - o.offset);
        lag = std::to_string(std::max<int64_t>(0, leo - o.offset));
      }
      offsets += fmt::format(
          "<tr class=\"offset-row\"><td>{}</td><td>{}</td><td class=\"committed\">{}</td>"
          "<td>{}</td><td class=\"lag\">{}</td></tr>",
          HtmlEscape(o.topic), o.partition, o.offset, end, lag);
    }
    sections += fmt::format(
        "<section class=\"group\" data-group=\"{0}\"><h2 class=\"group-id\">{0}</h2>"
        "<p><span class=\"badge\">{1}</span> <span class=\"state\">{2}</span> {3}; total lag "
        "<span class=\"total-lag\">{4}</span></p>"
        "<table class=\"data members\"><thead><tr><th>Member</th><th>Client id</th><th>Host</th>"
        "<th>Epoch</th><th>Assignment</th></tr></thead><tbody>{5}</tbody></table>"
        "<table class=\"data offsets\"><thead><tr><th>Topic</th><th>Partition</th>"
        "<th>Committed offset</th><th>Log end offset</th><th>Lag</th></tr></thead><tbody>{6}"
        "</tbody></table></section>",
        HtmlEscape(g.group_id), HtmlEscape(g.type), HtmlEscape(state), protocol, total_lag,
        members.empty() ? "<tr><td colspan=\"5\">no members</td></tr>" : members,
        offsets.empty() ? "<tr><td colspan=\"5\">no committed offsets</td></tr>" : offsets);
  }
  if (groups.empty()) sections = "<p>No consumer groups.</p>";
  return HtmlOk(HtmlPage("Consumer groups", "groups",
                         sections + More(static_cast<int>(groups.size()) - listed, "groups")));
}

HttpResponse WebConsole::Transactions(const HttpRequest&) const {
  if (sources_.txns == nullptr) {
    return HtmlOk(HtmlPage("Transactions", "transactions", "<p>No transaction coordinator.</p>"));
  }
  TransactionCoordinator& tc = *sources_.txns;
  const auto listed = tc.List({});
  std::string rows;
  int n = 0;
  for (const auto& s : listed.transaction_states) {
    if (n == kMaxTransactionsListed) break;
    ++n;
    const auto d = tc.Describe(s.transactional_id);
    std::string partitions;
    for (const auto& t : d.topics) {
      partitions += fmt::format("{}{}:{}", partitions.empty() ? "" : " ", HtmlEscape(t.topic),
                                fmt::join(t.partitions, ","));
    }
    rows += fmt::format(
        "<tr class=\"txn-row\"><td class=\"txn-id\">{}</td><td>{}</td><td>{}</td>"
        "<td class=\"state\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
        HtmlEscape(s.transactional_id), s.producer_id, d.error_code == 0 ? d.producer_epoch : -1,
        HtmlEscape(s.transaction_state), d.transaction_timeout_ms,
        d.transaction_start_time_ms > 0 ? std::to_string(d.transaction_start_time_ms) : "-",
        partitions);
  }
  const std::string body =
      listed.transaction_states.empty()
          ? std::string("<p>No transactional ids.</p>")
          : fmt::format(
                "<table class=\"data\" id=\"transactions\"><thead><tr><th>Transactional id</th>"
                "<th>Producer id</th><th>Epoch</th><th>State</th><th>Timeout (ms)</th>"
                "<th>Started (ms)</th><th>Partitions</th></tr></thead><tbody>{}</tbody></table>{}",
                rows, More(static_cast<int>(listed.transaction_states.size()) - n, "transactions"));
  return HtmlOk(HtmlPage("Transactions", "transactions", body));
}

HttpResponse WebConsole::Partition(const HttpRequest& req) const {
  auto r = Resolve(*sources_.logs, req);
  if (!r.ok()) return PageError(r.status());
  const std::string title = fmt::format("{}-{}", r->topic, r->partition);
  const std::string body = fmt::format(
      "<div id=\"partition\" data-topic=\"{0}\" data-partition=\"{1}\">"
      "<p class=\"crumbs\"><a href=\"/topics\">Topics</a> / <span id=\"topic-name\">{0}</span>"
      " / partition {1} - <span id=\"status\">loading...</span></p>"
      "<dl class=\"facts\" id=\"offsets\"></dl>"
      "<dl class=\"facts\" id=\"settings\"></dl>"
      "<h2>Segments <span class=\"note\">(drawn to scale of segment.bytes; ticks: offset index "
      "above, time index below)</span></h2>"
      "<div id=\"segments\" class=\"segments\"></div>"
      "<ul id=\"events\" class=\"events\"></ul>"
      "<div class=\"lookups\">"
      "<form id=\"find-offset\"><label>Find offset <input id=\"offset-input\" name=\"offset\" "
      "inputmode=\"numeric\" size=\"12\"></label> <button id=\"find-offset-button\">Find"
      "</button></form>"
      "<form id=\"find-timestamp\"><label>Find by timestamp (ms) <input id=\"timestamp-input\" "
      "name=\"timestamp\" inputmode=\"numeric\" size=\"16\"></label> "
      "<button id=\"find-timestamp-button\">Find</button></form>"
      "<label><input type=\"checkbox\" id=\"fast\"> no animation</label>"
      "</div>"
      "<ol id=\"steps\" class=\"steps\"></ol>"
      "<p id=\"lookup-result\" class=\"result\"></p>"
      "<h2>Index entries</h2><div id=\"index-tables\" class=\"index-tables\"></div>"
      "</div>",
      HtmlEscape(r->topic), r->partition);
  return HtmlOk(HtmlPage(title, "", body));
}

HttpResponse WebConsole::ApiPartition(const HttpRequest& req) const {
  auto r = Resolve(*sources_.logs, req);
  if (!r.ok()) return JsonError(r.status());
  auto view = BuildPartitionView(*r->log, r->topic, r->partition, Now());
  if (!view.ok()) return JsonError(view.status());
  return JsonOk(PartitionViewJson(*view));
}

HttpResponse WebConsole::ApiLookup(const HttpRequest& req) const {
  auto r = Resolve(*sources_.logs, req);
  if (!r.ok()) return JsonError(r.status());
  const bool by_offset = req.params.count("offset") > 0;
  const bool by_time = req.params.count("timestamp") > 0;
  if (by_offset == by_time) {
    return JsonError(Status::InvalidArgument("give exactly one of offset and timestamp"));
  }
  auto target = IntParam(req, by_offset ? "offset" : "timestamp");
  if (!target.ok()) return JsonError(target.status());
  if (by_offset) {
    auto trace = TraceOffsetLookup(*r->log, *target);
    if (!trace.ok()) return JsonError(trace.status());
    return JsonOk(OffsetLookupJson(*trace));
  }
  auto trace = TraceTimestampLookup(*r->log, *target);
  if (!trace.ok()) return JsonError(trace.status());
  return JsonOk(TimestampLookupJson(*trace));
}

HttpResponse WebConsole::ApiTopics(const HttpRequest&) const {
  LogManager& logs = *sources_.logs;
  json topics = json::array();
  int listed = 0;
  const std::vector<std::string> names = logs.ListTopics();
  for (const std::string& t : names) {
    if (listed == kMaxTopicsListed) break;
    auto d = logs.DescribeTopic(t);
    if (!d.ok()) continue;
    ++listed;
    json parts = json::array();
    for (const PartitionDescription& p : d->partitions) {
      parts.push_back({{"partition", p.partition},
                       {"segments", p.segments},
                       {"bytes", p.bytes},
                       {"log_start_offset", p.log_start_offset},
                       {"log_end_offset", p.log_end_offset}});
    }
    topics.push_back({{"topic", t}, {"partitions", parts}});
  }
  return JsonOk({{"now_ms", Now()},
                 {"topics", topics},
                 {"topics_omitted", static_cast<int>(names.size()) - listed}});
}

}  // namespace seglog
