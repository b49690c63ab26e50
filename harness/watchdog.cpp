// The watchdog thread, and the crash and early-exit reports while it lives.
#include "watchdog.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <thread>

namespace ltt {

namespace {

struct State {
  std::mutex mu;
  std::condition_variable cv;
  std::string who, stage = "start-up";
  std::chrono::steady_clock::time_point last;
  double timeout = 0;
  double grace = 0;
  bool stop = false;
  std::thread thread;
};

State& state() {
  static State s;
  return s;
}

// What a signal handler may read: "ltt: <who>: ... in: <stage>" is assembled
// from these fixed buffers with write(2) alone.
char g_who[256];
char g_stage[1024];
std::atomic<bool> g_running{false};
constexpr int kCrashSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
struct sigaction g_old[sizeof kCrashSignals / sizeof kCrashSignals[0]];

void copy_to(char* dst, size_t n, const std::string& s) {
  const size_t k = std::min(n - 1, s.size());
  std::memcpy(dst, s.data(), k);
  dst[k] = 0;
}

void say(const char* s) {
  ssize_t ignored = write(STDERR_FILENO, s, std::strlen(s));
  (void)ignored;
}

void report_end(const char* what) {
  say("ltt: ");
  say(g_who);
  say(": ");
  say(what);
  say(", in: ");
  say(g_stage);
  say("\n");
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "crashed (SIGSEGV)";
    case SIGBUS: return "crashed (SIGBUS)";
    case SIGFPE: return "crashed (SIGFPE)";
    case SIGILL: return "crashed (SIGILL)";
    case SIGABRT: return "aborted (SIGABRT)";
    default: return "crashed";
  }
}

void on_crash(int sig) {
  report_end(signal_name(sig));
  signal(sig, SIG_DFL);
  raise(sig);
}

// exit() while the run is on: nobody meant to end it there.
void on_exit() {
  if (!g_running.load()) return;
  std::fflush(stdout);
  report_end("exited before the run was over (exit() called)");
  std::_Exit(1);
}

void set_stage(const std::string& what, double grace) {
  State& s = state();
  std::lock_guard<std::mutex> lk(s.mu);
  s.stage = what;
  copy_to(g_stage, sizeof g_stage, what);
  s.grace = grace;
  s.last = std::chrono::steady_clock::now();
}

}  // namespace

Watchdog::Watchdog(double timeout_s, std::string who) {
  State& s = state();
  s.timeout = timeout_s;
  s.who = std::move(who);
  s.stop = false;
  s.grace = 0;  // timed from the start, whatever stage an earlier watchdog ended in
  s.last = std::chrono::steady_clock::now();
  copy_to(g_who, sizeof g_who, s.who);
  copy_to(g_stage, sizeof g_stage, s.stage);
  static const bool registered = std::atexit(on_exit) == 0;
  (void)registered;
  struct sigaction sa {};
  sa.sa_handler = on_crash;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
  for (size_t i = 0; i < sizeof kCrashSignals / sizeof kCrashSignals[0]; ++i) sigaction(kCrashSignals[i], &sa, &g_old[i]);
  g_running = true;
  s.thread = std::thread([&s] {
    std::unique_lock<std::mutex> lk(s.mu);
    while (!s.stop) {
      s.cv.wait_for(lk, std::chrono::milliseconds(200));
      const double idle = std::chrono::duration<double>(std::chrono::steady_clock::now() - s.last).count();
      if (!s.stop && idle > s.timeout + s.grace) {
        std::fflush(stdout);  // the report's header and rows so far, also when piped
        std::fprintf(stderr,
                     "ltt: %s: no progress for %.1f s (--timeout %g), stuck in: %s (a run that is only slow, not stuck, "
                     "needs a larger --timeout)\n",
                     s.who.c_str(), idle, s.timeout, s.stage.c_str());
        std::fflush(stderr);
        g_running = false;
        std::_Exit(1);
      }
    }
  });
}

Watchdog::~Watchdog() {
  State& s = state();
  g_running = false;
  for (size_t i = 0; i < sizeof kCrashSignals / sizeof kCrashSignals[0]; ++i) sigaction(kCrashSignals[i], &g_old[i], nullptr);
  if (!s.thread.joinable()) return;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    s.stop = true;
  }
  s.cv.notify_all();
  s.thread.join();
  s.stage = "start-up";
  s.grace = 0;
}

void watchdog_stage(const std::string& what, double grace_s) { set_stage(what, grace_s); }

void watchdog_own_work(const std::string& what) { set_stage(what, std::numeric_limits<double>::infinity()); }

std::string watchdog_current_stage() {
  State& s = state();
  std::lock_guard<std::mutex> lk(s.mu);
  return s.stage;
}

WatchdogWaiting::WatchdogWaiting(const std::string& what, double grace_s) {
  {
    State& s = state();
    std::lock_guard<std::mutex> lk(s.mu);
    before_ = s.stage;
    grace_ = s.grace;
  }
  set_stage(what, grace_s);
}

WatchdogWaiting::~WatchdogWaiting() { set_stage(before_, grace_); }

}  // namespace ltt
