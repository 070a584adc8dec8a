// seglog: the command-line tool. Each subcommand only parses its arguments and calls the library
// function in tools/ that does the work.
#include <CLI/CLI.hpp>
#include <atomic>
#include <cctype>
#include <csignal>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/logger_registry.h"
#include "tools/check.h"
#include "tools/consume.h"
#include "tools/dump_log.h"
#include "tools/format.h"
#include "tools/manage.h"
#include "tools/produce.h"
#include "tools/progress_reporter.h"
#include "tools/recover.h"
#include "tools/serve.h"
#include "tools/walkthrough.h"

namespace {

// "key=value" -> (key, value); CLI11 validator style.
bool SplitConfig(const std::string& kv, std::map<std::string, std::string>* out) {
  const size_t eq = kv.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  (*out)[kv.substr(0, eq)] = kv.substr(eq + 1);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"seglog: Kafka's partition log storage, byte-compatible with Kafka 4.x"};
  app.require_subcommand(1);
  std::string log_level;
  app.add_option("--log-level", log_level,
                 "root's log level for the lines of the storage engine (TRACE, DEBUG, INFO, WARN, "
                 "ERROR, FATAL, OFF); a broker's own come from server.properties "
                 "(log4j.rootLogger, log4j.logger.<name>)");
  // recover, check, dump-log and clean draw one progress line on stderr when it is a terminal.
  seglog::ProgressMode progress_mode = seglog::ProgressMode::kAuto;
  auto progress_flags = [&progress_mode](CLI::App* c) {
    c->add_flag_callback(
        "--progress", [&progress_mode] { progress_mode = seglog::ProgressMode::kOn; },
        "Draw a progress line on stderr (bytes and segments done, rate, time left) even when it "
        "is not a terminal");
    c->add_flag_callback(
        "--no-progress", [&progress_mode] { progress_mode = seglog::ProgressMode::kOff; },
        "Never draw the progress line (default: only when stderr is a terminal)");
  };

  std::vector<std::string> files;
  seglog::DumpLogOptions dump_options;
  auto* dump = app.add_subcommand("dump-log", "Print .log segments as kafka-dump-log.sh does");
  dump->add_option("--files", files,
                   "Comma-separated .log, .index, .timeindex, .txnindex, .snapshot and "
                   ".checkpoint files")
      ->required()
      ->delimiter(',');
  dump->add_flag("--deep-iteration", dump_options.deep_iteration, "One line per record");
  dump->add_flag("--print-data-log", dump_options.print_data_log, "Print keys and values");
  dump->add_flag("--cluster-metadata-decoder", dump_options.cluster_metadata_decoder,
                 "Print values as KRaft metadata records (JSON), as __cluster_metadata holds them");
  dump->add_flag("--offsets-decoder", dump_options.offsets_decoder,
                 "Print keys and values as __consumer_offsets' group coordinator records (JSON)");
  dump->add_flag("--share-group-state-decoder", dump_options.share_group_state_decoder,
                 "Print keys and values as __share_group_state's share coordinator records (JSON)");
  dump->add_flag("--transaction-log-decoder", dump_options.transaction_log_decoder,
                 "Print keys and values as __transaction_state's transaction records (JSON)");
  dump->add_flag("--verify-index-only", dump_options.verify_index_only,
                 "Check index entries against the log, printing only the mismatches");
  dump->add_flag("--index-sanity-check", dump_options.index_sanity_check,
                 "Only run the index sanity check that the broker runs at startup");
  dump->add_option("--max-message-size", dump_options.max_message_size,
                   "Bytes of the log read at each offset index entry")
      ->capture_default_str();
  dump->add_option("--max-bytes", dump_options.max_bytes, "Only read this many bytes of each .log")
      ->capture_default_str();
  progress_flags(dump);

  std::string log_dir = "./data";
  auto* walk = app.add_subcommand("walkthrough", "Example 1 of the seeds, step by step");
  walk->add_option("--log-dir", log_dir, "Log directory")->capture_default_str();

