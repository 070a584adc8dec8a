// seglog format: kafka-storage's options and messages, and a directory LogManager and the
// metadata log open.
#include "tools/format.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/scheduler.h"
#include "io/atomic_file.h"
#include "manager/log_manager.h"
#include "metadata/metadata_log.h"
#include "metadata/snapshot_file.h"
#include "security/scram.h"
#include "tests/support/files.h"

namespace seglog {
namespace {

using testing::TempDir;

class FormatTest : public ::testing::Test {
 protected:
  void SetUp() override {
    a_ = tmp_.path() + "/a";
    b_ = tmp_.path() + "/b";
    config_ = tmp_.path() + "/server.properties";
    std::ofstream(config_) << "node.id=3\nlog.dirs=" << a_ << "," << b_
                           << "\nprocess.roles=broker,controller\n"
                              "controller.listener.names=CONTROLLER\n"
                              "listeners=PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093\n";
    options_.config = config_;
    options_.cluster_id = "F8QlunMdTfu7sOTpyf3b1g";
  }
  Status Run(std::string* printed = nullptr) {
    std::ostringstream out;
    Status s = FormatStorage(options_, out);
    if (printed != nullptr) *printed = out.str();
    return s;
  }
  TempDir tmp_;
  std::string a_, b_, config_;
  FormatOptions options_;
};

TEST_F(FormatTest, FormatsEveryDirectoryAndTheMetadataLogInTheFirst) {
  std::string out;
  ASSERT_TRUE(Run(&out).ok());
  EXPECT_EQ(out, "Formatting metadata directory " + a_ + " with metadata.version 4.4-IV2.\n" +
                     "Formatting data directory " + b_ + " with metadata.version 4.4-IV2.\n");
  for (const std::string& d : {a_, b_}) {
    auto meta = ParseMetaProperties(d, *ReadFileToString(d + "/meta.properties"));
    ASSERT_TRUE(meta.ok());
    EXPECT_EQ(meta->cluster_id, "F8QlunMdTfu7sOTpyf3b1g");
    EXPECT_EQ(meta->node_id, 3);
    EXPECT_EQ(meta->directory_id.size(), 22u);
  }
  EXPECT_TRUE(std::filesystem::exists(a_ + "/__cluster_metadata-0/"
                                           "00000000000000000000-0000000000.checkpoint"));
  EXPECT_FALSE(std::filesystem::exists(b_ + "/__cluster_metadata-0"));
  // A second format refuses, in kafka-storage's words; --ignore-formatted skips.
  Status again = Run();
  EXPECT_EQ(again.code(), Status::Code::kAlreadyExists);
  EXPECT_NE(again.message().find("is already formatted. Use --ignore-formatted"),
            std::string::npos);
  options_.ignore_formatted = true;
  ASSERT_TRUE(Run(&out).ok());
  EXPECT_EQ(out, "All of the log directories are already formatted.\n");
  // The node opens it with that cluster id and its features.
  auto config = LogManagerConfig::FromProperties({{"log.dirs", a_ + "," + b_}, {"node.id", "3"}});
  ASSERT_TRUE(config.ok());
  MockScheduler scheduler(1794024676000);
  auto m = LogManager::Open(*config, &scheduler);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ((*m)->cluster_id(), "F8QlunMdTfu7sOTpyf3b1g");
  ASSERT_TRUE((*m)->CreateTopic("t", 4).ok());
}

TEST_F(FormatTest, ReleaseVersionFeaturesAndStandalone) {
  options_.release_version = "3.9";
  options_.features = {"group.version=1"};
  options_.standalone = true;
  ASSERT_TRUE(Run().ok());
  auto snap = ReadSnapshot(Env::Default(), a_ + "/__cluster_metadata-0/"
                                                "00000000000000000000-0000000000.checkpoint");
  ASSERT_TRUE(snap.ok());
  MetadataImage image;
  for (const auto& r : snap->records) ASSERT_TRUE(image.ReplayValue(r).ok());
  EXPECT_EQ(image.features(),
            (std::map<std::string, int16_t>{{"metadata.version", 21}, {"group.version", 1}}));
  // --standalone: kraft.version 1 and this node as the voter, after the header.
  ASSERT_EQ(snap->control.size(), 2u);
  EXPECT_EQ(snap->control[0].type, ControlRecordType::kKRaftVersion);
  EXPECT_EQ(snap->control[1].type, ControlRecordType::kKRaftVoters);
}

TEST_F(FormatTest, AddScramPutsCredentialsInTheBootstrapSnapshot) {
  // A password, and kafka-storage's documented salted form (salt and salted password base64).
  const std::vector<uint8_t> salt = {'s', 'a', 'l', 't', 's', 'a', 'l', 't'};
  const std::vector<uint8_t> salted =
      ScramSaltedPassword(ScramMechanism::kSha256, "bob-secret", salt, 8192);
  options_.add_scram = {"SCRAM-SHA-512=[name=admin,password=\"admin-secret\"]",
                        "SCRAM-SHA-256=[name=bob,iterations=8192,salt=" + Base64Encode(salt) +
                            ",saltedpassword=" + Base64Encode(salted) + "]"};
  ASSERT_TRUE(Run().ok());
  auto config = LogManagerConfig::FromProperties({{"log.dirs", a_ + "," + b_}, {"node.id", "3"}});
  ASSERT_TRUE(config.ok());
  MockScheduler scheduler(1794024676000);
  auto m = LogManager::Open(*config, &scheduler);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  auto admin = (*m)->metadata()->ScramCredentialOf("admin", ScramMechanism::kSha512);
  ASSERT_TRUE(admin.has_value());
  EXPECT_EQ(admin->iterations, 4096);
  auto same =
      ScramCredentialFromPassword(ScramMechanism::kSha512, "admin-secret", admin->salt, 4096);
  EXPECT_EQ(admin->stored_key, same->stored_key);  // the password given, not the quotes
  auto bob = (*m)->metadata()->ScramCredentialOf("bob", ScramMechanism::kSha256);
  ASSERT_TRUE(bob.has_value());
  EXPECT_EQ(bob->salt, salt);
  EXPECT_EQ(bob->iterations, 8192);
  EXPECT_EQ(
      bob->stored_key,
      ScramCredentialFromPassword(ScramMechanism::kSha256, "bob-secret", salt, 8192)->stored_key);
  EXPECT_FALSE((*m)->metadata()->ScramCredentialOf("bob", ScramMechanism::kSha512).has_value());
}

TEST_F(FormatTest, BadInputIsRefusedWithTheReason) {
  options_.cluster_id = "not-a-uuid";
  EXPECT_NE(Run().message().find("does not appear to be a valid UUID"), std::string::npos);
  options_.cluster_id = "F8QlunMdTfu7sOTpyf3b1g";
  options_.release_version = "2.8";
  EXPECT_NE(Run().message().find("Unknown metadata.version '2.8'"), std::string::npos);
  options_.release_version.clear();
  options_.features = {"share.version=2"};
  EXPECT_NE(Run().message().find("share and streams groups are not served yet"), std::string::npos);
  options_.features = {"no.such.version=1"};
  EXPECT_NE(Run().message().find("Unsupported feature: no.such.version"), std::string::npos);
  options_.features = {"group.version"};
  EXPECT_FALSE(Run().ok());
  options_.features.clear();
  for (const auto& [arg, why] : std::vector<std::pair<std::string, std::string>>{
           {"SCRAM-SHA-1=[name=a,password=x]",
            "The add-scram mechanism SCRAM-SHA-1 is not supported."},
           {"SCRAM-SHA-256", "Failed to find equals sign"},
           {"SCRAM-SHA-256=name=a", "Expected configuration string to start with ["},
           {"SCRAM-SHA-256=[password=x]", "You must supply 'name' to add-scram"},
           {"SCRAM-SHA-256=[name=a]", "You must supply one of 'password' or 'saltedpassword'"},
           {"SCRAM-SHA-256=[name=a,saltedpassword=AAAA]", "You must supply 'salt' with"},
           {"SCRAM-SHA-256=[name=a,password=x,iterations=10]", "must be >= 4096"},
           {"SCRAM-SHA-256=[name=a,password=x,color=red]",
            "Unknown SCRAM configurations: color"}}) {
    options_.add_scram = {arg};
    EXPECT_NE(Run().message().find(why), std::string::npos) << arg << ": " << Run().message();
  }
  options_.add_scram.clear();
  // Nothing was written by any of them.
  EXPECT_FALSE(std::filesystem::exists(a_ + "/meta.properties"));
}

}  // namespace
}  // namespace seglog
