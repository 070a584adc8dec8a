// ProcessCollector; see process_metrics.h.
#include "metrics/process_metrics.h"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

namespace seglog {

namespace {

std::string ReadProc(const char* path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

double OpenFds() {
  DIR* d = opendir("/proc/self/fd");
  if (d == nullptr) return -1;
  double n = 0;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] != '.') ++n;
  }
  closedir(d);
  return n - 1;  // the directory's own descriptor
}

}  // namespace

double ProcField(const std::string& text, const std::string& key) {
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    if (text.compare(at, key.size(), key) == 0) {
      const std::string rest = text.substr(at + key.size(), end - at - key.size());
      char* stop = nullptr;
      const double v = std::strtod(rest.c_str(), &stop);
      return stop == rest.c_str() ? -1 : v;
    }
    at = end + 1;
  }
  return -1;
}

BrokerMetrics::Collector ProcessCollector() {
  return [] {
    using Samples = std::vector<std::pair<std::map<std::string, std::string>, double>>;
    std::vector<prometheus::MetricFamily> out;
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    const double cpu = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                       static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    out.push_back(CounterFamily("process_cpu_seconds_total", "User and system CPU time, seconds",
                                Samples{{{}, cpu}}));
    out.push_back(GaugeFamily("process_open_fds", "Open file descriptors", {{{}, OpenFds()}}));
    rlimit rl{};
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
      out.push_back(GaugeFamily("process_max_fds", "Maximum file descriptors",
                                {{{}, static_cast<double>(rl.rlim_cur)}}));
    }
    const std::string status = ReadProc("/proc/self/status");
    const double rss_kib = ProcField(status, "VmRSS:");
    const double vm_kib = ProcField(status, "VmSize:");
    if (rss_kib >= 0) {
      out.push_back(GaugeFamily("process_resident_memory_bytes", "Resident memory, bytes",
                                {{{}, rss_kib * 1024}}));
    }
    if (vm_kib >= 0) {
      out.push_back(GaugeFamily("process_virtual_memory_bytes", "Virtual memory, bytes",
                                {{{}, vm_kib * 1024}}));
    }
    // Field 22 of /proc/self/stat: start time in clock ticks after boot.
    const std::string stat = ReadProc("/proc/self/stat");
    const size_t paren = stat.rfind(')');
    const std::string uptime = ReadProc("/proc/uptime");
    if (paren != std::string::npos && !uptime.empty()) {
      std::istringstream fields(stat.substr(paren + 2));
      std::string f;
      // Fields after the name start at field 3 (state); field 22 is the 20th of them.
      for (int i = 3; i <= 22 && (fields >> f); ++i) {
      }
      const double ticks = std::strtod(f.c_str(), nullptr);
      const double since_boot = std::strtod(uptime.c_str(), nullptr);
      const double now = static_cast<double>(time(nullptr));
      const double start = now - since_boot + ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
      out.push_back(GaugeFamily("process_start_time_seconds", "Start time, seconds since the epoch",
                                {{{}, start}}));
    }
    const std::string io = ReadProc("/proc/self/io");
    const double read = ProcField(io, "read_bytes:");
    const double write = ProcField(io, "write_bytes:");
    if (read >= 0 && write >= 0) {
      out.push_back(GaugeFamily("kafka_server_kafkaserver_linux_disk_read_bytes",
                                "Bytes read from disk (linux-disk-read-bytes)", {{{}, read}}));
      out.push_back(GaugeFamily("kafka_server_kafkaserver_linux_disk_write_bytes",
                                "Bytes written to disk (linux-disk-write-bytes)", {{{}, write}}));
    }
    return out;
  };
}

}  // namespace seglog
