// The watchdog thread.
#include "watchdog.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
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

}  // namespace

void watchdog_start(double timeout_s, std::string who) {
  State& s = state();
  s.timeout = timeout_s;
  s.who = std::move(who);
  s.last = std::chrono::steady_clock::now();
  s.thread = std::thread([&s] {
    std::unique_lock<std::mutex> lk(s.mu);
    while (!s.stop) {
      s.cv.wait_for(lk, std::chrono::milliseconds(200));
      const double idle = std::chrono::duration<double>(std::chrono::steady_clock::now() - s.last).count();
      if (!s.stop && idle > s.timeout + s.grace) {
        std::fprintf(stderr, "ltt: %s: no progress for %.0f s (--timeout), stuck in: %s\n", s.who.c_str(), idle,
                     s.stage.c_str());
        std::fflush(stderr);
        std::_Exit(1);
      }
    }
  });
}

namespace {
void set_stage(const std::string& what, double grace) {
  State& s = state();
  std::lock_guard<std::mutex> lk(s.mu);
  s.stage = what;
  s.grace = grace;
  s.last = std::chrono::steady_clock::now();
}
}  // namespace

void watchdog_stage(const std::string& what) { set_stage(what, 0); }
void watchdog_wait(const std::string& what) { set_stage(what, 2); }

void watchdog_stop() {
  State& s = state();
  if (!s.thread.joinable()) return;
  {
    std::lock_guard<std::mutex> lk(s.mu);
    s.stop = true;
  }
  s.cv.notify_all();
  s.thread.join();
}

}  // namespace ltt
