#include "tools/walkthrough.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

namespace seglog {
namespace {

// Example 1 of seed 000: ten 250-byte records per batch give 2,731-byte batches, the first
// index entries 29 -> 5462 and 49 -> 10924, and the lookups the seed prints.
TEST(WalkthroughTest, ReproducesSeedExampleOneNumbers) {
  const auto dir = std::filesystem::temp_directory_path() / "seglog_walkthrough_test";
  std::filesystem::remove_all(dir);
  std::ostringstream out;
  Status s = RunWalkthrough(dir.string(), out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const std::string text = out.str();
  for (const char* line : {
           "position: 2731 ",
           "offset: 29 position: 5462\n",
           "offset: 49 position: 10924\n",
           "target 35 -> index says (offset 29, position 5462) -> batch at position 8193 "
           "(baseOffset 30, size 2731)",
           "target 3829 -> index says (offset 3829, position 1043242) -> batch at position "
           "1043242 (baseOffset 3820, size 2731)",
           "read 12000 records, every batch CRC valid",
       }) {
    EXPECT_NE(text.find(line), std::string::npos) << "missing: " << line << "\n" << text;
  }
  EXPECT_EQ(std::filesystem::file_size(dir / "walkthrough-0" / "00000000000000000000.log"),
            1200u * 2731u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace seglog
