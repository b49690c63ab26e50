# ltt_warnings(target): warnings on, treated as errors in CI builds.
add_library(ltt_warnings INTERFACE)
target_compile_options(ltt_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>)
# GCC 12 reports -Wrestrict on std::string assignments in inlined library
# code (GCC bug 105329, fixed in 13): not ours to fix.
target_compile_options(ltt_warnings INTERFACE
  $<$<AND:$<COMPILE_LANG_AND_ID:CXX,GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Wno-restrict>)
option(LTT_WERROR "Treat warnings as errors" OFF)
if(LTT_WERROR)
  target_compile_options(ltt_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
endif()

# Floating-point semantics the emulation relies on: no contraction of a*b+c
# into an FMA behind our back (the emulated reference names every rounding).
add_library(ltt_fp INTERFACE)
separate_arguments(_ltt_arch UNIX_COMMAND "${LTT_ARCH_FLAGS}")
target_compile_options(ltt_fp INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-ffp-contract=off -fno-fast-math ${_ltt_arch}>)
