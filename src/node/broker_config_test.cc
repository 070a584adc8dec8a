#include "node/broker_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "tests/support/files.h"

namespace seglog {
namespace {

using ::testing::HasSubstr;

TEST(BrokerConfigTest, SocketServerSettingsHaveKafkasNamesAndDefaults) {
  auto d = BrokerConfig::FromProperties({});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->listeners, (std::vector<ListenerEndpoint>{{"PLAINTEXT", "", 9092}}));
  EXPECT_EQ(d->advertised_listeners, d->listeners);
  EXPECT_EQ(d->socket.num_network_threads, 3);
  EXPECT_EQ(d->socket.num_io_threads, 8);
  EXPECT_EQ(d->socket.queued_max_requests, 500);
  EXPECT_EQ(d->socket.socket_request_max_bytes, 104857600);
  EXPECT_EQ(d->socket.socket_send_buffer_bytes, 102400);
  EXPECT_EQ(d->socket.socket_receive_buffer_bytes, 102400);
  EXPECT_EQ(d->socket.socket_listen_backlog_size, 50);
  EXPECT_EQ(d->socket.max_connections, INT32_MAX);
  EXPECT_EQ(d->socket.connections_max_idle_ms, 600000);

  // Kafka's own KRaft server.properties: the controller listener is left out.
  auto kraft = BrokerConfig::FromProperties(
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
  EXPECT_EQ(kraft->socket.num_network_threads, 2);
  EXPECT_EQ(kraft->socket.num_io_threads, 4);
  EXPECT_EQ(kraft->socket.socket_send_buffer_bytes, -1);
  EXPECT_EQ(kraft->socket.socket_request_max_bytes, 1048576);
  EXPECT_EQ(kraft->socket.connections_max_idle_ms, 1000);
  EXPECT_EQ(kraft->socket.max_connections, 10);
  EXPECT_EQ(kraft->socket.queued_max_requests, 16);
  EXPECT_TRUE(kraft->ignored.empty());

  auto bad = BrokerConfig::FromProperties({{"listeners", "SSL://:9093"},
                                           {"num.io.threads", "0"},
                                           {"socket.request.max.bytes", "0"},
                                           {"queued.max.requests", "0"}});
  ASSERT_FALSE(bad.ok());
  const std::string m(bad.status().message());
  EXPECT_THAT(m, HasSubstr("listener SSL: ssl.keystore.location (or ssl.keystore.key with "
                           "ssl.keystore.certificate.chain) is required on an SSL listener"));
  EXPECT_THAT(m, HasSubstr("Invalid value 0 for configuration num.io.threads: Value must be at "
                           "least 1"));
  EXPECT_THAT(m, HasSubstr("configuration socket.request.max.bytes: Value must be at least 1"));
  EXPECT_THAT(m, HasSubstr("configuration queued.max.requests: Value must be at least 1"));
  EXPECT_THAT(BrokerConfig::FromProperties({{"advertised.listeners", "PLAINTEXT://0.0.0.0:9092"}})
                  .status()
                  .message(),
              HasSubstr("nonroutable meta-address 0.0.0.0"));
}

TEST(BrokerConfigTest, TieredStorageSettingsHaveKafkasNamesAndDefaults) {
  auto d = BrokerConfig::FromProperties({});
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->remote_storage_system_enable);
  EXPECT_EQ(d->remote.task_interval_ms, 30000);
  EXPECT_EQ(d->remote.index_file_cache_total_size_bytes, 1073741824);
  EXPECT_EQ(d->remote.custom_metadata_max_bytes, 128);
  EXPECT_EQ(d->remote.metadata_topic_num_partitions, 50);
  EXPECT_EQ(d->remote.metadata_topic_retention_ms, -1);
  EXPECT_EQ(d->remote.reader_threads, 10);
  EXPECT_EQ(d->remote.reader_max_pending_tasks, 100);
  EXPECT_EQ(d->remote.fetch_max_wait_ms, 500);
  auto c = BrokerConfig::FromProperties({
      {"remote.log.storage.system.enable", "true"},
      {"remote.log.manager.task.interval.ms", "500"},
      {"remote.log.index.file.cache.total.size.bytes", "4096"},
      {"remote.log.storage.manager.class.name",
       "io.aiven.kafka.tieredstorage.RemoteStorageManager"},
      {"rlmm.config.remote.log.metadata.topic.num.partitions", "3"},
      {"rlmm.config.remote.log.metadata.topic.replication.factor", "1"},
      {"remote.log.reader.threads", "4"},
      {"remote.log.reader.max.pending.tasks", "7"},
      {"remote.log.manager.expiration.thread.pool.size", "4"},
      {"rsm.config.storage.s3.bucket.name", "b"},
      {"rsm.config.storage.s3.region", "us-east-1"},
      {"log.local.retention.ms", "60000"},
      {"log.local.retention.bytes", "1048576"},
  });
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->remote_storage_system_enable);
  EXPECT_EQ(c->remote.task_interval_ms, 500);
  EXPECT_EQ(c->remote.index_file_cache_total_size_bytes, 4096);
  EXPECT_EQ(c->remote.metadata_topic_num_partitions, 3);
  EXPECT_EQ(c->remote.rsm_config.size(), 2u);
  EXPECT_EQ(c->remote.rsm_config.at("rsm.config.storage.s3.bucket.name"), "b");
  auto topic = c->TopicConfig({});
  ASSERT_TRUE(topic.ok());
  EXPECT_EQ(topic->local_retention_ms, 60000);
  EXPECT_EQ(topic->local_retention_bytes, 1048576);
  EXPECT_EQ(c->remote.reader_threads, 4);
  EXPECT_EQ(c->remote.reader_max_pending_tasks, 7);
  EXPECT_THAT(c->ignored, ::testing::Contains("remote.log.manager.expiration.thread.pool.size"));
  EXPECT_THAT(c->ignored, ::testing::Not(::testing::Contains("remote.log.reader.threads")));
  auto bad = BrokerConfig::FromProperties(
      {{"remote.log.manager.task.interval.ms", "0"}, {"remote.log.storage.system.enable", "yes"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().ToString(),
              ::testing::HasSubstr(
                  "Invalid value 0 for configuration remote.log.manager.task.interval.ms"));
  EXPECT_THAT(bad.status().ToString(), ::testing::HasSubstr("Invalid value yes for configuration "
                                                            "remote.log.storage.system.enable"));
}

TEST(BrokerConfigTest, EachLayerParsesItsOwnKeysAndEveryProblemIsReportedAtOnce) {
  auto c = BrokerConfig::FromProperties({{"node.id", "7"},
                                         {"log.dirs", "/a"},
                                         {"num.io.threads", "4"},
                                         {"offsets.topic.num.partitions", "5"},
                                         {"group.consumer.migration.policy", "Upgrade"},
                                         {"transaction.max.timeout.ms", "1000"},
                                         {"remote.fetch.max.wait.ms", "250"},
                                         {"auto.create.topics.enable", "false"},
                                         {"process.roles", "broker,controller"},
                                         {"ssl.keystore.location", "/x"},
                                         {"group.share.enable", "true"}});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->node_id, 7);
  EXPECT_EQ(c->log_dirs, std::vector<std::string>{"/a"});
  EXPECT_EQ(c->socket.num_io_threads, 4);
  EXPECT_EQ(c->group.offsets_topic_num_partitions, 5);
  EXPECT_TRUE(c->group.group_consumer_migration_upgrade);
  EXPECT_FALSE(c->group.group_consumer_migration_downgrade);
  EXPECT_EQ(c->txn.transaction_max_timeout_ms, 1000);
  EXPECT_EQ(c->remote.fetch_max_wait_ms, 250);
  EXPECT_FALSE(c->auto_create_topics_enable);
  EXPECT_EQ(c->properties.size(), 11u);
  EXPECT_EQ(c->ignored, (std::vector<std::string>{"group.share.enable", "process.roles",
                                                  "ssl.keystore.location"}));

  // Problems from every layer, in one message: storage, the node, the socket server, both
  // coordinators, tiered storage, a rule across group settings and the listeners.
  auto bad = BrokerConfig::FromProperties({{"log.segment.bytes", "1"},
                                           {"node.id", "-1"},
                                           {"default.replication.factor", "3"},
                                           {"max.connections", "-1"},
                                           {"offsets.topic.num.partitions", "0"},
                                           {"group.consumer.session.timeout.ms", "1000"},
                                           {"group.consumer.heartbeat.interval.ms", "1000"},
                                           {"transaction.version", "3"},
                                           {"remote.log.storage.system.enable", "maybe"},
                                           {"listeners", "SSL://:9093"},
                                           {"offsets.topic.num.partitionz", "1"}});
  ASSERT_FALSE(bad.ok());
  const std::string m(bad.status().message());
  for (const char* want :
       {"Invalid value 1 for configuration log.segment.bytes",
        "Invalid value -1 for configuration node.id: Value must be at least 0",
        "the replication factor must be 1",
        "Invalid value -1 for configuration max.connections: Value must be at least 0",
        "Invalid value 0 for configuration offsets.topic.num.partitions",
        "group.consumer.heartbeat.interval.ms must be less than group.consumer.session.timeout.ms",
        "Invalid value 3 for configuration transaction.version: Value must be no more than 2",
        "Invalid value maybe for configuration remote.log.storage.system.enable",
        "listener SSL: ssl.keystore.location",
        "Unknown configuration 'offsets.topic.num.partitionz'"}) {
    EXPECT_THAT(m, HasSubstr(want));
  }
}

// KIP-1191's broker configs (Kafka 4.4.0's defaults false and "dlq."), the node's own keys.
TEST(BrokerConfigTest, ShareGroupDlqSettings) {
  auto defaults = BrokerConfig::FromProperties({{"node.id", "1"}, {"log.dirs", "/a"}});
  ASSERT_TRUE(defaults.ok()) << defaults.status().ToString();
  EXPECT_FALSE(defaults->dlq_auto_create_topics_enable);
  EXPECT_EQ(defaults->dlq_topic_name_prefix, "dlq.");
  auto set =
      BrokerConfig::FromProperties({{"node.id", "1"},
                                    {"log.dirs", "/a"},
                                    {"errors.deadletterqueue.auto.create.topics.enable", "true"},
                                    {"errors.deadletterqueue.topic.name.prefix", ""}});
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  EXPECT_TRUE(set->dlq_auto_create_topics_enable);
  EXPECT_EQ(set->dlq_topic_name_prefix, "");
  EXPECT_TRUE(set->ignored.empty());
  auto bad =
      BrokerConfig::FromProperties({{"node.id", "1"},
                                    {"log.dirs", "/a"},
                                    {"errors.deadletterqueue.auto.create.topics.enable", "yes"}});
  EXPECT_FALSE(bad.ok());
}

TEST(BrokerConfigTest, TheSocketServersOptionsCarryTheListenersAndTheNodeId) {
  auto c = BrokerConfig::FromProperties({{"listeners", "PLAINTEXT://127.0.0.1:0"},
                                         {"node.id", "3"},
                                         {"num.io.threads", "2"},
                                         {"connections.max.idle.ms", "5"}});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  SocketServerOptions o = c->SocketServer();
  EXPECT_EQ(o.listeners, (std::vector<ListenerEndpoint>{{"PLAINTEXT", "127.0.0.1", 0}}));
  EXPECT_EQ(o.node_id, 3);
  EXPECT_EQ(o.num_io_threads, 2);
  EXPECT_EQ(o.num_network_threads, 3);
  EXPECT_EQ(o.connections_max_idle_ms, 5);
  EXPECT_EQ(o.socket_request_max_bytes, 104857600);
}

TEST(BrokerConfigTest, LoadNamesTheFile) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/server.properties";
  std::ofstream(path) << "node.id=2\nlog.dirs=" << dir.path() << "\nnum.io.threads=0\n";
  auto c = BrokerConfig::Load(path);
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().ToString(), HasSubstr(path));
  EXPECT_THAT(c.status().ToString(), HasSubstr("configuration num.io.threads"));
  std::ofstream(path) << "node.id=2\nlog.dirs=" << dir.path() << "\n";
  auto ok = BrokerConfig::Load(path);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->node_id, 2);
  EXPECT_EQ(ok->properties.at("node.id"), "2");
}

}  // namespace
}  // namespace seglog

