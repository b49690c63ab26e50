# Twenty-third session, call 5 (one H200, the last 294 s of device time):
# the Cauchy-Schwarz cap (714dce6) narrows the one-shot sets too; the cuda
# backend's outputs on adversarial k3 cases (order-probe rows among them)
# must still pass. Built for the ltt target alone.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=16
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 --target ltt >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
a=$(date +%s); timeout 120 build/release/bin/ltt check --backend cuda --dims k3 --tp 8,16 --tokens 5,33,128 --dist adversarial --json $R/cap_adv.json > $R/cap_adv.log 2>&1; echo "cap_adv: exit $? $(( $(date +%s) - a )) s"; grep -E "cases, |Out of" $R/cap_adv.log
tar czf $OUT/r.tgz -C $OUT r
