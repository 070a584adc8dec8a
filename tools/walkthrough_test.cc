#include "tools/walkthrough.h"

#include <gtest/gtest.h>

#include <sstream>

#include "tests/support/files.h"

namespace seglog {
namespace {

// The walkthrough is seed 000's Example 1: its output must carry the seed's numbers.
TEST(WalkthroughTest, ReproducesSeedExampleOneNumbers) {
  testing::TempDir tmp;
  std::ostringstream out;
  Status s = RunWalkthrough(tmp.path(), out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const std::string text = out.str();
  for (const char* line : {
           "   1045973 00000000000000000000.log\n",
           "   1045973 00000000000000003830.log\n",
           "   1045973 00000000000000007660.log\n",
           "    139281 00000000000000011490.log\n",
           "      1528 00000000000000000000.index\n",
           "      2292 00000000000000000000.timeindex\n",
           "  10485760 00000000000000011490.index\n",
           "  10485756 00000000000000011490.timeindex\n",
           "       200 00000000000000011490.index\n",
           "       300 00000000000000011490.timeindex\n",
           "position: 2731 ",
           "offset: 29 position: 5462\n",
           "offset: 49 position: 10924\n",
           "offset: 69 position: 16386\n",
           "target 35 -> segment 0, batch at position 8193 (baseOffset 30, size 2731)",
           "target 3829 -> segment 0, batch at position 1043242 (baseOffset 3820, size 2731)",
           "target 5000 -> segment 3830,",
           "t0 + 5000 ms: offset 5000\n",
           "max-timestamp: offset 11999\n",
           "Offset:11999\tk-011999\tvvvvvvvvvv...",
           // The traced lookups (console/lookup_trace.h) end where the log's own do.
           "floor segment: 3830 (the largest base offset <= 5000 of 0, 3830, 7660, 11490)\n",
           "  binary search of 00000000000000003830.index (",
           "found: offset 5000 in segment 3830, batch at position ",
           "segment 3830: largest timestamp t0 + 7659 ms: the first >= target\n",
           "  binary search of 00000000000000003830.timeindex (",
           "found: offset 5000 (t0 + 5000 ms)\n",
       }) {
    EXPECT_NE(text.find(line), std::string::npos) << "missing: " << line << "\n" << text;
  }
  // The traced offset lookup finds the batch the log's lookup printed.
  const size_t at = text.find("target 5000 -> segment 3830, batch at position ");
  ASSERT_NE(at, std::string::npos);
  const std::string position = text.substr(at + 47, text.find(' ', at + 47) - (at + 47));
  EXPECT_NE(text.find("found: offset 5000 in segment 3830, batch at position " + position + "\n"),
            std::string::npos)
      << position;
  // Running it again replaces the partition with a fresh run.
  std::ostringstream again;
  ASSERT_TRUE(RunWalkthrough(tmp.path(), again).ok());
}

}  // namespace
}  // namespace seglog