  seglog::ProduceOptions po;
  std::vector<std::string> produce_configs;
  std::string compression = "none";
  int32_t partition = -1;
  std::string value_char = "v";
  auto* produce = app.add_subcommand("produce", "Append records to a topic in a log directory");
  produce->add_option("--log-dir", po.log_dir, "Log directory")->required();
  produce->add_option("--topic", po.topic, "Topic (created if missing)")->required();
  produce->add_option("--partition", partition, "Partition (default: by key, murmur2)");
  produce->add_option("--partitions", po.partitions, "Partitions when the topic is created")
      ->capture_default_str();
  produce->add_option("--config", produce_configs,
                      "Topic config key=value (Kafka names), used when the topic is created");
  produce->add_option("--num-records", po.num_records,
                      "Generate this many records instead of reading key:value lines from stdin");
  produce->add_option("--batch-records", po.batch_records, "Records per batch")
      ->capture_default_str();
  produce->add_option("--key-format", po.key_format, "printf-style key with one %d")
      ->capture_default_str();
  produce->add_option("--value-size", po.value_size, "Bytes per generated value")
      ->capture_default_str();
  produce->add_option("--value-char", value_char, "Character of generated values")
      ->capture_default_str();
  produce->add_option("--key-separator", po.key_separator,
                      "Split stdin lines into key and value at this string");
  produce->add_option("--null-marker", po.null_marker, "A key or value equal to this is null");
  produce->add_option("--timestamp-start", po.timestamp_start, "First record timestamp (ms)");
  produce->add_option("--timestamp-step", po.timestamp_step, "Timestamp step per record (ms)")
      ->capture_default_str();
  produce->add_option("--compression", compression, "none|gzip|snappy|lz4|zstd")
      ->capture_default_str();

  seglog::ConsumeOptions co;
  auto* consume = app.add_subcommand("consume", "Print a topic's records from a log directory");
  consume->add_option("--log-dir", co.log_dir, "Log directory (overrides log.dirs)");
  consume->add_option("--server-config", co.server_config,
                      "The node's server.properties; with remote.log.storage.system.enable=true, "
                      "offsets below a tiered partition's local log start are read from the "
                      "remote tier");
  consume->add_option("--topic", co.topic, "Topic")->required();
  consume->add_option("--partition", co.partition, "Partition (default: all)");
  consume->add_option("--offset", co.offset, "earliest, latest or an offset")
      ->capture_default_str();
  consume->add_option("--max-records", co.max_records, "Stop after this many records");
  consume->add_option("--format", co.format, "text or json")->capture_default_str();
  consume
      ->add_option("--reset", co.reset,
                   "An --offset out of range: earliest, latest or none (auto.offset.reset)")
      ->capture_default_str();

  seglog::GetOffsetsOptions go;
  auto* offsets = app.add_subcommand("get-offsets", "Offsets for a time, as kafka-get-offsets.sh");
  offsets->add_option("--log-dir", go.log_dir, "Log directory")->required();
  offsets->add_option("--topic", go.topic, "Topic")->required();
  offsets->add_option("--partitions", go.partitions, "Comma-separated partitions (default: all)")
      ->delimiter(',');
  offsets->add_option("--time", go.time, "earliest|latest|max-timestamp|<ms since epoch>")
      ->capture_default_str();

  seglog::CheckOptions ko;
  auto* check = app.add_subcommand(
      "check", "Verify a log directory read-only (also a Kafka broker's); exit 1 on any problem");
  check->add_option("--log-dir", ko.log_dir, "Log directory")->required();
  check->add_option("--topic", ko.topic, "Only this topic's partitions");
  check->add_flag("--remote", ko.remote,
                  "Also fetch and verify every remote segment of the tiered partitions (needs "
                  "remote.log.storage.system.enable=true in --server-config)");
  check->add_option("--server-config", ko.server_config,
                    "The node's server.properties (remote.log.* and rsm.config.* settings)");
  progress_flags(check);

  seglog::RecoverOptions ro;
  auto* recover = app.add_subcommand(
      "recover",
      "Open a log directory as a broker does at startup (recovering it after an unclean "
      "shutdown), then shut it down cleanly");
  recover->add_option("--log-dir", ro.log_dir, "Log directory")->required();
  recover->add_option("--threads", ro.threads, "num.recovery.threads.per.data.dir")
      ->capture_default_str();
  progress_flags(recover);
  produce
      ->add_option("--recovery-threads", po.recovery_threads,
                   "Threads that recover the directory after an unclean shutdown")
      ->capture_default_str();

  // Storage-node commands over a LogManager.
  auto node_options = [](CLI::App* c, seglog::NodeOptions* n) {
    c->add_option("--log-dir", n->log_dir, "Log directory (overrides log.dirs)");
    c->add_option("--server-config", n->server_config, "server.properties with log.* settings");
  };
  seglog::TopicsOptions to;
  std::vector<std::string> topic_configs;
  bool t_create = false, t_describe = false, t_alter = false, t_delete = false, t_list = false;
  auto* topics = app.add_subcommand("topics", "Create, describe, alter, delete and list topics");
  node_options(topics, &to.node);
  topics->add_flag("--create", t_create, "Create a topic");
  topics->add_flag("--describe", t_describe, "Describe a topic (all without --topic)");
  topics->add_flag("--alter", t_alter, "Add partitions or change configs");
  topics->add_flag("--delete", t_delete, "Delete a topic");
  topics->add_flag("--list", t_list, "List topics");
  topics->add_option("--topic", to.topic, "Topic");
  topics->add_option("--partitions", to.partitions, "Partitions (create: default num.partitions)");
  topics->add_option("--config", topic_configs, "Topic config key=value (Kafka names)");

