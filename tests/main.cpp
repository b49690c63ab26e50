// The test main: the allocator settings every ltt program runs with, then doctest.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "process.hpp"

int main(int argc, char** argv) {
  ltt::tune_allocator(argc, argv);
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
