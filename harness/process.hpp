// Process-wide settings every ltt program starts with.
#pragma once

namespace ltt {

// The reference allocates and frees matrices of tens of megabytes per stage.
// On virtual machines a page fault costs microseconds, and glibc returns such
// blocks to the kernel on free, so every stage faulted its memory in anew:
// measured, 2.4 s of a 2.7 s exact-mode run. This keeps freed memory in the
// heap and backs it with transparent huge pages (glibc tunables, which glibc
// reads only at start-up: the first call re-executes the program once with
// them set, unless the caller set GLIBC_TUNABLES itself, or the program runs
// under valgrind, whose tool /proc/self/exe then names).
void tune_allocator(int argc, char** argv);

}  // namespace ltt