namespace seglog {
namespace {

TEST(BrokerConfigTest, AnAuthorizerIsKafkasStandardAuthorizerOnAnyListener) {
  // Kafka's server.properties with the StandardAuthorizer: every API checks the ACLs, so any
  // super users will do.
  auto ok = BrokerConfig::FromProperties(
      {{"authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"},
       {"super.users", "User:admin; User:ANONYMOUS"},
       {"allow.everyone.if.no.acl.found", "true"},
       {"metadata.log.max.snapshot.interval.ms", "5000"}});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->metadata_log_max_snapshot_interval_ms, 5000);
  EXPECT_TRUE(
      BrokerConfig::FromProperties(
          {{"authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"},
           {"super.users", "User:admin"}})
          .ok());
  EXPECT_TRUE(
      BrokerConfig::FromProperties(
          {{"authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"}})
          .ok());
  // Also with authenticated clients: a SASL_PLAINTEXT listener and PLAIN users.
  auto sasl = BrokerConfig::FromProperties(
      {{"listeners", "SASL_PLAINTEXT://:9092"},
       {"sasl.enabled.mechanisms", "PLAIN"},
       {"listener.name.sasl_plaintext.plain.sasl.jaas.config",
        "org.apache.kafka.common.security.plain.PlainLoginModule required "
        "user_admin=\"admin-secret\" user_alice=\"alice-secret\";"},
       {"authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"},
       {"super.users", "User:admin"}});
  ASSERT_TRUE(sasl.ok()) << sasl.status().ToString();
  EXPECT_EQ(sasl->listeners.at(0).security_protocol, "SASL_PLAINTEXT");
  // Kafka's StandardAuthorizer only (Kafka 4.4 has no other built in), and super.users in its
  // format.
  auto other = BrokerConfig::FromProperties(
      {{"authorizer.class.name", "com.example.MyAuthorizer"}, {"super.users", "User:admin"}});
  ASSERT_FALSE(other.ok());
  EXPECT_THAT(std::string(other.status().message()), HasSubstr("Kafka's StandardAuthorizer"));
  auto zk = BrokerConfig::FromProperties(
      {{"authorizer.class.name", "kafka.security.authorizer.AclAuthorizer"}});
  ASSERT_FALSE(zk.ok());
  auto malformed = BrokerConfig::FromProperties(
      {{"authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"},
       {"super.users", "User:ANONYMOUS;admin"}});
  ASSERT_FALSE(malformed.ok());
  EXPECT_THAT(std::string(malformed.status().message()),
              HasSubstr("expected a string in format principalType:principalName but got admin"));
  // An empty authorizer.class.name is no authorizer, as in Kafka.
  EXPECT_TRUE(BrokerConfig::FromProperties({{"authorizer.class.name", ""}}).ok());
  // The metadata log's settings have Kafka's minimums.
  auto small = BrokerConfig::FromProperties({{"metadata.log.segment.bytes", "1024"}});
  ASSERT_FALSE(small.ok());
  EXPECT_THAT(std::string(small.status().message()), HasSubstr("metadata.log.segment.bytes"));
}

}  // namespace
}  // namespace seglog

