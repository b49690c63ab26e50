# Seventeenth session, call 1 (one H200): the whole build and the GPU suite on
# this tree (the sixteenth session's review mends, never run on a GPU, and the
# mutant gemm-round-then-add planted in the cuda backend: tier 0's own kernels
# and cuBLAS in tiers 2-4); PyTorch's F.rms_norm at M 2048
# (eager) and under torch.compile (Inductor's own RMSNorm, the casts kept), the GEMMs on fp32
# copies, against the fused order; every mutant the cuda backend plants, at k3 (T 8, M 5 and 33); torch.addmm's roundings with this seeding.
set -uo pipefail
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1)
echo "build rc $? $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
[ -x build/release/bin/ltt_tests ] || { tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
L=build/release/bin/ltt
tt() { local n=$1 t=$2; shift 2; OMP_NUM_THREADS=3 PYTHONUNBUFFERED=1 TORCHINDUCTOR_CACHE_DIR=/tmp/ic_$n timeout $t python3 scripts/torch_tiers.py --ltt $L --work /tmp/w_$n --dims k3 --device cuda --rmsnorm torch --gemm fp32 --golden-norm fused --out $R/$n.md --json $R/$n.json "$@" > $R/$n.log 2>&1; echo "$n exit $? $(( $(date +%s) - t0 )) s" >> $R/exits.txt; }
(cd build/release && OMP_NUM_THREADS=3 timeout 200 ctest -R '^gpu\.|python|lt_inplace' -E 'ranks_' -j5 > $R/ctest_gpu.log 2>&1; echo "suite exit $? $(( $(date +%s) - t0 )) s" >> $R/exits.txt) &
tt rms_2048 300 --tp 8 --tokens 2048 --dist realistic,adversarial &
tt rms_compile 300 --compile --keep-casts --tp 8 --tokens 1,33,257 --dist realistic,adversarial &
(timeout 150 python3 bench/torch/addmm_rounding.py --json $R/addmm_rounding.json > $R/addmm_rounding.log 2>&1; echo "addmm_rounding exit $? $(( $(date +%s) - t0 )) s" >> $R/exits.txt) &
(OMP_NUM_THREADS=3 timeout 280 $L mutants --backend cuda --dims k3 --tp 8 --tokens 5,33 --json $R/mutants_k3_cuda.json > $R/mutant_k3.log 2>&1; echo "mutant_k3 exit $? $(( $(date +%s) - t0 )) s" >> $R/exits.txt) &
wait
cat $R/exits.txt
echo "ctest gpu: $(grep -E 'tests passed' $R/ctest_gpu.log)"; grep -E "Failed|\*\*\*|Not Run|Timeout" $R/ctest_gpu.log | head
cat $R/mutant_k3.log
cat $R/addmm_rounding.log | tail -20
for n in rms_2048 rms_compile; do echo "== $n"; grep -E '^\[|^# correct outputs|ERROR|Traceback|Error:' $R/$n.log | tail -14; done
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
