// ChildProcess: a server process a test starts (Versity S3 Gateway, moto's server), with its
// stdout and stderr appended to a log file, that dies with the test process. Plus the helpers
// the harnesses around it share: a free loopback port, "does it answer HTTP yet", and looking a
// binary up on PATH.
//
// Dying with the test process: the child is forked by a waiter thread that lives exactly as
// long as the child and sets PR_SET_PDEATHSIG (SIGKILL) in it. The parent-death signal fires
// when the forking *thread* ends, not the process, so the thread that forks must outlive the
// child: a short-lived thread - say a test's restarter - calling fork() itself would have its
// child killed the moment it returned. The waiter also reaps the child, so running() and the
// exit status are known without polling waitpid from the owner.
//
// Thread safety: ChildProcess is not thread-safe; one thread drives it at a time (Stop/Spawn
// from another thread only while the owner does not call it). The free functions are.
#ifndef SEGLOG_REMOTE_TESTING_CHILD_PROCESS_H_
#define SEGLOG_REMOTE_TESTING_CHILD_PROCESS_H_

#include <sys/types.h>

#include <atomic>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "seglog/result.h"

namespace seglog {

class ChildProcess {
 public:
  ChildProcess() = default;
  // Kill().
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Forks and execs argv[0] (a path, not looked up) with `argv`, the environment inherited,
  // stdout and stderr appended to `log_path`. REQUIRES: not running().
  Status Spawn(std::vector<std::string> argv, const std::string& log_path);
  // Waits until something on 127.0.0.1:`port` answers HTTP. IOError naming `name`, the port and
  // the log when the child exits first, or (after stopping it) when `timeout_ms` runs out.
  Status WaitForHttp(int port, int timeout_ms, std::string_view name);
  // SIGTERM, then SIGKILL after `grace_ms`; reaps it. OK when not running.
  Status Stop(int grace_ms);
  // SIGKILL at once; reaps it. Nothing when not running.
  void Kill();

  bool running() const { return pid_ > 0; }
  bool exited() const { return exited_.load(); }
  int exit_status() const { return exit_status_.load(); }  // waitpid's status once exited()

 private:
  std::string log_path_;
  pid_t pid_ = -1;
  std::thread waiter_;  // forked the child, waits for it
  std::atomic<bool> exited_{true};
  std::atomic<int> exit_status_{0};
};

// A port on 127.0.0.1 that nothing listened on a moment ago (bound to port 0, then closed).
Result<int> FreeLoopbackPort();
// True when something on 127.0.0.1:`port` answers `GET /` with an HTTP status line (1 s
// timeouts).
bool AnswersHttp(int port);
bool IsExecutable(const std::string& path);
// The first executable `dir/name` over $PATH's directories.
std::optional<std::string> FindOnPath(std::string_view name);

}  // namespace seglog

#endif  // SEGLOG_REMOTE_TESTING_CHILD_PROCESS_H_
