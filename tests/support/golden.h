// The golden batches committed under tests/data/golden/ (written by real Kafka): what Kafka
// says each holds, and comparing decoded bytes with it.
// Thread safety: thread-safe (the manifest is parsed once, on first use).
#ifndef SEGLOG_TESTS_SUPPORT_GOLDEN_H_
#define SEGLOG_TESTS_SUPPORT_GOLDEN_H_

#include <nlohmann/json.hpp>
#include <string>

#include "seglog/record_batch.h"

namespace seglog::testing {

// tests/data/golden/manifest.json, parsed once.
const nlohmann::json& GoldenManifest();

// GoogleTest expectations: a decoded key or value equals the manifest's base64 string (or is
// null when that is null). `what` names it in failures.
void ExpectBytesEq(const NullableBytes& got, const nlohmann::json& want, const std::string& what);

}  // namespace seglog::testing

#endif  // SEGLOG_TESTS_SUPPORT_GOLDEN_H_
