#include "manager/server_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace seglog {
namespace {

using ::testing::HasSubstr;

TEST(ServerConfigTest, DefaultsAreKafkas) {
  auto c = ServerConfig::FromProperties({});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->log_dirs, std::vector<std::string>{"/tmp/kafka-logs"});
  EXPECT_EQ(c->num_recovery_threads_per_data_dir, 2);
  EXPECT_EQ(c->log_retention_check_interval_ms, 300000);
  EXPECT_EQ(c->log_initial_task_delay_ms, 30000);
  auto topic = c->TopicConfig({});
  ASSERT_TRUE(topic.ok());
  EXPECT_EQ(topic->retention_ms, 604800000);
  EXPECT_EQ(topic->segment_bytes, 1073741824);
  EXPECT_EQ(topic->file_delete_delay_ms, 60000);
}

TEST(ServerConfigTest, SynonymsFollowKafkasPrecedence) {
  // log.retention.ms over .minutes over .hours; log.roll.ms over .hours.
  auto c = ServerConfig::FromProperties({{"log.retention.hours", "1"},
                                         {"log.retention.minutes", "5"},
                                         {"log.roll.hours", "2"},
                                         {"log.dirs", "/a, /b"},
                                         {"log.dir", "/ignored"},
                                         {"log.segment.bytes", "2097152"},
                                         {"log.segment.delete.delay.ms", "10000"}});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->log_dirs, (std::vector<std::string>{"/a", "/b"}));
  auto t = c->TopicConfig({});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->retention_ms, 300000);
  EXPECT_EQ(t->segment_ms, 7200000);
  EXPECT_EQ(t->segment_bytes, 2097152);
  EXPECT_EQ(t->file_delete_delay_ms, 10000);
  auto ms =
      ServerConfig::FromProperties({{"log.retention.ms", "20000"}, {"log.retention.hours", "1"}});
  EXPECT_EQ(ms->TopicConfig({})->retention_ms, 20000);
  auto negative = ServerConfig::FromProperties({{"log.retention.hours", "-5"}});
  EXPECT_EQ(negative->TopicConfig({})->retention_ms, -1);  // any negative: unlimited
  // A topic override wins over the broker default.
  auto o = c->TopicConfig({{"retention.ms", "1000"}});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->retention_ms, 1000);
}

TEST(ServerConfigTest, BadValuesAndUnknownKeysAreRefusedInKafkasWords) {
  auto c = ServerConfig::FromProperties({{"log.segment.bytes", "102400"},
                                         {"num.recovery.threads.per.data.dir", "0"},
                                         {"log.retention.bytes", "lots"},
                                         {"log.segmnet.bytes", "1"}});
  ASSERT_FALSE(c.ok());
  const std::string m(c.status().message());
  EXPECT_THAT(m, HasSubstr("Invalid value 102400 for configuration log.segment.bytes: Value must "
                           "be at least 1048576"));
  EXPECT_THAT(m, HasSubstr("Invalid value 0 for configuration "
                           "num.recovery.threads.per.data.dir: Value must be at least 1"));
  EXPECT_THAT(m, HasSubstr("configuration log.retention.bytes: Not a number of type LONG"));
  EXPECT_THAT(m, HasSubstr("Unknown configuration 'log.segmnet.bytes'"));
  // A Kafka broker's other settings are accepted and listed as unused.
  auto k = ServerConfig::FromProperties({{"process.roles", "broker,controller"},
                                         {"listeners", "PLAINTEXT://:9092"},
                                         {"ssl.keystore.location", "/x"},
                                         {"socket.send.buffer.bytes", "102400"}});
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(k->ignored, (std::vector<std::string>{"process.roles", "ssl.keystore.location"}));
  // Cross-field rules apply to the defaults too.
  auto lag = ServerConfig::FromProperties(
      {{"log.cleaner.min.compaction.lag.ms", "10"}, {"log.cleaner.max.compaction.lag.ms", "5"}});
  EXPECT_THAT(lag.status().message(),
              HasSubstr("min.compaction.lag.ms (10) > max.compaction.lag.ms (5)"));
  // A bad topic override names the topic key.
  auto ok = ServerConfig::FromProperties({});
  EXPECT_THAT(ok->TopicConfig({{"segment.bytes", "102400"}}).status().message(),
              HasSubstr("Invalid value 102400 for configuration segment.bytes"));
  EXPECT_THAT(ok->TopicConfig({{"retention.mss", "1"}}).status().message(),
              HasSubstr("retention.mss"));
}

