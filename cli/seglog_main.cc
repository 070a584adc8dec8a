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
  dump->add_option("--files", files, "Comma-separated .log files")->required()->delimiter(',');
  dump->add_flag("--deep-iteration", dump_options.deep_iteration, "One line per record");
  dump->add_flag("--print-data-log", dump_options.print_data_log, "Print keys and values");

  std::string log_dir = "./data";
  auto* walk = app.add_subcommand("walkthrough", "Example 1 of the seeds, step by step");
  walk->add_option("--log-dir", log_dir, "Log directory")->capture_default_str();

  CLI11_PARSE(app, argc, argv);

  seglog::Status s;
  if (*dump) {
    for (const std::string& f : files) {
      s = seglog::DumpLogFile(f, dump_options, std::cout, std::cerr);
      if (!s.ok()) break;
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
