// Prints the sample of every message at every version (protocol/generated/message_samples.h)
// as "<schema name> <version> <seed> <hex>" lines, for Kafka's own classes to decode and
// encode again (interop/kafka/src/ProtocolSamples.java).
//
//   protocol_samples_dump                  the lines, on stdout
//   protocol_samples_dump --corpus DIR     each request sample as a file of request_fuzzer's
//                                          input: int16 api key, int16 version, body
#include <cstdio>
#include <string>
#include <vector>

#include "protocol/generated/message_samples.h"

int main(int argc, char** argv) {
  using seglog::protocol::testing::AllMessageCases;
  const std::string corpus = argc == 3 && std::string(argv[1]) == "--corpus" ? argv[2] : "";
  for (const auto& c : AllMessageCases()) {
    for (int16_t v = c.lowest_version; v <= c.highest_version; ++v) {
      // Header v0 is seglog's own extension (Kafka 4.x's RequestHeader starts at v1).
      if (c.name == "RequestHeader" && v == 0) continue;
      for (uint32_t seed : {1u, 2u, 3u, 4u}) {
        std::vector<uint8_t> bytes;
        seglog::Status s = c.encode_sample(v, seed, &bytes);
        if (!s.ok()) {
          std::fprintf(stderr, "%.*s v%d: %s\n", static_cast<int>(c.name.size()), c.name.data(), v,
                       s.ToString().c_str());
          return 1;
        }
        if (!corpus.empty()) {
          if (!c.is_request || c.api_key < 0) continue;
          const std::string path = corpus + "/" + std::string(c.name) + "-v" + std::to_string(v) +
                                   "-" + std::to_string(seed);
          FILE* f = std::fopen(path.c_str(), "wb");
          if (f == nullptr) return 1;
          const uint8_t prefix[4] = {static_cast<uint8_t>(c.api_key >> 8),
                                     static_cast<uint8_t>(c.api_key), static_cast<uint8_t>(v >> 8),
                                     static_cast<uint8_t>(v)};
          std::fwrite(prefix, 1, 4, f);
          std::fwrite(bytes.data(), 1, bytes.size(), f);
          std::fclose(f);
          continue;
        }
        std::printf("%.*s %d %u ", static_cast<int>(c.name.size()), c.name.data(), v, seed);
        for (uint8_t b : bytes) std::printf("%02x", b);
        std::printf("\n");
      }
    }
  }
  return 0;
}
