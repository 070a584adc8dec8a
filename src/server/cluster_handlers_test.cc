// ApiVersions (cluster_handlers.cc, from the served-API table): the versions advertised.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "protocol/generated/api_messages.h"
#include "protocol/kafka_error.h"
#include "protocol/protocol_writer.h"
#include "server/expect_encodes.h"
#include "server/generated/broker_config_defs.h"
#include "server/handlers.h"
#include "server/handlers_test_base.h"
#include "tests/support/batches.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::ProducerBatch;
using testing::TempDir;
namespace ke = kafka_error;
namespace p = protocol;

class ClusterHandlersTest : public HandlersTest {};

TEST_F(ClusterHandlersTest, TheNewApisAreServedAndAdvertised) {
  auto resp = HandleApiVersions(ctx_, p::ApiVersionsRequestData{}, 0);
  std::map<int16_t, std::pair<int16_t, int16_t>> got;
  for (const auto& v : resp.api_keys) got[v.api_key] = {v.min_version, v.max_version};
  EXPECT_EQ(got[37], (std::pair<int16_t, int16_t>(0, 3)));
  EXPECT_EQ(got[21], (std::pair<int16_t, int16_t>(0, 2)));
  EXPECT_EQ(got[32], (std::pair<int16_t, int16_t>(1, 4)));
  EXPECT_EQ(got[33], (std::pair<int16_t, int16_t>(0, 2)));
  EXPECT_EQ(got[44], (std::pair<int16_t, int16_t>(0, 1)));
  EXPECT_EQ(got[35], (std::pair<int16_t, int16_t>(1, 5)));
  EXPECT_EQ(got[75], (std::pair<int16_t, int16_t>(0, 0)));
  EXPECT_EQ(got[23], (std::pair<int16_t, int16_t>(2, 4)));
}

}  // namespace
}  // namespace seglog