  seglog::ConfigsOptions cfo;
  bool c_describe = false;
  std::vector<std::string> add_configs;
  auto* configs = app.add_subcommand("configs", "Describe or alter a topic's config overrides");
  node_options(configs, &cfo.node);
  configs->add_option("--topic", cfo.topic, "Topic")->required();
  configs->add_flag("--describe", c_describe, "Show the overrides");
  configs->add_flag("--alter", cfo.alter, "Change them");
  configs->add_option("--add-config", add_configs, "key=value[,key=value]")->delimiter(',');
  configs->add_option("--delete-config", cfo.remove, "key[,key]")->delimiter(',');

  seglog::DeleteRecordsOptions dro;
  auto* delete_records = app.add_subcommand(
      "delete-records", "Raise a partition's log start offset, as kafka-delete-records.sh");
  node_options(delete_records, &dro.node);
  delete_records->add_option("--topic", dro.topic, "Topic")->required();
  delete_records->add_option("--partition", dro.partition, "Partition")->required();
  delete_records->add_option("--offset", dro.offset, "New log start offset; -1: high watermark")
      ->required();

  seglog::CleanOptions clo;
  auto* clean = app.add_subcommand("clean", "Compact a topic's partitions now (a cleaner round)");
  node_options(clean, &clo.node);
  clean->add_option("--topic", clo.topic, "Topic")->required();
  clean->add_option("--partition", clo.partition, "Partition (default: all)");
  progress_flags(clean);

  seglog::NodeOptions rto;
  std::vector<std::string> task_names;
  auto* run_tasks = app.add_subcommand(
      "run-tasks",
      "Run background tasks once: retention, flush, checkpoint, delete-files, cleaner, "
      "producer-expiration");
  node_options(run_tasks, &rto);
  run_tasks->add_option("tasks", task_names, "Task names")->required();

  seglog::NodeOptions sso;
  auto* serve = app.add_subcommand("serve-storage",
                                   "Run the storage node and its background tasks until SIGTERM");
  node_options(serve, &sso);

  seglog::FormatOptions fo;
  auto* format = app.add_subcommand(
      "format",
      "Format log directories as kafka-storage.sh format does (meta.properties, the "
      "metadata log's bootstrap snapshot)");
  format->add_option("-c,--config", fo.config, "The server.properties to use")->required();
  format->add_option("-t,--cluster-id", fo.cluster_id, "The cluster ID to use")->required();
  format->add_option("-r,--release-version", fo.release_version,
                     "The release version for the initial feature settings (default 4.4-IV2)");
  format->add_option("-f,--feature", fo.features, "A feature's level, feature=level (repeatable)");
  format->add_flag("-g,--ignore-formatted", fo.ignore_formatted,
                   "Skip already formatted directories instead of failing");
  format->add_flag("-s,--standalone", fo.standalone,
                   "Initialize this node as a single-node dynamic quorum (kraft.version 1)");
  format->add_option("-S,--add-scram", fo.add_scram,
                     "A SCRAM credential, e.g. SCRAM-SHA-512=[name=admin,password=secret] "
                     "(repeatable)");

  seglog::ServeOptions svo;
  std::vector<std::string> serve_overrides;
  auto* serve_broker = app.add_subcommand(
      "serve", "Run the broker: Kafka's wire protocol on the configured listeners, until SIGTERM");
  node_options(serve_broker, &svo.node);
  serve_broker->add_option("--override", serve_overrides,
                           "A server.properties setting, key=value (repeatable)");

  CLI11_PARSE(app, argc, argv);

  if (!log_level.empty()) {
    std::string upper = log_level;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const std::optional<seglog::LogLevel> level = seglog::ParseLogLevel(upper);
    if (!level) {
      std::cerr << "seglog: --log-level " << log_level << ": not one of " << seglog::kValidLogLevels
                << ", OFF\n";
      return 1;
    }
    (void)seglog::LoggerRegistry::Global().SetLevel(seglog::LoggerRegistry::kRoot, *level);
  }
  // The progress line of the subcommand that runs (quiet unless wanted).
  const char* progress_label = *dump      ? "dump-log"
                               : *check   ? "check"
                               : *recover ? "recover"
                               : *clean   ? "clean"
                                          : "";
  seglog::ProgressReporter::Options progress_options;
  progress_options.label = progress_label;
  progress_options.enabled =
      *progress_label != '\0' && seglog::ProgressWanted(progress_mode, /*streams_stdout=*/!*check);
  seglog::ProgressReporter progress(std::move(progress_options));
  dump_options.progress = ko.progress = ro.progress = clo.progress = progress.Callback();

