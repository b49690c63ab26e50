# Nineteenth session, call 1 (one H200): the verdict against code that is
# not ltt's, where earlier sessions left gaps.
# - cuBLASLt's listed algorithms on tier 2 out of place (ltt's default call),
#   M 1 .. 2048, realistic and adversarial (the fifteenth ran it only at M 33
#   and 257, realistic; in place elsewhere);
# - cuBLASLt's split-K forms on tier 2 out of place at T 8, and on tiers 1-4
#   at T 16 (the fifteenth ran T 8 only, tier 2 in place);
# - PyTorch's F.rms_norm eager at M 2048, T 16, adversarial inputs;
# - F.rms_norm under torch.compile (casts kept) at M 2048, T 8.
set -uo pipefail
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
R=$OUT/r; mkdir -p $R; t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 --target ltt >> $R/build.log 2>&1)
echo "build rc $? $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
[ -x build/release/bin/ltt ] || { tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
L=$PWD/build/release/bin/ltt
k() { local n=$1 t=$2; shift 2; (OMP_NUM_THREADS=3 timeout $t $L check --backend cuda --dims k3 --json $R/$n.json "$@" > $R/$n.log 2> $R/$n.err; echo "$n exit $? $(( $(date +%s) - t0 )) s" >> $R/exits.txt) & }
tt() { local n=$1 t=$2; shift 2; (OMP_NUM_THREADS=3 PYTHONUNBUFFERED=1 TORCHINDUCTOR_CACHE_DIR=/tmp/ic_$n timeout $t python3 scripts/torch_tiers.py --ltt $L --work /tmp/w_$n --dims k3 --device cuda --rmsnorm torch --golden-norm fused --out $R/$n.md --json $R/$n.json "$@" > $R/$n.log 2>&1; echo "$n exit $? $(( $(date +%s) - t0 )) s" >> $R/exits.txt) & }
k listed_t2 300 --tp 8 --tier 2 --tokens 1,5,33,128,257 --dist realistic,adversarial --gemm-algos listed
k listed_t2_2048 400 --tp 8 --tier 2 --tokens 2048 --dist realistic,adversarial --gemm-algos listed
k split_t2_T8 400 --tp 8 --tier 2 --tokens 5,33,257 --dist realistic,adversarial --gemm-algos split-k
k split_T16 480 --tp 16 --tier 1,2,3,4 --tokens 5,33,257 --dist realistic,adversarial --gemm-algos split-k
tt rms_2048_t16_adv 400 --gemm fp32 --tp 16 --tokens 2048 --dist adversarial
tt rms_compile_2048 480 --gemm fp32 --compile --keep-casts --tp 8 --tokens 2048 --dist realistic,adversarial
wait
cat $R/exits.txt
for n in listed_t2 listed_t2_2048 split_t2_T8 split_T16; do echo "== $n: $(grep -c '^cuBLASLt for' $R/$n.err) GEMMs listed; $(grep -E '^# [0-9]+ cases' $R/$n.log)"; grep -h -E 'cuBLASLt algorithms' $R/$n.log | cut -c1-160 | head -30; grep -h -E '^#   FAIL|^# ltt|^ltt:' $R/$n.log $R/$n.err | head -10; done
for n in rms_2048_t16_adv rms_compile_2048; do echo "== $n"; grep -E '^\[|^# correct outputs|^# wall|Traceback|Error:' $R/$n.log | tail -8; done
rm -f $R/*.partial
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
