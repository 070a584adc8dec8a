// Requests exactly as real clients write them (tests/data/protocol/client_requests/*.txt,
// captured through a proxy by tests/clients/capture_requests.py: librdkafka 2.16 through
// confluent-kafka, Kafka 4.4.0's Java clients and tools, franz-go): each decodes with seglog's
// generated messages and encodes again to the same bytes. Bytes after a request's fields (as
// librdkafka 2.16's Metadata v13 carries) are allowed, as Kafka's broker allows them: the
// fields before them must then round-trip.
//
// SEGLOG_CLIENT_REQUESTS_DIR points the test at another capture (clients.client_request_frames
// runs it over the frames the installed clients wrote a moment before).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "protocol/generated/api_messages.h"
#include "protocol/generated/request_header.h"
#include "protocol/protocol_reader.h"
#include "tests/support/source_path.h"

namespace seglog::protocol {
namespace {

std::vector<uint8_t> FromHex(const std::string& hex) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

std::string Dir() {
  const char* env = std::getenv("SEGLOG_CLIENT_REQUESTS_DIR");
  return env ? env : seglog::testing::SourcePath("tests/data/protocol/client_requests");
}

TEST(ClientRequestsTest, EveryCapturedRequestRoundTrips) {
  const std::string dir = Dir();
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir;
  std::set<std::string> files;
  int frames = 0, with_trailing_bytes = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".txt") continue;
    files.insert(entry.path().stem().string());
    std::ifstream in(entry.path());
    std::string line;
    int in_file = 0;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream fields(line);
      int api = 0, version = 0;
      std::string hex;
      ASSERT_TRUE(fields >> api >> version >> hex) << line.substr(0, 80);
      SCOPED_TRACE(entry.path().filename().string() + ": api " + std::to_string(api) + " v" +
                   std::to_string(version));
      const std::vector<uint8_t> frame = FromHex(hex);
      ASSERT_NE(FindApi(static_cast<int16_t>(api)), nullptr);
      ProtocolReader reader(frame);
      RequestHeaderData header;
      ASSERT_TRUE(header
                      .Decode(&reader, RequestHeaderVersion(static_cast<int16_t>(api),
                                                            static_cast<int16_t>(version)))
                      .ok());
      EXPECT_EQ(header.request_api_key, api);
      std::span<const uint8_t> body(frame.data() + reader.position(), reader.remaining());
      std::vector<uint8_t> encoded;
      Status s = RoundTripRequest(static_cast<int16_t>(api), static_cast<int16_t>(version), body,
                                  &encoded);
      size_t trailing = 0;
      // Bytes after the fields: the shortest prefix that decodes must be the fields.
      while (!s.ok() && trailing < 64 && trailing < body.size()) {
        ++trailing;
        s = RoundTripRequest(static_cast<int16_t>(api), static_cast<int16_t>(version),
                             body.first(body.size() - trailing), &encoded);
      }
      ASSERT_TRUE(s.ok()) << s.ToString();
      const std::span<const uint8_t> fields_part = body.first(body.size() - trailing);
      EXPECT_TRUE(std::equal(encoded.begin(), encoded.end(), fields_part.begin(),
                             fields_part.end()))
          << "re-encoded differently";
      if (trailing > 0) ++with_trailing_bytes;
      ++frames;
      ++in_file;
    }
    EXPECT_GT(in_file, 0) << entry.path();
  }
  if (std::getenv("SEGLOG_CLIENT_REQUESTS_DIR") == nullptr) {
    for (const char* client : {"librdkafka-2.16.0", "java-4.4.0", "franz-go-1.22.3"}) {
      EXPECT_TRUE(files.count(client)) << "no capture of " << client;
    }
  }
  std::cout << frames << " captured requests round-tripped (" << with_trailing_bytes
            << " with bytes after their fields) from " << files.size() << " clients\n";
  EXPECT_GT(frames, 0);
}

}  // namespace
}  // namespace seglog::protocol
