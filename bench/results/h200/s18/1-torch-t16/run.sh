# Eighteenth session, call 1 (one H200): what the seventeenth left out or cut.
# PyTorch's F.rms_norm eager at M 2048 on adversarial inputs (cut by its
# timeout there) with the GEMMs on fp32 copies; torch.addmm in bf16 at M 2048
# (two roundings at every tier's shape there: the verdict must refuse it and
# its hint must name it); F.rms_norm under torch.compile (casts kept) at T 16;
# every mutant the cuda backend plants at k3, T 16.
set -uo pipefail
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 --target ltt >> $R/build.log 2>&1)
echo "build rc $? $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
[ -x build/release/bin/ltt ] || { tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
L=build/release/bin/ltt
tt() { local n=$1 t=$2; shift 2; OMP_NUM_THREADS=4 PYTHONUNBUFFERED=1 TORCHINDUCTOR_CACHE_DIR=/tmp/ic_$n timeout $t python3 scripts/torch_tiers.py --ltt $L --work /tmp/w_$n --dims k3 --device cuda --rmsnorm torch --golden-norm fused --out $R/$n.md --json $R/$n.json "$@" > $R/$n.log 2>&1; echo "$n exit $? $(( $(date +%s) - t0 )) s" >> $R/exits.txt; }
tt rms_2048_adv 420 --gemm fp32 --tp 8 --tokens 2048 --dist adversarial &
tt addmm_2048 420 --gemm bf16 --tp 8 --tokens 2048 --dist realistic &
tt rms_compile_t16 300 --gemm fp32 --compile --keep-casts --tp 16 --tokens 1,33,257 --dist realistic,adversarial &
(OMP_NUM_THREADS=3 timeout 300 $L mutants --backend cuda --dims k3 --tp 16 --tokens 5,33 --json $R/mutants_k3_t16_cuda.json > $R/mutants_k3_t16.log 2>&1; echo "mutants_k3_t16 exit $? $(( $(date +%s) - t0 )) s" >> $R/exits.txt) &
wait
cat $R/exits.txt
cat $R/mutants_k3_t16.log
for n in rms_2048_adv addmm_2048 rms_compile_t16; do echo "== $n"; grep -E '^\[|^# correct outputs|ERROR|Traceback|Error:' $R/$n.log | tail -14; grep -E "^    (correct|row|eps|drop) .*(Out of bound|cases,)|hold the emulated" $R/$n.log | cut -c1-200 | head -12; done
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
