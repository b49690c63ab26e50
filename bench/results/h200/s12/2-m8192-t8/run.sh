# Twelfth session, call 2 (one H200, call 1's build): M 8192 on fake ranks,
# the cases call 1 and the eleventh session left (T 16 tier 4 adversarial,
# cut by call 1's timeout; T 8 exact and adversarial); then RMSNorm's rows
# and PyTorch's composition (torch.compile) in the same call.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=16
t0=$(date +%s)
[ -x build/release/bin/ltt ] || { cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1; echo "build $(( $(date +%s) - t0 )) s"; }
L=$PWD/build/release/bin/ltt
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of)' $R/$n.log | sort | uniq -c | tr '\n' ' ')"; grep -E "FAIL|ltt:|rror:|wrong" $R/$n.log | head -4; }
s main_8192_t16_t4 90 $L check --backend cuda --dims k3 --tp 16 --tier 4 --tokens 8192 --dist adversarial --json $R/main_8192_t16_t4.json
s main_8192_t8 330 $L check --backend cuda --dims k3 --tp 8 --tokens 8192 --dist exact,adversarial --json $R/main_8192_t8.json --markdown $R/main_8192_t8.md
s bench_norm 50 $L bench --backend cuda --dims k3 --tp 8 --tier 1 --tokens 2048,8192 --json $R/bench_norm.json
grep -E "^ +(rmsnorm|rmsnorm-pdl|copy-norm) " $R/bench_norm.log
s compose 100 python3 bench/torch/compose.py --json $R/compose.json
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
