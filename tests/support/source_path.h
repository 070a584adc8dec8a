// Where the source tree is, for tests that read its data files (tests/data/...).
//
// The path is compiled into one generated file (source_path.cc.in) instead of every test's
// command line, so a compiler cache serves a clone of the tree in another folder from the
// same cache: only that one file differs between two clones.
//
// Thread safety: a pure function, safe from any thread.
#ifndef SEGLOG_TESTS_SUPPORT_SOURCE_PATH_H_
#define SEGLOG_TESTS_SUPPORT_SOURCE_PATH_H_

#include <string>

namespace seglog::testing {

// `rel` (e.g. "tests/data/golden/manifest.json") inside the source tree.
std::string SourcePath(const std::string& rel);

}  // namespace seglog::testing

#endif  // SEGLOG_TESTS_SUPPORT_SOURCE_PATH_H_
