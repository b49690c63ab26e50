# Thirty-fourth session, call 3 (one GPU, 433 s of device time left): the
# main job's exact cases at M 8192 that call 2's 200 s limit cut (T 16,
# tiers 2, 3, 4), on the sets sessions 32 and 33 narrowed.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0
t0=$(date +%s)
nvidia-smi -L | tee $R/gpu.txt
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 --target ltt >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
cd $(mktemp -d)
timeout -k 5 ${LTT_CHECK_S:-170} $OLDPWD/build/release/bin/ltt check --backend cuda --dims k3 --tp 16 --tier 2,3,4 --tokens 8192 --dist exact --json $R/m8192_t16.json > $R/m8192_t16.out 2>&1
echo "check: exit $? ($(( $(date +%s) - t0 )) s)"; grep -E "^ +[0-4] +16 +8192|cases,|Out of" $R/m8192_t16.out | cut -c1-160
