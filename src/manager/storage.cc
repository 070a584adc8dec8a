// Storage: the public face of the storage node (seglog/storage.h) over the internal
// LogManager. It adds what an embedder needs around it: the config from properties, a
// scheduler of its own when none is given, and refusal of every call once shut down.
#include "seglog/storage.h"

#include <fmt/format.h>

#include <atomic>

#include "base/mutex.h"
#include "base/properties.h"
#include "base/scheduler.h"
#include "io/atomic_file.h"
#include "manager/log_manager.h"
#include "manager/log_manager_config.h"

namespace seglog {

Result<std::map<std::string, std::string>> ReadServerProperties(const std::string& path) {
  // A file the embedder names, read before any engine exists.
  SEGLOG_ASSIGN_OR_RETURN(const std::string text, ReadFileToString(Env::Default(), path));
  return ParseProperties(text);
}

struct Storage::Impl {
  // Declared before the manager, so destroyed after it: the manager's shutdown stops the
  // scheduler's threads before they go.
  std::unique_ptr<Scheduler> owned_scheduler;
  std::unique_ptr<LogManager> manager;
  std::atomic<bool> tasks_started{false};
  // Held shared by every call, exclusively by Shutdown: it waits for calls in progress, and
  // no call starts on a shut-down node.
  mutable SharedMutex mu;
  bool shut_down GUARDED_BY(mu) = false;

  Status CheckOpen() const REQUIRES_SHARED(mu) {
    if (shut_down) return Status::FailedPrecondition("storage is shut down");
    return Status::OK();
  }
};

Result<std::unique_ptr<Storage>> Storage::Open(const StorageOptions& options) {
  SEGLOG_ASSIGN_OR_RETURN(LogManagerConfig config,
                          LogManagerConfig::FromProperties(options.properties));
  auto impl = std::make_unique<Impl>();
  Scheduler* scheduler = options.scheduler;
  if (scheduler == nullptr) {
    impl->owned_scheduler = std::make_unique<ThreadScheduler>(config.background_threads);
    scheduler = impl->owned_scheduler.get();
  }
  if (!config.ignored.empty()) {
    options.logger.Info(fmt::format("Ignoring broker configs outside storage: {}",
                                    fmt::join(config.ignored, ", ")));
  }
  SEGLOG_ASSIGN_OR_RETURN(impl->manager, LogManager::Open(config, scheduler, options.logger));
  if (options.start_background_tasks) {
    impl->manager->StartTasks();
    impl->tasks_started = true;
  }
  return std::unique_ptr<Storage>(new Storage(std::move(impl)));
}

Storage::Storage(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Storage::~Storage() { (void)Shutdown(); }

std::vector<std::string> Storage::log_dirs() const { return impl_->manager->config().log_dirs; }

Status Storage::CreateTopic(const std::string& topic, int32_t partitions,
                            const std::map<std::string, std::string>& configs) {
  ReaderMutexLock l(&impl_->mu);
  SEGLOG_RETURN_IF_ERROR(impl_->CheckOpen());
  if (partitions == -1) partitions = impl_->manager->config().num_partitions;
  return impl_->manager->CreateTopic(topic, partitions, configs);
}

Status Storage::AddPartitions(const std::string& topic, int32_t total_partitions) {
  ReaderMutexLock l(&impl_->mu);
  SEGLOG_RETURN_IF_ERROR(impl_->CheckOpen());
  return impl_->manager->AddPartitions(topic, total_partitions);
}

Status Storage::DeleteTopic(const std::string& topic) {
  ReaderMutexLock l(&impl_->mu);
  SEGLOG_RETURN_IF_ERROR(impl_->CheckOpen());
  return impl_->manager->DeleteTopic(topic);
}

Status Storage::AlterTopicConfig(const std::string& topic,
                                 const std::map<std::string, std::string>& set,
                                 const std::vector<std::string>& remove) {
  ReaderMutexLock l(&impl_->mu);
  SEGLOG_RETURN_IF_ERROR(impl_->CheckOpen());
  return impl_->manager->AlterTopicConfig(topic, set, remove);
}

std::vector<std::string> Storage::ListTopics() const {
  ReaderMutexLock l(&impl_->mu);
  if (!impl_->CheckOpen().ok()) return {};
  return impl_->manager->ListTopics();
}

Result<TopicDescription> Storage::DescribeTopic(const std::string& topic) const {
  ReaderMutexLock l(&impl_->mu);
  SEGLOG_RETURN_IF_ERROR(impl_->CheckOpen());
  return impl_->manager->DescribeTopic(topic);
}

Result<std::shared_ptr<Log>> Storage::GetLog(const TopicPartition& partition) const {
  ReaderMutexLock l(&impl_->mu);
  SEGLOG_RETURN_IF_ERROR(impl_->CheckOpen());
  return impl_->manager->GetLog(partition);
}

Status Storage::StartBackgroundTasks() {
  ReaderMutexLock l(&impl_->mu);
  SEGLOG_RETURN_IF_ERROR(impl_->CheckOpen());
  if (impl_->tasks_started.exchange(true)) {
    return Status::FailedPrecondition("the background tasks are already scheduled");
  }
  impl_->manager->StartTasks();
  return Status::OK();
}

Status Storage::RunTask(const std::string& name) {
  ReaderMutexLock l(&impl_->mu);
  SEGLOG_RETURN_IF_ERROR(impl_->CheckOpen());
  return impl_->manager->RunTask(name);
}

Status Storage::Shutdown() {
  WriterMutexLock l(&impl_->mu);
  if (impl_->shut_down) return Status::OK();
  impl_->shut_down = true;
  return impl_->manager->Shutdown();
}

}  // namespace seglog
