// A watchdog per process: if no stage starts for `timeout` seconds, it names
// this process's TP ranks, the case and the stage it is stuck in, and ends
// the process with exit code 1 (mpirun then ends the others). The one place
// besides main() that ends the program: a hung collective never returns.
#pragma once

#include <string>

namespace ltt {

void watchdog_start(double timeout_s, std::string who);
void watchdog_stage(const std::string& what);  // also resets the timer
// Waiting on other ranks: the same, with 2 s of grace, so that the rank that
// never arrives reports first.
void watchdog_wait(const std::string& what);
void watchdog_stop();

}  // namespace ltt
