// seglog: the command-line tool. Each subcommand only parses its arguments and calls the library
// function in tools/ that does the work.
#include <CLI/CLI.hpp>
#include <iostream>
#include <string>
#include <vector>

#include "tools/dump_log.h"
#include "tools/walkthrough.h"

int main(int argc, char** argv) {
  CLI::App app{"seglog: Kafka's partition log storage, byte-compatible with Kafka 4.x"};
  app.require_subcommand(1);

  std::vector<std::string> files;
  seglog::DumpLogOptions dump_options;
  auto* dump = app.add_subcommand("dump-log", "Print .log segments as kafka-dump-log.sh does");
  dump->add_option("--files", files, "Comma-separated .log, .index and .timeindex files")
      ->required()
      ->delimiter(',');
  dump->add_flag("--deep-iteration", dump_options.deep_iteration, "One line per record");
  dump->add_flag("--print-data-log", dump_options.print_data_log, "Print keys and values");
  dump->add_flag("--verify-index-only", dump_options.verify_index_only,
                 "Check index entries against the log, printing only the mismatches");
  dump->add_flag("--index-sanity-check", dump_options.index_sanity_check,
                 "Only run the index sanity check that the broker runs at startup");
  dump->add_option("--max-message-size", dump_options.max_message_size,
                   "Bytes of the log read at each offset index entry")
      ->capture_default_str();
  dump->add_option("--max-bytes", dump_options.max_bytes, "Only read this many bytes of each .log")
      ->capture_default_str();

  std::string log_dir = "./data";
  auto* walk = app.add_subcommand("walkthrough", "Example 1 of the seeds, step by step");
  walk->add_option("--log-dir", log_dir, "Log directory")->capture_default_str();

  CLI11_PARSE(app, argc, argv);

  seglog::Status s;
  if (*dump) {
    s = seglog::DumpFiles(files, dump_options, std::cout, std::cerr);
    if (!s.ok()) {
      // As DumpLogSegments does when it fails: the error's message alone (for a failed sanity
      // check, the text of Kafka's CorruptIndexException), then exit status 1.
      std::cout.flush();
      std::cerr << s.message() << "\n";
      return 1;
    }
  } else if (*walk) {
    s = seglog::RunWalkthrough(log_dir, std::cout);
  }
  if (!s.ok()) {
    std::cerr << "seglog: " << s.ToString() << "\n";
    return 1;
  }
  return 0;
}
