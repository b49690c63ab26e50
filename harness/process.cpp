// tune_allocator(): glibc malloc tunables, set by re-executing once.
#include "process.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif

namespace ltt {
namespace {

// True when the process runs under one of valgrind's tools.
bool under_valgrind() {
#ifdef RUNNING_ON_VALGRIND
  if (RUNNING_ON_VALGRIND) return true;
#endif
  // Without valgrind's header: its tools preload vgpreload_<tool>-<arch>.so.
  const char* pre = std::getenv("LD_PRELOAD");
  return pre != nullptr && std::strstr(pre, "/vgpreload_") != nullptr;
}

}  // namespace

void tune_allocator(int argc, char** argv) {
  if (std::getenv("GLIBC_TUNABLES") != nullptr) return;
  // Subcommands that allocate little start once: the second start would double
  // their wall time (ltt simulate answers in well under a second).
  if (argc > 1 && (std::strcmp(argv[1], "simulate") == 0 || std::strcmp(argv[1], "--help") == 0)) return;
  // Under valgrind /proc/self/exe is valgrind's tool, which refuses to start
  // on its own ("You cannot run ... directly"), and any other path would leave
  // valgrind behind unless it traces children: run on with the default
  // allocator, checked.
  if (under_valgrind()) return;
  setenv("GLIBC_TUNABLES",
         "glibc.malloc.hugetlb=1:glibc.malloc.mmap_threshold=33554432:"
         "glibc.malloc.trim_threshold=17179869184:glibc.malloc.top_pad=268435456",
         1);
  execv("/proc/self/exe", argv);
  // execv failed (no /proc): run on with the default allocator.
}

}  // namespace ltt
