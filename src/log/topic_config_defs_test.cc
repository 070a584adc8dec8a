// Tests for the topic config table: Kafka's default of every config seglog keeps is what a
// fresh LogConfig runs with, every name is Kafka's and unique, and the synonyms are well formed.
#include "log/topic_config_defs.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace seglog {
namespace {

TEST(TopicConfigDefsTest, KafkasDefaultIsWhatAFreshLogConfigRunsWith) {
  const LogConfig defaults;
  int kept = 0;
  for (const TopicConfigDef& def : TopicConfigDefs()) {
    if (!def.set || def.default_value == nullptr) continue;
    ++kept;
    LogConfig c;
    Status s = def.set(&c, def.default_value);
    ASSERT_TRUE(s.ok()) << def.name << ": " << s.ToString();
    EXPECT_EQ(def.get(c), def.get(defaults)) << def.name;
  }
  EXPECT_GE(kept, 27);
}

TEST(TopicConfigDefsTest, NamesAreUniqueAndLookedUp) {
  std::set<std::string> names;
  for (const TopicConfigDef& def : TopicConfigDefs()) {
    EXPECT_TRUE(names.insert(def.name).second) << def.name;
    EXPECT_EQ(FindTopicConfigDef(def.name), &def);
    EXPECT_EQ(def.get == nullptr, def.set == nullptr) << def.name;
    for (const TopicConfigSynonym& s : def.synonyms) EXPECT_NE(std::string(s.name), "") << def.name;
    EXPECT_EQ(def.internal, def.default_value == nullptr) << def.name;
  }
  EXPECT_EQ(FindTopicConfigDef("no.such.config"), nullptr);
  // Every config LogConfig accepts is in the table, and nothing else.
  EXPECT_TRUE(LogConfig::IsKnownName("segment.bytes"));
  EXPECT_TRUE(LogConfig::IsKnownName("internal.segment.bytes"));
  EXPECT_FALSE(LogConfig::IsKnownName("min.insync.replicas"));  // described, not kept
  EXPECT_FALSE(LogConfig::IsKnownName("no.such.config"));
}

}  // namespace
}  // namespace seglog
