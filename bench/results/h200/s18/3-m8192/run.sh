# Eighteenth session, call 3 (one H200): M 8192 on the final tree, fake ranks,
# k3, every tier where it applies: T 8 in all three distributions, T 16
# realistic.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=16
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 --target ltt >> $R/build.log 2>&1) || { tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of)' $R/$n.log | tr '\n' ' ')"; grep -E "FAIL|ltt:|rror:" $R/$n.log | head -4; }
s m8192_t8 330 $L check --backend cuda --dims k3 --tp 8 --tokens 8192 --dist all --json $R/m8192_t8.json
s m8192_t16 150 $L check --backend cuda --dims k3 --tp 16 --tokens 8192 --dist realistic --json $R/m8192_t16.json
echo "total $(( $(date +%s) - t0 )) s"
