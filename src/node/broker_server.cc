// BrokerServer; see broker_server.h.
#include "node/broker_server.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>

#include "base/logger_registry.h"
#include "base/scheduler.h"
#include "console/web_console.h"
#include "group/group_config.h"
#include "group/group_coordinator.h"
#include "manager/log_manager.h"
#include "manager/metadata_store.h"
#include "metrics/process_metrics.h"
#include "node/node_metrics.h"
#include "node/share_state_persister.h"
#include "remote/tiered_storage.h"
#include "server/broker.h"
#include "server/broker_context.h"
#include "server/handlers.h"
#include "server/share_fetch_handlers.h"
#include "server/socket_server.h"
#include "share/share_dlq_writer.h"
#include "share/share_partition_manager.h"
#include "share/share_session_cache.h"
#include "sharestate/share_coordinator.h"
#include "txn/transaction_coordinator.h"

namespace seglog {

namespace {

std::string LocalHostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "localhost";
  return buf;
}

}  // namespace

BrokerServer::BrokerServer(const BrokerConfig& config, Options options)
    : config_(config), options_(std::move(options)) {}

BrokerServer::~BrokerServer() { (void)Shutdown(); }

Result<std::unique_ptr<BrokerServer>> BrokerServer::Start(const BrokerConfig& config,
                                                          Options options) {
  std::unique_ptr<BrokerServer> s(new BrokerServer(config, std::move(options)));
  Status started = s->StartAll();
  if (!started.ok()) {
    (void)s->Shutdown();  // what was started stops, in the usual order
    return started;
  }
  return s;
}

