# Third-party dependencies, all Debian packages (scripts/setup.sh installs them).
find_package(Eigen3 3.3 REQUIRED NO_MODULE)
find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(MPI REQUIRED COMPONENTS CXX)
find_package(doctest REQUIRED)
find_package(CLI11 REQUIRED)
find_package(nlohmann_json 3 REQUIRED)

find_path(RANDOM123_INCLUDE_DIR Random123/philox.h
  HINTS ${PROJECT_SOURCE_DIR}/third_party/random123/usr/include
        ${PROJECT_SOURCE_DIR}/.device-deps/usr/include)  # the GPU machine: shared/tools/device-deps.sh
if(NOT RANDOM123_INCLUDE_DIR)
  message(FATAL_ERROR "Random123 headers not found: install librandom123-dev (scripts/setup.sh does)")
endif()
add_library(random123 INTERFACE)
target_include_directories(random123 SYSTEM INTERFACE ${RANDOM123_INCLUDE_DIR})
