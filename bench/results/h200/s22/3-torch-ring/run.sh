# Twenty-second session, call 3 (one H200): PyTorch's own ops with ring
# reductions (scripts/torch_tiers.py --algo ring: a bf16 rounding at every
# hop, in a permuted rank order of the script's own), judged by ltt verify
# against the ring's sharper sets (dot_ring); the drop bug must fail. Also
# F.rms_norm's own kernel under a ring, and the one-shot run as before.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=8
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 --target ltt >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=build/release/bin/ltt
t() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to python3 scripts/torch_tiers.py --ltt $L --work /tmp/tt_$n --device cuda --out $R/$n.md --json $R/$n.json "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# |correct outputs|bugs' $R/$n.log | tail -3 | tr '\n' ' ')"; grep -E "ERROR|correct  #" $R/$n.log | head -4; }
t small_ring 150 --dims small --tp 8,16 --tokens 1,5,33,129,257 --dist realistic,adversarial,exact --algo ring
t small_ring_torchnorm 90 --dims small --tp 8,16 --tokens 5,33,257 --dist realistic,adversarial --algo ring --rmsnorm torch --golden-norm fused
t small_oneshot 60 --dims small --tp 8 --tokens 5,33 --dist realistic,adversarial
t k3_ring 240 --dims k3 --tp 8,16 --tokens 1,5,33,128,256 --dist realistic,adversarial --algo ring
echo "total $(( $(date +%s) - t0 )) s"
tar czf $OUT/r.tgz -C $OUT r
