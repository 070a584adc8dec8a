#include "server/response_buffer.h"

#include <gtest/gtest.h>

#include "io/file.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

std::vector<uint8_t> Bytes(const std::string& s) {
  return std::vector<uint8_t>(s.begin(), s.end());
}

TEST(ResponseBufferTest, BytesAndRegionsInOrder) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/f";
  auto file = File::Open(path, File::Mode::kCreate);
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE((*file)->WriteAt(0, Bytes("0123456789")).ok());
  std::shared_ptr<const File> shared = std::move(*file);

  ResponseBuffer b;
  EXPECT_TRUE(b.empty());
  b.Append(std::span<const uint8_t>(Bytes("ab")));
  b.Append(Bytes("cd"));  // small: merged into the previous bytes chunk
  b.AppendFileSlice({shared, 2, 3});
  b.AppendFileSlice({shared, 0, 0});  // empty: nothing
  std::vector<uint8_t> big(1000, 'x');
  const uint8_t* big_data = big.data();
  b.Append(std::move(big));  // large: its own chunk, not copied
  EXPECT_EQ(b.size(), 4 + 3 + 1000);
  ASSERT_EQ(b.chunks().size(), 3u);
  EXPECT_EQ(std::get<std::vector<uint8_t>>(b.chunks()[0]), Bytes("abcd"));
  EXPECT_EQ(std::get<FileSlice>(b.chunks()[1]).position, 2);
  EXPECT_EQ(std::get<std::vector<uint8_t>>(b.chunks()[2]).data(), big_data);
  std::vector<uint8_t> want = Bytes("abcd234");
  want.insert(want.end(), 1000, 'x');
  EXPECT_EQ(b.Flatten(), want);

  ResponseBuffer moved = std::move(b);
  EXPECT_EQ(moved.size(), 1007);
}

TEST(ResponseBufferDeathTest, BadRegionIsAProgrammingError) {
  ResponseBuffer b;
  EXPECT_DEATH(b.AppendFileSlice({nullptr, 0, 1}), "bad FileSlice");
}

}  // namespace
}  // namespace seglog