TEST(ServerConfigTest, SocketServerSettingsHaveKafkasNamesAndDefaults) {
  auto d = ServerConfig::FromProperties({});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->listeners, (std::vector<ListenerEndpoint>{{"PLAINTEXT", "", 9092}}));
  EXPECT_EQ(d->advertised_listeners, d->listeners);
  EXPECT_EQ(d->num_network_threads, 3);
  EXPECT_EQ(d->num_io_threads, 8);
  EXPECT_EQ(d->queued_max_requests, 500);
  EXPECT_EQ(d->socket_request_max_bytes, 104857600);
  EXPECT_EQ(d->socket_send_buffer_bytes, 102400);
  EXPECT_EQ(d->socket_receive_buffer_bytes, 102400);
  EXPECT_EQ(d->socket_listen_backlog_size, 50);
  EXPECT_EQ(d->max_connections, INT32_MAX);
  EXPECT_EQ(d->connections_max_idle_ms, 600000);

  // Kafka's own KRaft server.properties: the controller listener is left out.
  auto kraft = ServerConfig::FromProperties(
      {{"listeners", "PLAINTEXT://:9092,CONTROLLER://:9093"},
       {"advertised.listeners", "PLAINTEXT://localhost:9092,CONTROLLER://localhost:9093"},
       {"controller.listener.names", "CONTROLLER"},
       {"listener.security.protocol.map",
        "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT"},
       {"num.network.threads", "2"},
       {"num.io.threads", "4"},
       {"socket.send.buffer.bytes", "-1"},
       {"socket.request.max.bytes", "1048576"},
       {"connections.max.idle.ms", "1000"},
       {"max.connections", "10"},
       {"queued.max.requests", "16"}});
  ASSERT_TRUE(kraft.ok()) << kraft.status().ToString();
  EXPECT_EQ(kraft->listeners, (std::vector<ListenerEndpoint>{{"PLAINTEXT", "", 9092}}));
  EXPECT_EQ(kraft->advertised_listeners,
            (std::vector<ListenerEndpoint>{{"PLAINTEXT", "localhost", 9092}}));
  EXPECT_EQ(kraft->num_network_threads, 2);
  EXPECT_EQ(kraft->num_io_threads, 4);
  EXPECT_EQ(kraft->socket_send_buffer_bytes, -1);
  EXPECT_EQ(kraft->socket_request_max_bytes, 1048576);
  EXPECT_EQ(kraft->connections_max_idle_ms, 1000);
  EXPECT_EQ(kraft->max_connections, 10);
  EXPECT_EQ(kraft->queued_max_requests, 16);
  EXPECT_TRUE(kraft->ignored.empty());

  auto bad = ServerConfig::FromProperties({{"listeners", "SSL://:9093"},
                                           {"num.io.threads", "0"},
                                           {"socket.request.max.bytes", "0"},
                                           {"queued.max.requests", "0"}});
  ASSERT_FALSE(bad.ok());
  const std::string m(bad.status().message());
  EXPECT_THAT(m, HasSubstr("listener SSL uses security protocol SSL; seglog supports only "
                           "PLAINTEXT"));
  EXPECT_THAT(m, HasSubstr("Invalid value 0 for configuration num.io.threads: Value must be at "
                           "least 1"));
  EXPECT_THAT(m, HasSubstr("configuration socket.request.max.bytes: Value must be at least 1"));
  EXPECT_THAT(m, HasSubstr("configuration queued.max.requests: Value must be at least 1"));
  EXPECT_THAT(ServerConfig::FromProperties({{"advertised.listeners", "PLAINTEXT://0.0.0.0:9092"}})
                  .status()
                  .message(),
              HasSubstr("nonroutable meta-address 0.0.0.0"));
}

}  // namespace
}  // namespace seglog

namespace seglog {
namespace {

TEST(ServerConfigTest, TieredStorageSettingsHaveKafkasNamesAndDefaults) {
  auto d = ServerConfig::FromProperties({});
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->remote.system_enable);
  EXPECT_EQ(d->remote.task_interval_ms, 30000);
  EXPECT_EQ(d->remote.index_file_cache_total_size_bytes, 1073741824);
  EXPECT_EQ(d->remote.custom_metadata_max_bytes, 128);
  EXPECT_EQ(d->remote.metadata_topic_num_partitions, 50);
  EXPECT_EQ(d->remote.metadata_topic_retention_ms, -1);
  auto c = ServerConfig::FromProperties({
      {"remote.log.storage.system.enable", "true"},
      {"remote.log.manager.task.interval.ms", "500"},
      {"remote.log.index.file.cache.total.size.bytes", "4096"},
      {"remote.log.storage.manager.class.name",
       "io.aiven.kafka.tieredstorage.RemoteStorageManager"},
      {"rlmm.config.remote.log.metadata.topic.num.partitions", "3"},
      {"rlmm.config.remote.log.metadata.topic.replication.factor", "1"},
      {"remote.log.reader.threads", "4"},
      {"rsm.config.storage.s3.bucket.name", "b"},
      {"rsm.config.storage.s3.region", "us-east-1"},
      {"log.local.retention.ms", "60000"},
      {"log.local.retention.bytes", "1048576"},
  });
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->remote.system_enable);
  EXPECT_EQ(c->remote.task_interval_ms, 500);
  EXPECT_EQ(c->remote.index_file_cache_total_size_bytes, 4096);
  EXPECT_EQ(c->remote.metadata_topic_num_partitions, 3);
  EXPECT_EQ(c->remote.rsm_config.size(), 2u);
  EXPECT_EQ(c->remote.rsm_config.at("rsm.config.storage.s3.bucket.name"), "b");
  auto topic = c->TopicConfig({});
  ASSERT_TRUE(topic.ok());
  EXPECT_EQ(topic->local_retention_ms, 60000);
  EXPECT_EQ(topic->local_retention_bytes, 1048576);
  EXPECT_THAT(c->ignored, ::testing::Contains("remote.log.reader.threads"));
  auto bad = ServerConfig::FromProperties(
      {{"remote.log.manager.task.interval.ms", "0"}, {"remote.log.storage.system.enable", "yes"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().ToString(),
              ::testing::HasSubstr(
                  "Invalid value 0 for configuration remote.log.manager.task.interval.ms"));
  EXPECT_THAT(bad.status().ToString(), ::testing::HasSubstr("Invalid value yes for configuration "
                                                            "remote.log.storage.system.enable"));
}

}  // namespace
}  // namespace seglog
