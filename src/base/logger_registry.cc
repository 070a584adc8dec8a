// LoggerRegistry: see logger_registry.h.
#include "base/logger_registry.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace seglog {

namespace {

constexpr std::string_view kRootKey = "log4j.rootLogger";
constexpr std::string_view kLoggerKeyPrefix = "log4j.logger.";

// "DEBUG, stdout" -> DEBUG (log4j's form: the level, then the appenders), in any case.
std::optional<LogLevel> ConfiguredLevel(std::string_view value) {
  std::string first(value.substr(0, value.find(',')));
  first.erase(0, first.find_first_not_of(" \t"));
  first.erase(first.find_last_not_of(" \t") + 1);
  std::transform(first.begin(), first.end(), first.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return ParseLogLevel(first);
}

}  // namespace

LoggerRegistry::LoggerRegistry() {
  MutexLock lock(&mu_);
  auto root = std::make_unique<Node>();
  root->own = LogLevel::kInfo;
  nodes_.emplace(std::string(kRoot), std::move(root));
}

LoggerRegistry& LoggerRegistry::Global() {
  static LoggerRegistry* const registry = new LoggerRegistry();
  return *registry;
}

const LoggerRegistry::Cell* LoggerRegistry::Register(std::string_view name) {
  MutexLock lock(&mu_);
  auto it = nodes_.find(name);
  if (it == nodes_.end()) {
    it = nodes_.emplace(std::string(name), std::make_unique<Node>()).first;
    it->second->cell.level.store(static_cast<int>(EffectiveLocked(it->first)),
                                 std::memory_order_relaxed);
  }
  return &it->second->cell;
}

bool LoggerRegistry::Exists(std::string_view name) const {
  MutexLock lock(&mu_);
  return nodes_.find(name) != nodes_.end();
}

Status LoggerRegistry::SetLevel(std::string_view name, LogLevel level, bool register_missing) {
  MutexLock lock(&mu_);
  auto it = nodes_.find(name);
  if (it == nodes_.end()) {
    if (!register_missing) return Status::NotFound(fmt::format("Logger {} does not exist!", name));
    it = nodes_.emplace(std::string(name), std::make_unique<Node>()).first;
  }
  it->second->own = level;
  Propagate();
  return Status::OK();
}

Status LoggerRegistry::Unset(std::string_view name) {
  MutexLock lock(&mu_);
  auto it = nodes_.find(name);
  if (it == nodes_.end()) return Status::NotFound(fmt::format("Logger {} does not exist!", name));
  if (name == kRoot) {
    return Status::InvalidArgument(
        fmt::format("Removing the log level of the {} logger is not allowed", kRoot));
  }
  it->second->own.reset();
  Propagate();
  return Status::OK();
}

std::vector<LoggerRegistry::Entry> LoggerRegistry::Loggers() const {
  MutexLock lock(&mu_);
  std::vector<Entry> out;
  out.reserve(nodes_.size());
  for (const auto& [name, node] : nodes_) {
    Entry e{name, EffectiveLocked(name), node->own.has_value()};
    if (name == kRoot) {
      out.insert(out.begin(), std::move(e));
    } else {
      out.push_back(std::move(e));
    }
  }
  return out;
}

std::optional<LogLevel> LoggerRegistry::EffectiveLevel(std::string_view name) const {
  MutexLock lock(&mu_);
  auto it = nodes_.find(name);
  if (it == nodes_.end()) return std::nullopt;
  return EffectiveLocked(it->first);
}

bool LoggerRegistry::IsLevelKey(std::string_view key) {
  return key == kRootKey || (key.size() > kLoggerKeyPrefix.size() &&
                             key.substr(0, kLoggerKeyPrefix.size()) == kLoggerKeyPrefix);
}

Status LoggerRegistry::Configure(const std::map<std::string, std::string>& props) {
  // Checked in full before any level changes.
  std::vector<std::pair<std::string, LogLevel>> levels;
  for (const auto& [key, value] : props) {
    if (!IsLevelKey(key)) continue;
    std::optional<LogLevel> level = ConfiguredLevel(value);
    if (!level) {
      return Status::InvalidArgument(
          fmt::format("Invalid value {} for configuration {}: the level must be one of {}, OFF",
                      value, key, kValidLogLevels));
    }
    std::string name = key == kRootKey ? std::string(kRoot) : key.substr(kLoggerKeyPrefix.size());
    levels.emplace_back(std::move(name), *level);
  }
  for (const auto& [name, level] : levels) {
    SEGLOG_RETURN_IF_ERROR(SetLevel(name, level, /*register_missing=*/true));
  }
  return Status::OK();
}

LogLevel LoggerRegistry::EffectiveLocked(const std::string& name) const {
  std::string_view n = name;
  while (true) {
    auto it = nodes_.find(n);
    if (it != nodes_.end() && it->second->own) return *it->second->own;
    const size_t dot = n.rfind('.');
    if (dot == std::string_view::npos || n == kRoot) break;
    n = n.substr(0, dot);
  }
  return *nodes_.find(kRoot)->second->own;
}

void LoggerRegistry::Propagate() {
  for (const auto& [name, node] : nodes_) {
    node->cell.level.store(static_cast<int>(EffectiveLocked(name)), std::memory_order_relaxed);
  }
}

}  // namespace seglog
