#include "seglog/status.h"

#include <gtest/gtest.h>

#include <string>

#include "seglog/result.h"

namespace seglog {
namespace {

TEST(StatusTest, OkAndErrors) {
  EXPECT_TRUE(Status::OK().ok());
  EXPECT_EQ(Status::OK().ToString(), "OK");
  Status c = Status::Corruption("crc mismatch");
  EXPECT_FALSE(c.ok());
  EXPECT_TRUE(c.IsCorruption());
  EXPECT_EQ(c.ToString(), "Corruption: crc mismatch");
  EXPECT_EQ(c.WithContext("file 0.log").ToString(), "Corruption: file 0.log: crc mismatch");
  EXPECT_TRUE(Status::OK().WithContext("x").ok());
  EXPECT_TRUE(Status::IOError("x").IsIOError());
  EXPECT_TRUE(Status::OutOfRange("x").IsOutOfRange());
  EXPECT_EQ(Status::NotFound("x").code(), Status::Code::kNotFound);
}

TEST(StatusTest, RecordErrorsTravelWithTheStatus) {
  Status s = Status::InvalidArgument("InvalidRecordException: two bad records")
                 .WithRecordErrors({{0, "no key"}, {2, "no key"}});
  ASSERT_EQ(s.record_errors().size(), 2u);
  EXPECT_EQ(s.record_errors()[1], (Status::RecordError{2, "no key"}));
  const Status wrapped = s.WithContext("t-0");
  EXPECT_EQ(wrapped.record_errors(), s.record_errors());
  EXPECT_EQ(wrapped.ToString(), "InvalidArgument: t-0: InvalidRecordException: two bad records");
  EXPECT_TRUE(Status::OK().record_errors().empty());
  EXPECT_TRUE(Status::OK().WithRecordErrors({{0, "x"}}).ok());
  EXPECT_TRUE(Status::Corruption("x").record_errors().empty());
}

Result<int> Half(int x) {
  if (x % 2 != 0) return Status::InvalidArgument("odd");
  return x / 2;
}

Result<int> Quarter(int x) {
  SEGLOG_ASSIGN_OR_RETURN(int h, Half(x));
  SEGLOG_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

TEST(ResultTest, ValueAndErrorPropagation) {
  auto r = Quarter(8);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 2);
  auto bad = Quarter(6);
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().IsInvalidArgument());
  Result<std::string> s = std::string("abc");
  EXPECT_EQ(s->size(), 3u);
}

TEST(ResultDeathTest, ValueOnErrorAborts) {
  Result<int> r = Status::NotFound("gone");
  EXPECT_DEATH((void)r.value(), "gone");
}

}  // namespace
}  // namespace seglog
