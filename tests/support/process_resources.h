// What this process holds, for tests that check that nothing leaks: open file descriptors and
// memory mappings (from /proc/self).
// Thread safety: thread-safe (the counts are snapshots).
#ifndef SEGLOG_TESTS_SUPPORT_PROCESS_RESOURCES_H_
#define SEGLOG_TESTS_SUPPORT_PROCESS_RESOURCES_H_

#include <string>

namespace seglog::testing {

// Descriptors this process holds (entries of /proc/self/fd).
int CountOpenFileDescriptors();

// Memory mappings of files whose path starts with `dir` (lines of /proc/self/maps).
int CountMappingsUnder(const std::string& dir);

}  // namespace seglog::testing

#endif  // SEGLOG_TESTS_SUPPORT_PROCESS_RESOURCES_H_