namespace seglog {
namespace {

TEST(BrokerConfigTest, HttpListenerIsOffUnlessSetAndMustBeHostAndPort) {
  auto off = BrokerConfig::FromProperties({{"log.dirs", "/tmp/x"}, {"node.id", "1"}});
  ASSERT_TRUE(off.ok()) << off.status().ToString();
  EXPECT_EQ(off->http_port, -1);
  auto on = BrokerConfig::FromProperties(
      {{"log.dirs", "/tmp/x"}, {"node.id", "1"}, {"http.listener", "127.0.0.1:9093"}});
  ASSERT_TRUE(on.ok()) << on.status().ToString();
  EXPECT_EQ(on->http_host, "127.0.0.1");
  EXPECT_EQ(on->http_port, 9093);
  auto bad = BrokerConfig::FromProperties(
      {{"log.dirs", "/tmp/x"}, {"node.id", "1"}, {"http.listener", "9093"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().ToString().find("http.listener must be HOST:PORT"), std::string::npos)
      << bad.status().ToString();
}

}  // namespace
}  // namespace seglog

namespace seglog {
namespace {

// telemetry.max.bytes bounds a KIP-714 push (Kafka's default 1 MiB, at least 1); it is used, so
// not listed as ignored.
TEST(BrokerConfigTest, TelemetryMaxBytes) {
  auto d = BrokerConfig::FromProperties({});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->telemetry_max_bytes, 1048576);
  auto set = BrokerConfig::FromProperties({{"telemetry.max.bytes", "2048"}});
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  EXPECT_EQ(set->telemetry_max_bytes, 2048);
  EXPECT_TRUE(std::find(set->ignored.begin(), set->ignored.end(), "telemetry.max.bytes") ==
              set->ignored.end());
  EXPECT_FALSE(BrokerConfig::FromProperties({{"telemetry.max.bytes", "0"}}).ok());
  EXPECT_FALSE(BrokerConfig::FromProperties({{"telemetry.max.bytes", "x"}}).ok());
}

}  // namespace
}  // namespace seglog
