# Thirty-third session, call 2 (one GPU, 359 s of device time left): the
# narrowest check of this session's verdict change on the GPU's own
# kernels. On exact inputs a GEMM's dot product that every order adds
# exactly now has no accumulation width (3cf1a63), so a tensor core that
# added such products inexactly would fail here: the build (ltt alone),
# then the main job's exact cases on the cuda backend, to a deadline.
set -uo pipefail
R=$OUT/r; mkdir -p $R
t0=$(date +%s); end=$(( t0 + ${LTT_DEADLINE_S:-200} ))
nvidia-smi -L | tee $R/gpu.txt
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 --target ltt >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
cd $(mktemp -d)
for T in 8 16; do
  left=$(( end - $(date +%s) )); [ $left -lt 10 ] && { echo "T $T: not run, the deadline"; continue; }
  timeout -k 5 $left $L check --backend cuda --dims k3 --tp $T --tokens 1,5,33,128,256,257,2048 --dist exact > $R/exact_T$T.out 2>&1
  echo "T $T: exit $? ($(( $(date +%s) - t0 )) s)"; grep -E "^ +[0-4] |Out of bound|cases," $R/exact_T$T.out | cut -c1-160
done
echo "total $(( $(date +%s) - t0 )) s"