Status BrokerServer::StartAll() {
  // Each component logs under the name of Kafka's class doing the same work, so its level can
  // be set as an operator sets Kafka's (log4j.logger.<name> at start, kafka-configs.sh
  // --entity-type broker-loggers at run time; base/logger_registry.h).
  SEGLOG_RETURN_IF_ERROR(LoggerRegistry::Global().Configure(config_.properties));
  const Logger logger = options_.logger.Named("kafka.server.BrokerServer");
  scheduler_ = std::make_unique<ThreadScheduler>(config_.background_threads);
  // With http.listener, /metrics answers while the logs load: Kafka's recovery gauges, so a
  // long recovery after an unclean shutdown can be watched. The listener closes once they are
  // loaded and opens again below with everything.
  std::shared_ptr<RecoveryGauges> recovery;
  std::unique_ptr<HttpServer> loading_http;
  if (config_.http_port >= 0) {
    recovery = std::make_shared<RecoveryGauges>();
    auto loading_metrics = std::make_shared<BrokerMetrics>();
    loading_metrics->AddCollector([recovery] { return recovery->Collect(); });
    loading_metrics->AddCollector(ProcessCollector());
    HttpServerOptions http;
    http.host = config_.http_host;
    http.port = config_.http_port;
    http.logger = logger.Named("seglog.http.HttpServer");
    SEGLOG_ASSIGN_OR_RETURN(
        loading_http, HttpServer::Start(http, {{"/metrics", [loading_metrics](const HttpRequest&) {
                                                  HttpResponse r;
                                                  r.content_type =
                                                      "text/plain; version=0.0.4; charset=utf-8";
                                                  r.body = loading_metrics->Scrape();
                                                  return r;
                                                }}}));
  }
  SEGLOG_ASSIGN_OR_RETURN(
      logs_,
      LogManager::Open(config_, scheduler_.get(), logger, nullptr,
                       recovery ? LogManager::LoadProgress(
                                      [recovery](const std::string& dir, const ProgressStep& step) {
                                        recovery->OnProgress(dir, step);
                                      })
                                : LogManager::LoadProgress()));
  if (loading_http) loading_http->Stop();
  for (const std::string& k : config_.ignored) logger.Info("Ignoring broker setting " + k);
  logs_->StartTasks();
  SEGLOG_ASSIGN_OR_RETURN(
      groups_, GroupCoordinator::Open(
                   config_.group, logs_.get(), scheduler_.get(),
                   logger.Named("org.apache.kafka.coordinator.group.GroupCoordinatorService")));
  SEGLOG_ASSIGN_OR_RETURN(
      txns_, TransactionCoordinator::Open(
                 config_.txn, logs_.get(), scheduler_.get(),
                 logger.Named("kafka.coordinator.transaction.TransactionCoordinator")));
  {
    LogManager* logs = logs_.get();
    SEGLOG_ASSIGN_OR_RETURN(
        share_state_,
        ShareCoordinator::Open(
            config_.share, logs, scheduler_.get(),
            [logs](const Uuid& id) -> std::optional<int32_t> {
              std::optional<std::string> name = logs->TopicNameForId(id.ToString());
              if (!name) return std::nullopt;
              std::optional<LogManager::TopicIdentity> t = logs->FindTopicIdentity(*name);
              if (!t) return std::nullopt;
              return t->partitions;
            },
            logger.Named("org.apache.kafka.coordinator.share.ShareCoordinatorService")));
  }
  // Share groups initialize and delete their share-partitions' state through it.
  groups_->SetShareStateAdmin(std::make_shared<SharePersister>(share_state_.get()));
  // The share partitions this node leads, and the share sessions of ShareFetch and
  // ShareAcknowledge; members leaving the group release their records.
  {
    auto int_setting = [this](const std::string& name, int64_t fallback) {
      auto it = config_.properties.find(name);
      if (it == config_.properties.end()) return fallback;
      try {
        return static_cast<int64_t>(std::stoll(it->second));
      } catch (...) {
        return fallback;
      }
    };
    share_sessions_ = std::make_unique<ShareSessionCache>(static_cast<int32_t>(
        int_setting("group.share.max.share.sessions", ShareSessionCache::kDefaultMaxSessions)));
    // Share groups' dead-letter queues (KIP-1191): archived records written to the group's
    // errors.deadletterqueue.topic.name by the writer's own thread, as a produce appends.
    {
      ShareDlqWriter::Options wo;
      wo.logs = logs_.get();
      wo.group_config = [this, logs = logs_.get(),
                         broker = config_.group](const std::string& group_id) {
        ShareDlqGroupConfig c;
        // Kafka's isDLQEnabledForGroup: share.version 2 (supportsShareGroupDLQ) and a topic.
        if (context_ == nullptr || context_->share_version() < 2) return c;
        const GroupConfig g =
            EffectiveGroupConfig(broker, logs->metadata()->GroupConfigs(group_id));
        c.topic_name = g.errors_deadletterqueue_topic_name;
        c.copy_record = g.errors_deadletterqueue_copy_record_enable;
        c.enabled = !c.topic_name.empty();
        return c;
      };
      wo.topic_prefix = config_.dlq_topic_name_prefix;
      wo.auto_create_topics = config_.dlq_auto_create_topics_enable;
      wo.default_partitions = config_.num_partitions;
      wo.on_appended = [this](const TopicPartition& tp) {
        if (broker_) broker_->NotifyAppended({tp});
      };
      // The write ended: the records become ARCHIVED (Kafka's initiateDLQAndArchive).
      wo.on_done = [this](const SharePartitionKey& key, const DlqArchive& a) {
        if (share_partitions_)
          share_partitions_->CompleteArchiving(key, a.first_offset, a.last_offset);
      };
      wo.logger = logger.Named("org.apache.kafka.server.share.dlq.ShareGroupDLQStateManager");
      share_dlq_ = std::make_unique<ShareDlqWriter>(std::move(wo));
    }
    SharePartitionManager::Options so;
    so.dlq_enabled = [dlq = share_dlq_.get()](const std::string& group_id) {
      return dlq->EnabledFor(group_id);
    };
    so.on_dlq_archived = [dlq = share_dlq_.get()](const SharePartitionKey& key,
                                                  std::vector<DlqArchive> archived) {
      dlq->Enqueue(key, std::move(archived));
    };
    so.coordinator = share_state_.get();
    so.logs = logs_.get();
    so.scheduler = scheduler_.get();
    so.sessions = share_sessions_.get();
    // A group's own configs (IncrementalAlterConfigs on the GROUP resource) over the broker's
    // group.share.* settings, clamped to the broker's bounds (GroupConfig.evaluate).
    so.settings = [logs = logs_.get(), broker = config_.group](const std::string& group_id) {
      const std::map<std::string, std::string> stored = logs->metadata()->GroupConfigs(group_id);
      const GroupConfig g = EffectiveGroupConfig(broker, stored);
      ShareGroupSettings s;
      s.partition.record_lock_duration_ms = g.share_record_lock_duration_ms;
      s.partition.delivery_count_limit = g.share_delivery_count_limit;
      s.partition.max_record_locks = g.share_partition_max_record_locks;
      s.partition.renew_acknowledge_enabled = g.share_renew_acknowledge_enable;
      if (auto it = stored.find("share.auto.offset.reset");
          it != stored.end() && ParseShareAutoOffsetReset(it->second)) {
        s.auto_offset_reset = it->second;
      }
      s.read_committed = g.share_isolation_level == ShareIsolationLevel::kReadCommitted;
      return s;
    };
    so.on_available = [this](const std::string& group_id) {
      if (broker_) broker_->NotifyAppended({ShareAvailabilityKey(group_id)});
    };
    so.logger = logger.Named("kafka.server.share.SharePartitionManager");
    share_partitions_ = std::make_shared<SharePartitionManager>(std::move(so));
    groups_->SetShareGroupListener(share_partitions_);
  }
  // Tiered storage (remote.log.storage.system.enable): the S3 store, __remote_log_metadata,
  // the index cache and the remote log manager's passes.
  if (config_.remote_storage_system_enable) {
    auto opened = TieredStorage::Open(
        config_.remote, logs_.get(), /*start_tasks=*/true,
        logger.Named("org.apache.kafka.server.log.remote.storage.RemoteLogManager"));
    if (!opened.ok()) return opened.status().WithContext("tiered storage");
    tiered_ = std::move(*opened);
    logger.Info("Tiered storage enabled: remote log manager started");
  }

  context_ = std::make_unique<BrokerContext>();
  BrokerContext& ctx = *context_;
  ctx.logs = logs_.get();
  ctx.groups = groups_.get();
  ctx.txns = txns_.get();
  ctx.share_state = share_state_.get();
  ctx.share_sessions = share_sessions_.get();
  ctx.share_partitions = share_partitions_.get();
  // share.version and streams.version as the metadata log finalizes them (a new directory's
  // bootstrap has Kafka 4.4.0's 2 and 1; an older one neither until `kafka-features.sh
  // upgrade`); UpdateFeatures changes them while the node runs.
  if (MetadataStore* metadata = logs_->metadata(); metadata != nullptr) {
    ctx.features->share_version = metadata->FeatureLevel("share.version");
    ctx.features->streams_version = metadata->FeatureLevel("streams.version");
    ctx.features->epoch = std::max<int64_t>(1, metadata->end_offset() - 1);
  }
  ctx.remote = tiered_ ? tiered_->manager() : nullptr;
  ctx.static_configs = config_.properties;
  // authorizer.class.name: Kafka's StandardAuthorizer over the metadata log's ACLs, which every
  // API checks.
  if (auto a = config_.properties.find("authorizer.class.name");
      a != config_.properties.end() && !a->second.empty()) {
    SEGLOG_ASSIGN_OR_RETURN(AuthorizerOptions options,
                            AuthorizerOptions::FromProperties(config_.properties));
    ctx.authorizer = std::make_shared<StandardAuthorizer>(std::move(options));
    RefreshAuthorizer(ctx);
    logger.Info(fmt::format("Authorizer {} loaded {} ACL(s) from the metadata log", a->second,
                            ctx.authorizer->Acls({}).size()));
  }
  ctx.transaction_partition_verification = config_.txn.transaction_partition_verification_enable;
  ctx.transaction_version = config_.txn.transaction_version;
  ctx.node_id = config_.node_id;
  ctx.cluster_id = logs_->cluster_id();
  ctx.auto_create_topics = config_.auto_create_topics_enable;
  ctx.delete_topic_enable = config_.delete_topic_enable;
  ctx.num_partitions = config_.num_partitions;
  ctx.logger = logger.Named("kafka.server.KafkaApis");
  ThreadScheduler* scheduler = scheduler_.get();
  ctx.clock = [scheduler] { return scheduler->NowMs(); };
  const ListenerEndpoint advertised = config_.advertised_listeners.empty()
                                          ? config_.listeners.front()
                                          : config_.advertised_listeners.front();
  ctx.advertised_host = advertised.host.empty() ? LocalHostName() : advertised.host;
  ctx.advertised_port->store(advertised.port);
  ctx.listener_name = advertised.name;
  for (const ListenerEndpoint& l : config_.advertised_listeners) {
    if (l.name == advertised.name) continue;
    ctx.other_listeners[l.name] = BrokerContext::Advertised{
        l.host.empty() ? LocalHostName() : l.host, std::make_shared<std::atomic<int32_t>>(l.port)};
  }
  LogManager* logs = logs_.get();
  ctx.next_producer_id = [logs]() -> Result<int64_t> { return logs->NextProducerId(); };
  ctx.fetch_max_bytes = config_.fetch_max_bytes;
  // Client quotas from the metadata log (AlterClientQuotas, or Kafka's own on this directory),
  // read from its current snapshot on every request: a change applies at once.
  ClientQuotaManager::Options quota_options;
  quota_options.samples = config_.socket.quota_window_num;
  quota_options.window_ms = int64_t{config_.socket.quota_window_size_seconds} * 1000;
  const ClientQuotaResolver resolve_quota = [logs](ClientQuotaType type, const std::string& user,
                                                   const std::string& client_id) {
    return logs->metadata()->ClientQuotas()->Lookup(type, user, client_id);
  };
  ctx.quotas = std::make_shared<ClientQuotaManager>(quota_options, resolve_quota);
  ControllerMutationQuotaManager::Options mutation_options;
  mutation_options.samples = config_.controller_quota_window_num;
  mutation_options.window_ms = int64_t{config_.controller_quota_window_size_seconds} * 1000;
  ctx.mutation_quotas =
      std::make_shared<ControllerMutationQuotaManager>(mutation_options, resolve_quota);
  // Counted only when something serves them: without http.listener the produce and fetch
  // paths take no metrics lock at all.
  if (config_.http_port >= 0) {
    metrics_ = std::make_shared<BrokerMetrics>();
    metrics_->AddCollector(LogGaugesCollector(logs));
    metrics_->AddCollector(ProcessCollector());
    metrics_->AddCollector(CleanerCollector(logs));
    metrics_->AddCollector(GroupCollector(groups_.get()));
    metrics_->AddCollector(TransactionCollector(txns_.get()));
    if (tiered_) metrics_->AddCollector(TieredCollector(tiered_->manager()));
    std::shared_ptr<BrokerMetrics> flushes = metrics_;
    logs->SetFlushObserver(
        [flushes](int64_t ns) { flushes->RecordLogFlush(static_cast<double>(ns) / 1e6); });
    ctx.metrics = metrics_;
    // KIP-714 client telemetry: pushed client metrics go to /metrics.
    ClientMetricsManager::Options telemetry_options;
    telemetry_options.telemetry_max_bytes = config_.telemetry_max_bytes;
    ctx.telemetry = std::make_shared<ClientMetricsManager>(telemetry_options);
    for (const auto& [name, configs] :
         logs->metadata() != nullptr
             ? logs->metadata()->ClientMetricsConfigs()
             : std::map<std::string, std::map<std::string, std::string>>{}) {
      if (Status s = ctx.telemetry->UpdateSubscription(name, configs); !s.ok()) {
        logger.Warn(
            fmt::format("Client metrics subscription {} is ignored: {}", name, s.ToString()));
      }
    }
    metrics_->AddCollector(
        [telemetry = ctx.telemetry, c = context_.get()] { return telemetry->Collect(c->NowMs()); });
  }
  broker_ = std::make_unique<Broker>(ctx);
  // Transactions the last run left prepared get their markers now, before clients connect.
  txns_->Start(broker_->MarkerWriter());
  share_state_->Start();
  share_partitions_->Start();
  share_dlq_->Start();

  SocketServerOptions so = config_.SocketServer();
  so.logger = logger.Named("kafka.network.SocketServer");
  so.ip_connection_rate = [logs](const std::string& address) {
    return logs->metadata()->ClientQuotas()->IpConnectionRate(address);
  };
  so.scram_credentials = [logs](const std::string& user, ScramMechanism m) {
    return logs->metadata()->ScramCredentialOf(user, m);
  };
  if (metrics_) so.request_observer = RequestTimesObserver(metrics_);
  if (options_.front) front_ = options_.front(broker_.get());
  SEGLOG_ASSIGN_OR_RETURN(server_, SocketServer::Start(so, front_ ? front_.get() : broker_.get()));
  if (metrics_) metrics_->AddCollector(SocketServerCollector(server_.get()));
  port_ = server_->port();
  if (advertised.port == 0) ctx.advertised_port->store(server_->port(advertised.name));
  for (auto& [name, endpoint] : ctx.other_listeners) {
    if (endpoint.port->load() == 0) endpoint.port->store(server_->port(name));
  }
  if (config_.http_port >= 0) {
    HttpServerOptions http;
    http.host = config_.http_host;
    http.port = config_.http_port;
    http.logger = logger.Named("seglog.http.HttpServer");
    std::shared_ptr<BrokerMetrics> metrics = metrics_;
    std::map<std::string, HttpHandler> routes = {{"/metrics", [metrics](const HttpRequest&) {
                                                    HttpResponse r;
                                                    r.content_type =
                                                        "text/plain; version=0.0.4; charset=utf-8";
                                                    r.body = metrics->Scrape();
                                                    return r;
                                                  }}};
    // The read-only web console (src/console): its pages and JSON beside /metrics.
    WebConsoleSources console{
        logs_.get(), groups_.get(), txns_.get(), config_.node_id, ctx.cluster_id, {}, ctx.clock};
    for (const ListenerEndpoint& l : config_.listeners) console.listeners.push_back(l.ToString());
    routes.merge(WebConsole::Routes(std::make_shared<WebConsole>(std::move(console))));
    SEGLOG_ASSIGN_OR_RETURN(http_, HttpServer::Start(http, std::move(routes)));
  }
  started_ = true;
  logger.Info(fmt::format(
      "[KafkaServer id={}] started (seglog {}); cluster id {}; listening on {}:{}", config_.node_id,
      "0.1.0", ctx.cluster_id,
      config_.listeners.front().host.empty() ? "0.0.0.0" : config_.listeners.front().host, port_));
  return Status::OK();
}

int BrokerServer::port() const { return port_; }

const std::string& BrokerServer::cluster_id() const { return context_->cluster_id; }

Status BrokerServer::Shutdown() {
  if (shut_down_) return shutdown_status_;
  shut_down_ = true;
  if (started_)
    options_.logger.Info(fmt::format("[KafkaServer id={}] shutting down", config_.node_id));
  if (txns_) txns_->Shutdown();  // no more markers,
  if (share_state_) share_state_->Shutdown();
  if (broker_) broker_->Shutdown();    // parked fetches are answered first,
  if (groups_) groups_->Shutdown();    // and joins waiting for a rebalance ...
  if (server_) server_->Shutdown();    // ... then in-flight requests finish, connections close
  if (http_) http_->Stop();            // no scrape reads the logs once they close
  if (tiered_) tiered_->Shutdown();    // a copy in progress finishes; no new pass starts
  if (share_dlq_) share_dlq_->Stop();  // queued DLQ records are written before the logs close
  if (logs_) shutdown_status_ = logs_->Shutdown();
  if (scheduler_) scheduler_->Shutdown();
  if (started_)
    options_.logger.Info(fmt::format("[KafkaServer id={}] shut down completed", config_.node_id));
  return shutdown_status_;
}

}  // namespace seglog
