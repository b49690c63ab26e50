# Twenty-ninth session, call 1 (one H200): PyTorch's own pipelines judged by
# `ltt verify` again, on new inputs (seed 29; sessions 23-25 used the default
# seed), on this tree (no verdict code changed since session 25's runs):
# small with fp32 GEMMs in all three distributions; F.rms_norm's own kernel
# against fused expected outputs; the ring's reductions; k3 at T 8 and 16
# from M 1 to 2048; torch.compile with the rounding points kept at k3.
# Every correct output must pass; every planted bug that changes an output
# must fail.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 --target ltt >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=build/release/bin/ltt
t() { local n=$1 to=$2; shift 2; local a=$(date +%s); OMP_NUM_THREADS=3 timeout $to python3 scripts/torch_tiers.py --ltt $L --work /tmp/tt_$n --device cuda --seed 29 --out $R/$n.md --json $R/$n.json "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E 'correct outputs|bugs' $R/$n.log | tail -2 | tr '\n' ' ')"; grep -E "ERROR|Traceback|<<" $R/$n.log | head -4; }
( t small 150 --gemm fp32 --dims small --tp 8,16 --tokens 1,5,33,129,257 --dist realistic,adversarial,exact
  t small_torchnorm 90 --gemm fp32 --dims small --tp 8,16 --tokens 5,33,257 --dist realistic,adversarial --rmsnorm torch --golden-norm fused
  t small_ring 90 --gemm fp32 --dims small --tp 8,16 --tokens 5,33,257 --dist realistic,adversarial --algo ring ) > $R/phase_a.txt 2>&1 &
( t k3_T8 260 --gemm fp32 --dims k3 --tp 8 --tokens 1,5,33,128,256,2048 --dist realistic,adversarial ) > $R/phase_b.txt 2>&1 &
( t k3_T16 260 --gemm fp32 --dims k3 --tp 16 --tokens 1,5,33,128,256 --dist realistic,adversarial ) > $R/phase_c.txt 2>&1 &
( t k3_compile 260 --gemm fp32 --compile --keep-casts --dims k3 --tp 8 --tokens 5,33,256 --dist realistic,adversarial ) > $R/phase_d.txt 2>&1 &
wait
cat $R/phase_a.txt $R/phase_b.txt $R/phase_c.txt $R/phase_d.txt
echo "total $(( $(date +%s) - t0 )) s"
tar czf $OUT/r.tgz -C $OUT r
