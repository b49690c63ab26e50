# Fifteenth session, call 5 (one H200, warm from call 4, its build kept):
# the final tree's whole build and GPU suite. Run from the repository root.
mkdir -p $OUT/r; (cmake --build --preset release -j16 > $OUT/r/build.log 2>&1; echo "build rc $? warnings $(grep -c -i warning $OUT/r/build.log)"); cd build/release && OMP_NUM_THREADS=4 timeout 150 ctest -R '^gpu\.|python' -E 'ranks_' -j4 > $OUT/r/ctest_gpu.log 2>&1; echo "ctest exit $?"; grep -E "tests passed|Failed|\*\*\*|Total Test" $OUT/r/ctest_gpu.log; git -C /dev/null rev-parse 2>/dev/null; true
