# Twentieth session, call 2 (one H200): the main job at M 8192 on T 16 in
# every distribution (the eighteenth session ran T 16 only on realistic
# data there), every tier, k3 sizes, fake ranks on the final tree.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=16
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 --target ltt >> $R/build.log 2>&1) || { tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of)' $R/$n.log | tr '\n' ' ')"; grep -E "FAIL|ltt:|rror:" $R/$n.log | head -4; }
s m8192_t16 480 $L check --backend cuda --dims k3 --tp 16 --tokens 8192 --dist all --json $R/m8192_t16.json --markdown $R/m8192_t16.md
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
