// WebConsole: the broker's read-only web console on the HTTP listener (issue 30): a cluster
// overview, topics with their partitions, sizes and rates, consumer groups (classic and
// consumer protocol) with the lag of each partition, transactions, and the partition page,
// which draws a partition's segments, index entries, rolls and retention live and animates
// offset and timestamp lookups on the real indexes (seed 001, on real files).
//
//   /                         overview (HTML)
//   /topics                   topics and partitions (HTML; rates filled by console.js)
//   /groups                   consumer groups with lag (HTML)
//   /transactions             transactions (HTML)
//   /partition?topic=T&partition=P     the partition page (HTML; drawn by console.js)
//   /api/partition?topic=T&partition=P the partition's view (JSON, partition_view.h)
//   /api/lookup?topic=T&partition=P&offset=N | &timestamp=MS   a lookup's trace (JSON)
//   /api/topics               every topic's partitions: offsets and sizes (JSON)
//   /console.js, /console.css the page's script and style (embedded at build time)
//
// Nothing here changes anything: the handlers only read the logs and ask the coordinators to
// describe. Unknown topics and partitions answer 404, malformed parameters 400; every data
// text is escaped (html.h, console_json.h); every list a page draws is bounded.
//
// Thread safety: thread-safe; handlers run concurrently on the HTTP server's threads. The
// sources must outlive the routes' last call (the node stops the HTTP server first).
#ifndef SEGLOG_CONSOLE_WEB_CONSOLE_H_
#define SEGLOG_CONSOLE_WEB_CONSOLE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "http/http_server.h"

namespace seglog {

class GroupCoordinator;
class LogManager;
class TransactionCoordinator;

struct WebConsoleSources {
  LogManager* logs = nullptr;              // required
  GroupCoordinator* groups = nullptr;      // optional: no groups page content without it
  TransactionCoordinator* txns = nullptr;  // optional
  int32_t node_id = 0;
  std::string cluster_id;
  std::vector<std::string> listeners;  // "NAME://host:port"
  std::function<int64_t()> clock;      // ms since the epoch; default: the system clock
};

// Pages and lists are capped at these; the rest is counted on the page.
inline constexpr int kMaxTopicsListed = 1000;
inline constexpr int kMaxGroupsListed = 500;
inline constexpr int kMaxTransactionsListed = 500;

class WebConsole {
 public:
  explicit WebConsole(WebConsoleSources sources);

  // The console's routes, for HttpServer::Start; they share `console`.
  static std::map<std::string, HttpHandler> Routes(std::shared_ptr<const WebConsole> console);

  HttpResponse Overview(const HttpRequest& req) const;
  HttpResponse Topics(const HttpRequest& req) const;
  HttpResponse Groups(const HttpRequest& req) const;
  HttpResponse Transactions(const HttpRequest& req) const;
  HttpResponse Partition(const HttpRequest& req) const;
  HttpResponse ApiPartition(const HttpRequest& req) const;
  HttpResponse ApiLookup(const HttpRequest& req) const;
  HttpResponse ApiTopics(const HttpRequest& req) const;

 private:
  int64_t Now() const;
  WebConsoleSources sources_;
};

}  // namespace seglog

#endif  // SEGLOG_CONSOLE_WEB_CONSOLE_H_
