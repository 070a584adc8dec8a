#include "metrics/process_metrics.h"

#include <gtest/gtest.h>

namespace seglog {
namespace {

TEST(ProcField, FindsTheKeyedLine) {
  const std::string io = "rchar: 10\nwchar: 20\nread_bytes: 4096\nwrite_bytes: 8192\n";
  EXPECT_EQ(ProcField(io, "read_bytes:"), 4096);
  EXPECT_EQ(ProcField(io, "write_bytes:"), 8192);
  EXPECT_EQ(ProcField(io, "cancelled_write_bytes:"), -1);
  EXPECT_EQ(ProcField("VmRSS:\t  1234 kB", "VmRSS:"), 1234);
  EXPECT_EQ(ProcField("VmRSS: none", "VmRSS:"), -1);
  EXPECT_EQ(ProcField("", "VmRSS:"), -1);
  // A key only matches at the start of a line.
  EXPECT_EQ(ProcField("xread_bytes: 5\n", "read_bytes:"), -1);
}

TEST(ProcessCollector, ReportsThisProcess) {
  std::map<std::string, double> got;
  for (const auto& f : ProcessCollector()()) {
    ASSERT_EQ(f.metric.size(), 1u) << f.name;
    const auto& m = f.metric[0];
    got[f.name] = f.type == prometheus::MetricType::Counter ? m.counter.value : m.gauge.value;
  }
  ASSERT_TRUE(got.count("process_resident_memory_bytes"));
  EXPECT_GT(got["process_resident_memory_bytes"], 1 << 20);
  EXPECT_GE(got["process_open_fds"], 3);  // stdin, stdout, stderr at least
  EXPECT_GT(got["process_cpu_seconds_total"], 0);
  const double now = static_cast<double>(time(nullptr));
  EXPECT_LE(got["process_start_time_seconds"], now + 1);
  EXPECT_GT(got["process_start_time_seconds"], now - 3600);  // this test started lately
}

}  // namespace
}  // namespace seglog
