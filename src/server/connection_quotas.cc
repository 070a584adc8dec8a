// ConnectionQuotas; see connection_quotas.h.
#include "server/connection_quotas.h"

#include <fmt/format.h>
#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <charconv>
#include <iterator>

#include "server/asio.h"

namespace seglog {

namespace {

std::string Trim(std::string s) {
  const auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

Result<std::string> Resolve(const std::string& host) {
  asio::error_code ec;
  const asio::ip::address literal = asio::ip::make_address(host, ec);
  if (!ec) return literal.to_string();
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(host.c_str(), nullptr, &hints, &found); rc != 0 || found == nullptr) {
    return Status::InvalidArgument(fmt::format("Unknown host {}: {}", host, gai_strerror(rc)));
  }
  char text[NI_MAXHOST] = {};
  const int rc = getnameinfo(found->ai_addr, found->ai_addrlen, text, sizeof(text), nullptr, 0,
                             NI_NUMERICHOST);
  freeaddrinfo(found);
  if (rc != 0) return Status::InvalidArgument(fmt::format("Unknown host {}", host));
  return std::string(text);
}

}  // namespace

Result<std::map<std::string, int32_t>> ParseConnectionOverrides(const std::string& value) {
  std::map<std::string, int32_t> out;
  size_t at = 0;
  const std::string text = Trim(value);
  while (!text.empty() && at <= text.size()) {
    size_t comma = text.find(',', at);
    if (comma == std::string::npos) comma = text.size();
    const std::string entry = Trim(text.substr(at, comma - at));
    at = comma + 1;
    if (entry.empty()) continue;
    // host:count; the count follows the last ':' (an IPv6 host has colons of its own).
    const size_t colon = entry.rfind(':');
    int32_t count = -1;
    const std::string count_text = colon == std::string::npos ? "" : Trim(entry.substr(colon + 1));
    auto [end, ec] =
        std::from_chars(count_text.data(), count_text.data() + count_text.size(), count);
    if (colon == std::string::npos || colon == 0 || ec != std::errc() ||
        end != count_text.data() + count_text.size() || count < 0) {
      return Status::InvalidArgument(fmt::format(
          "Invalid value {} for configuration max.connections.per.ip.overrides: each entry must "
          "be host:count with a count of at least 0 ('{}')",
          value, entry));
    }
    std::string host = Trim(entry.substr(0, colon));
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
      host = host.substr(1, host.size() - 2);
    }
    Result<std::string> address = Resolve(host);
    if (!address.ok()) {
      return Status::InvalidArgument(
          fmt::format("Invalid value {} for configuration max.connections.per.ip.overrides: {}",
                      value, address.status().message()));
    }
    out[*address] = count;
  }
  return out;
}

bool ConnectionQuotas::SlotAvailable(const std::string& listener) const {
  MutexLock lock(&mu_);
  if (total_ >= limits_.max_connections) return false;
  auto limit = limits_.listener_max_connections.find(listener);
  if (limit == limits_.listener_max_connections.end()) return true;
  auto count = per_listener_.find(listener);
  return count == per_listener_.end() || count->second < limit->second;
}

WindowedRate& ConnectionQuotas::RateFor(const std::string& key) {
  std::unique_ptr<WindowedRate>& r = rates_[key];
  if (r == nullptr) {
    r = std::make_unique<WindowedRate>(limits_.quota_window_num, limits_.quota_window_size_ms);
  }
  return *r;
}

int64_t ConnectionQuotas::RecordCreation(const std::string& listener, int64_t now_ms) {
  MutexLock lock(&mu_);
  int64_t wait = 0;
  if (limits_.max_connection_creation_rate < INT32_MAX) {
    wait = RateFor("").RecordAndGetThrottleMs(1, limits_.max_connection_creation_rate, now_ms);
  }
  auto it = limits_.listener_max_connection_creation_rate.find(listener);
  if (it != limits_.listener_max_connection_creation_rate.end() && it->second < INT32_MAX) {
    wait = std::max(
        wait,
        RateFor("listener:" + listener).RecordAndGetThrottleMs(1, std::max(it->second, 1), now_ms));
  }
  return std::min(wait, limits_.quota_window_size_ms);
}

void ConnectionQuotas::PurgeIpRates(int64_t now_ms) {
  const int64_t span = int64_t{limits_.quota_window_num} * limits_.quota_window_size_ms;
  if (now_ms - last_ip_purge_ms_ < span) return;
  last_ip_purge_ms_ = now_ms;
  for (auto it = ip_rates_.begin(); it != ip_rates_.end();) {
    it = now_ms - it->second.second > span ? ip_rates_.erase(it) : std::next(it);
  }
}

int64_t ConnectionQuotas::RecordIpCreation(const std::string& address, int64_t now_ms) {
  if (!limits_.ip_connection_rate) return 0;
  const std::optional<double> quota = limits_.ip_connection_rate(address);
  MutexLock lock(&mu_);
  PurgeIpRates(now_ms);
  if (!quota.has_value()) return 0;
  auto& [rate, last_ms] = ip_rates_[address];
  if (rate == nullptr) {
    rate = std::make_unique<WindowedRate>(limits_.quota_window_num, limits_.quota_window_size_ms);
  }
  last_ms = now_ms;
  const int64_t wait = rate->RecordAndGetThrottleMs(1, std::max(*quota, 1e-9), now_ms);
  if (wait == 0) return 0;
  rate->Record(-1, now_ms);  // not accepted: not counted (Kafka un-records it)
  return std::min(wait, limits_.quota_window_size_ms);
}

int32_t ConnectionQuotas::LimitFor(const std::string& address) const {
  auto it = limits_.per_ip_overrides.find(address);
  return it != limits_.per_ip_overrides.end() ? it->second : limits_.max_connections_per_ip;
}

bool ConnectionQuotas::Inc(const std::string& listener, const std::string& address,
                           int32_t* limit) {
  *limit = LimitFor(address);
  MutexLock lock(&mu_);
  int64_t& count = per_ip_[address];
  if (count >= *limit) {
    if (count == 0) per_ip_.erase(address);
    return false;
  }
  ++count;
  ++total_;
  ++per_listener_[listener];
  return true;
}

void ConnectionQuotas::Dec(const std::string& listener, const std::string& address) {
  MutexLock lock(&mu_);
  if (auto it = per_ip_.find(address); it != per_ip_.end() && --it->second <= 0) per_ip_.erase(it);
  if (auto it = per_listener_.find(listener); it != per_listener_.end() && --it->second <= 0) {
    per_listener_.erase(it);
  }
  if (total_ > 0) --total_;
}

int64_t ConnectionQuotas::total() const {
  MutexLock lock(&mu_);
  return total_;
}

int64_t ConnectionQuotas::CountFor(const std::string& address) const {
  MutexLock lock(&mu_);
  auto it = per_ip_.find(address);
  return it == per_ip_.end() ? 0 : it->second;
}

}  // namespace seglog
