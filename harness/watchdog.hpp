// A watchdog per process, alive while a Watchdog object lives. If no stage
// starts for `timeout` seconds, it names this process, its TP ranks, the case
// and the stage it is stuck in, and ends the process with exit code 1 (mpirun
// then ends the others). While it lives, a crash (SIGSEGV, SIGBUS, SIGFPE,
// SIGILL, SIGABRT) or an exit() before the run is over is reported the same
// way, naming the stage, before the process ends (by the signal, or with exit
// code 1). The one place besides main() that ends the program: a hung
// collective never returns.
#pragma once

#include <string>

namespace ltt {

class Watchdog {
 public:
  Watchdog(double timeout_s, std::string who);
  ~Watchdog();  // stops and joins the thread on every path out, error returns included
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
};

// Also resets the timer; `grace_s` more seconds for a stage whose healthy
// length has no bound that --timeout could know (a case file of gigabytes).
void watchdog_stage(const std::string& what, double grace_s = 0);
// A stage of the harness's own finite work (inputs, the reference, the
// checks, or waiting on process 0 doing them): named by a crash, never ended
// by --timeout, which is for the backend and the waits on other ranks; it
// can outlast a short --timeout at large sizes without anything being stuck.
void watchdog_own_work(const std::string& what);
// The stage a timeout would name now.
std::string watchdog_current_stage();
// Waiting on other ranks, for one wait's length: a stage with 2 s of grace,
// so that the rank that never arrives reports first; the stage before it
// comes back after (its timer restarted), so that work after the wait is not
// reported as the wait.
class WatchdogWaiting {
 public:
  // grace_s: infinite for a wait on the user's own program (a FIFO's reader),
  // which --timeout never ends: its wait is said on stderr instead.
  explicit WatchdogWaiting(const std::string& what, double grace_s = 2);
  ~WatchdogWaiting();
  WatchdogWaiting(const WatchdogWaiting&) = delete;
  WatchdogWaiting& operator=(const WatchdogWaiting&) = delete;

 private:
  std::string before_;
  double grace_ = 0;
};

}  // namespace ltt
