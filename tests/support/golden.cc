// Golden batches; see golden.h.
#include "tests/support/golden.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "tests/support/bytes.h"
#include "tests/support/files.h"

namespace seglog::testing {

const nlohmann::json& GoldenManifest() {
  static const nlohmann::json manifest = [] {
    std::ifstream in(SourcePath("tests/data/golden/manifest.json"));
    return nlohmann::json::parse(in);
  }();
  return manifest;
}

void ExpectBytesEq(const NullableBytes& got, const nlohmann::json& want, const std::string& what) {
  if (want.is_null()) {
    EXPECT_FALSE(got.has_value()) << what << ": expected null";
    return;
  }
  ASSERT_TRUE(got.has_value()) << what << ": expected non-null";
  auto w = Base64Decode(want.get<std::string>());
  EXPECT_TRUE(std::equal(got->begin(), got->end(), w.begin(), w.end()))
      << what << ": bytes differ (" << got->size() << " vs " << w.size() << ")";
}

}  // namespace seglog::testing
