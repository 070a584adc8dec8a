// Test helper: a handler's response must encode at every version its API serves.
//
// Thread safety: a test assertion; call it from the test's thread.
#ifndef SEGLOG_SERVER_EXPECT_ENCODES_H_
#define SEGLOG_SERVER_EXPECT_ENCODES_H_

#include <gtest/gtest.h>

#include "protocol/generated/api_messages.h"
#include "protocol/protocol_writer.h"
#include "server/handlers.h"

namespace seglog::testing {

// Encodes `resp` at every version the API `key` serves (ServedApis()).
template <typename Resp>
void ExpectEncodes(const Resp& resp, protocol::ApiKey key) {
  const ServedVersions* served = FindServedApi(static_cast<int16_t>(key));
  ASSERT_NE(served, nullptr);
  for (int16_t v = served->min_version; v <= served->max_version; ++v) {
    protocol::ProtocolWriter w;
    Status s = resp.Encode(&w, v);
    EXPECT_TRUE(s.ok()) << "v" << v << ": " << s.ToString();
  }
}

}  // namespace seglog::testing

#endif  // SEGLOG_SERVER_EXPECT_ENCODES_H_