  seglog::Status s;
  if (*dump) {
    s = seglog::DumpFiles(files, dump_options, std::cout, std::cerr);
    progress.Finish();
    if (!s.ok()) {
      // As DumpLogSegments does when it fails: the error's message alone (for a failed sanity
      // check, the text of Kafka's CorruptIndexException), then exit status 1.
      std::cout.flush();
      std::cerr << s.message() << "\n";
      return 1;
    }
  } else if (*format) {
    s = seglog::FormatStorage(fo, std::cout);
  } else if (*serve_broker) {
    for (const std::string& kv : serve_overrides) {
      if (!SplitConfig(kv, &svo.node.overrides)) {
        std::cerr << "seglog: --override takes key=value, not '" << kv << "'\n"
                  << serve_broker->help();
        return 2;
      }
    }
    static std::atomic<bool> stop_serving{false};
    std::signal(SIGTERM, [](int) { stop_serving = true; });
    std::signal(SIGINT, [](int) { stop_serving = true; });
    s = seglog::Serve(svo, stop_serving, std::cout);
  } else if (*walk) {
    s = seglog::RunWalkthrough(log_dir, std::cout);
  } else if (*produce) {
    for (const std::string& kv : produce_configs) {
      if (!SplitConfig(kv, &po.configs)) {
        std::cerr << "seglog: --config takes key=value, not '" << kv << "'\n" << produce->help();
        return 2;
      }
    }
    if (partition >= 0) po.partition = partition;
    if (value_char.size() != 1) {
      std::cerr << "seglog: --value-char takes one character\n";
      return 2;
    }
    po.value_char = value_char[0];
    auto codec = seglog::ParseCompressionName(compression);
    if (!codec.ok()) {
      std::cerr << "seglog: " << codec.status().message() << "\n";
      return 2;
    }
    po.compression = *codec;
    po.progress = [](const std::string& line) { std::cerr << line << "\n"; };
    auto r = seglog::Produce(po, std::cin);
    if (r.ok()) {
      std::cout << "sent " << r->records << " records to " << po.topic << "\n";
    }
    s = r.status();
  } else if (*consume) {
    s = seglog::Consume(co, std::cout, &std::cerr).status();
  } else if (*offsets) {
    s = seglog::GetOffsets(go, std::cout);
  } else if (*topics) {
    const int n = t_create + t_describe + t_alter + t_delete + t_list;
    to.action = n != 1       ? ""
                : t_create   ? "create"
                : t_describe ? "describe"
                : t_alter    ? "alter"
                : t_delete   ? "delete"
                             : "list";
    for (const std::string& kv : topic_configs) {
      if (!SplitConfig(kv, &to.configs)) {
        std::cerr << "seglog: --config takes key=value, not '" << kv << "'\n";
        return 2;
      }
    }
    s = seglog::Topics(to, std::cout);
  } else if (*configs) {
    if (c_describe == cfo.alter) {
      std::cerr << "seglog: give exactly one of --describe and --alter\n";
      return 2;
    }
    for (const std::string& kv : add_configs) {
      if (!SplitConfig(kv, &cfo.add)) {
        std::cerr << "seglog: --add-config takes key=value, not '" << kv << "'\n";
        return 2;
      }
    }
    s = seglog::Configs(cfo, std::cout);
  } else if (*delete_records) {
    s = seglog::DeleteRecordsCommand(dro, std::cout);
  } else if (*clean) {
    s = seglog::Clean(clo, std::cout);
  } else if (*run_tasks) {
    s = seglog::RunTasks(rto, task_names, std::cout);
  } else if (*serve) {
    static std::atomic<bool> stop{false};
    std::signal(SIGTERM, [](int) { stop = true; });
    std::signal(SIGINT, [](int) { stop = true; });
    s = seglog::ServeStorage(sso, stop, std::cout);
  } else if (*recover) {
    s = seglog::RecoverLogDir(ro, std::cout).status();
  } else if (*check) {
    auto problems = seglog::CheckLogDir(ko, std::cout);
    progress.Finish();
    if (problems.ok() && *problems > 0) return 1;
    s = problems.status();
  }
  progress.Finish();
  if (!s.ok()) {
    std::cerr << "seglog: " << s.ToString() << "\n";
    return 1;
  }
  return 0;
}
