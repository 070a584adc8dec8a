// Crash test of the metadata log: a child process opens a LogManager and creates, alters and
// deletes topics in a loop, reporting each change on a pipe once the call returned OK (the
// change was acknowledged); it is killed with SIGKILL at a random moment - mid-append of a
// metadata batch, between a topic's record and its partition directories, mid-delete. The
// parent then reopens the directory as after an unclean shutdown and checks that every
// acknowledged change is there, and that the change in flight is there whole or not at all:
// a topic exists with all its partitions and configs, or does not exist; a deleted topic is
// gone or whole. A second reopen changes nothing.
//
// Trials: SEGLOG_METADATA_CRASH_TRIALS (default 25); docs/design/metadata.md for longer runs.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>

#include "base/scheduler.h"
#include "manager/log_manager.h"

namespace seglog {
namespace {

constexpr int64_t kT0 = 1794024676000;

LogManagerConfig Config(const std::string& dir) {
  auto c = LogManagerConfig::FromProperties({{"log.dirs", dir}});
  EXPECT_TRUE(c.ok());
  return *c;
}

// What topic `n` is created with: 1 to 4 partitions and one config.
int32_t PartitionsOf(int n) { return 1 + n % 4; }
std::string RetentionOf(int n) { return std::to_string(100000 + n); }

// The child: changes in a loop, each acknowledged one reported as a line on `fd`:
//   "c <n>"  topic t<n> created      "a <n> <v>"  its retention.ms set to v
//   "d <n>"  topic t<n> deleted
[[noreturn]] void Child(const std::string& dir, int fd, int first) {
  MockScheduler scheduler(kT0);
  auto m = LogManager::Open(Config(dir), &scheduler);
  if (!m.ok()) ::_exit(3);
  auto say = [fd](const std::string& line) {
    const std::string l = line + "\n";
    if (::write(fd, l.data(), l.size()) != static_cast<ssize_t>(l.size())) ::_exit(4);
  };
  for (int n = first;; ++n) {
    const std::string name = fmt::format("t{}", n);
    if (!(*m)->CreateTopic(name, PartitionsOf(n), {{"retention.ms", RetentionOf(n)}}).ok()) {
      ::_exit(5);
    }
    say(fmt::format("c {}", n));
    if (n % 3 == 1) {
      const std::string v = std::to_string(200000 + n);
      if (!(*m)->AlterTopicConfig(name, {{"retention.ms", v}}, {}).ok()) ::_exit(6);
      say(fmt::format("a {} {}", n, v));
    }
    if (n % 3 == 2) {
      if (!(*m)->DeleteTopic(name).ok()) ::_exit(7);
      say(fmt::format("d {}", n));
    }
  }
}

struct Expected {
  int32_t partitions;
  std::string retention;
};

// The topics as the reopened node sees them: name -> (partition count, retention.ms).
std::map<std::string, Expected> Topics(LogManager& m) {
  std::map<std::string, Expected> out;
  for (const auto& [name, md] : m.AllTopicMetadata()) {
    auto it = md.configs.find("retention.ms");
    out[name] = {md.partitions, it == md.configs.end() ? "" : it->second};
  }
  return out;
}

TEST(MetadataCrashTest, SigkillKeepsEveryAcknowledgedChangeAndTheRestWholeOrNotAtAll) {
  const char* env = std::getenv("SEGLOG_METADATA_CRASH_TRIALS");
  const int trials = env ? std::atoi(env) : 25;
  const std::string root =
      (std::filesystem::temp_directory_path() / fmt::format("seglog_metacrash_{}", ::getpid()))
          .string();
  std::mt19937 rng(20261204);
  std::map<std::string, Expected> model;  // acknowledged state, across trials
  int next = 0;
  int in_flight_present = 0, in_flight_absent = 0;
  const std::string dir = root + "/d";
  std::filesystem::create_directories(dir);
  for (int trial = 0; trial < trials; ++trial) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const int first = next;
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(fds[0]);
      Child(dir, fds[1], first);
    }
    ::close(fds[1]);
    // The kill lands once the child is changing topics: after its first acknowledged change
    // (or 20 s), then a random 0-40 ms on.
    std::string acked;
    char buf[4096];
    {
      pollfd p{fds[0], POLLIN, 0};
      if (::poll(&p, 1, 20000) > 0) {
        const ssize_t n = ::read(fds[0], buf, sizeof buf);
        if (n > 0) acked.append(buf, static_cast<size_t>(n));
      }
    }
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % 40000));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "child exited early with " << WEXITSTATUS(status);
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) acked.append(buf, n);
    ::close(fds[0]);
    // Replay the acknowledged lines into the model; `pending` is the change after the last one.
    std::istringstream lines(acked);
    std::string op;
    int last = first - 1;
    char last_op = 'd';
    for (std::string line; std::getline(lines, line);) {
      std::istringstream f(line);
      int n = 0;
      f >> op >> n;
      const std::string name = fmt::format("t{}", n);
      if (op == "c") {
        model[name] = {PartitionsOf(n), RetentionOf(n)};
      } else if (op == "a") {
        f >> model[name].retention;
      } else if (op == "d") {
        model.erase(name);
      }
      last = n;
      last_op = op[0];
    }
    next = last + 1 + 1;  // never reuse a name the killed child may have half-made

    MockScheduler scheduler(kT0);
    std::map<std::string, Expected> seen;
    {
      auto m = LogManager::Open(Config(dir), &scheduler);
      ASSERT_TRUE(m.ok()) << "trial " << trial << ": " << m.status().ToString();
      seen = Topics(**m);
      // Every partition the metadata names has its log.
      for (const auto& [name, e] : seen) {
        for (int32_t p = 0; p < e.partitions; ++p) {
          EXPECT_TRUE((*m)->GetLog({name, p}).ok()) << "trial " << trial << " " << name << "-" << p;
        }
      }
      ASSERT_TRUE((*m)->Shutdown().ok());
    }
    // The change in flight: after the last acknowledged line, the child was working on
    //   c -> (n%3==1: alter n) (n%3==2: delete n) else create n+1;  a -> create n+1;  d -> create
    //   n+1.
    std::string flight_name;
    Expected flight_full{};
    bool flight_is_create = false;
    bool flight_is_delete = false;
    if (last_op == 'c' && last % 3 == 1) {
      flight_name = fmt::format("t{}", last);  // alter: old or new value
    } else if (last_op == 'c' && last % 3 == 2) {
      flight_name = fmt::format("t{}", last);
      flight_is_delete = true;
    } else {
      flight_name = fmt::format("t{}", last + 1);
      flight_full = {PartitionsOf(last + 1), RetentionOf(last + 1)};
      flight_is_create = true;
    }
    for (const auto& [name, e] : seen) {
      if (name == flight_name) continue;
      auto it = model.find(name);
      ASSERT_NE(it, model.end()) << "trial " << trial << ": " << name << " was never acknowledged";
      EXPECT_EQ(e.partitions, it->second.partitions) << "trial " << trial << " " << name;
      EXPECT_EQ(e.retention, it->second.retention) << "trial " << trial << " " << name;
    }
    for (const auto& [name, e] : model) {
      if (name == flight_name) continue;
      EXPECT_TRUE(seen.count(name)) << "trial " << trial << ": acknowledged " << name << " lost";
    }
    auto got = seen.find(flight_name);
    if (flight_is_create) {
      if (got != seen.end()) {
        ++in_flight_present;
        EXPECT_EQ(got->second.partitions, flight_full.partitions) << "trial " << trial;
        EXPECT_EQ(got->second.retention, flight_full.retention) << "trial " << trial;
        model[flight_name] = flight_full;
      } else {
        ++in_flight_absent;
      }
    } else if (flight_is_delete) {
      if (got == seen.end()) {
        ++in_flight_present;
        model.erase(flight_name);
      } else {
        ++in_flight_absent;
        EXPECT_EQ(got->second.partitions, model[flight_name].partitions) << "trial " << trial;
      }
    } else if (got != seen.end()) {
      model[flight_name].retention = got->second.retention;  // the alter, either value
    }
    // A second open sees the same.
    {
      auto again = LogManager::Open(Config(dir), &scheduler);
      ASSERT_TRUE(again.ok()) << "trial " << trial << ": " << again.status().ToString();
      EXPECT_EQ(Topics(**again).size(), seen.size()) << "trial " << trial;
      ASSERT_TRUE((*again)->Shutdown().ok());
    }
  }
  std::printf(
      "metadata crash: %d trials, %zu topics at the end; the change in flight was "
      "there %d times and not %d times\n",
      trials, model.size(), in_flight_present, in_flight_absent);
  std::error_code ec;
  std::filesystem::remove_all(root, ec);
}

}  // namespace
}  // namespace seglog
