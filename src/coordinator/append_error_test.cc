// Tests for the two mappings of append errors to what a coordinator's client is told.
#include "coordinator/append_error.h"

#include <gtest/gtest.h>

#include "protocol/kafka_error.h"

namespace seglog {
namespace {

namespace ke = kafka_error;

TEST(AppendErrorTest, TheGroupCoordinatorMapsAsKafkasRuntime) {
  // The log's own errors, as LogManager and Log report them.
  EXPECT_EQ(GroupCoordinatorAppendError(Status::NotFound("UnknownTopicOrPartitionException: x")),
            ke::kCoordinatorNotAvailable);
  EXPECT_EQ(GroupCoordinatorAppendError(Status::IOError("disk")), ke::kNotCoordinator);
  EXPECT_EQ(
      GroupCoordinatorAppendError(Status::InvalidArgument("NotLeaderOrFollowerException: moving")),
      ke::kNotCoordinator);
  EXPECT_EQ(GroupCoordinatorAppendError(Status::InvalidArgument("RecordTooLargeException: big")),
            ke::kUnknownServerError);
  EXPECT_EQ(
      GroupCoordinatorAppendError(Status::InvalidArgument("RecordBatchTooLargeException: big")),
      ke::kUnknownServerError);
  // Anything else is passed on as its own code.
  EXPECT_EQ(GroupCoordinatorAppendError(Status::InvalidArgument("CorruptRecordException: crc")),
            ke::kCorruptMessage);
  EXPECT_EQ(GroupCoordinatorAppendError(Status::OK()), ke::kUnknownServerError);
}

TEST(AppendErrorTest, TheTransactionCoordinatorMapsAsTransactionStateManager) {
  EXPECT_EQ(
      TransactionCoordinatorAppendError(Status::NotFound("UnknownTopicOrPartitionException: x")),
      ke::kCoordinatorNotAvailable);
  EXPECT_EQ(TransactionCoordinatorAppendError(Status::IOError("disk")), ke::kNotCoordinator);
  EXPECT_EQ(TransactionCoordinatorAppendError(
                Status::InvalidArgument("NotLeaderOrFollowerException: moving")),
            ke::kNotCoordinator);
  EXPECT_EQ(
      TransactionCoordinatorAppendError(Status::InvalidArgument("RecordTooLargeException: big")),
      ke::kUnknownServerError);
  // Anything else: retry later.
  EXPECT_EQ(
      TransactionCoordinatorAppendError(Status::InvalidArgument("CorruptRecordException: crc")),
      ke::kCoordinatorNotAvailable);
}

}  // namespace
}  // namespace seglog
