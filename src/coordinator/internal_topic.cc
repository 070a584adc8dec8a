// InternalTopic; see internal_topic.h.
#include "coordinator/internal_topic.h"

#include <fmt/format.h>

#include "base/java_string.h"

namespace seglog {

InternalTopic::InternalTopic(LogManager* logs, Options options, Logger logger)
    : logs_(logs), options_(std::move(options)), logger_(std::move(logger)) {
  Result<TopicMetadata> md = logs_->FindTopic(options_.name);
  partitions_ = md.ok() ? md->partitions : options_.partitions;
  ready_.store(md.ok(), std::memory_order_release);
}

int32_t InternalTopic::PartitionFor(std::string_view key) const {
  return CoordinatorPartitionFor(key, partitions_);
}

Status InternalTopic::Ensure(const std::function<void(int32_t, std::shared_ptr<Log>)>& attach) {
  if (ready()) return Status::OK();
  MutexLock l(&mu_);
  if (ready()) return Status::OK();
  if (!logs_->FindTopic(options_.name).ok()) {
    SEGLOG_RETURN_IF_ERROR(logs_->CreateTopic(options_.name, partitions_, options_.configs));
    logger_.Info(fmt::format("Created the internal topic {} with {} partitions", options_.name,
                             partitions_));
  }
  for (int32_t p = 0; p < partitions_; ++p) {
    Result<std::shared_ptr<Log>> log = logs_->GetLog({options_.name, p});
    if (!log.ok()) return log.status();
    attach(p, *log);
  }
  ready_.store(true, std::memory_order_release);
  return Status::OK();
}

}  // namespace seglog
