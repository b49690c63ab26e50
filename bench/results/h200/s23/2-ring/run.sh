# Twenty-third session, call 2 (one H200): the ring's sets are sharper
# (ring_hops; tier 4's shards capped by the full product). Judged against
# code that is not ltt's: PyTorch's own ops with rings in a rank order of
# their own (scripts/torch_tiers.py --algo ring; the drop bug must now fail
# at T 16 too), F.rms_norm's kernel, and k3; against ltt's cuda backend
# (its own ring order), k3, T 8 and 16, M 1 .. 257, all distributions; and
# the mutants planted in the cuda backend under a ring.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 --target ltt >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=build/release/bin/ltt
t() { local n=$1 to=$2; shift 2; local a=$(date +%s); OMP_NUM_THREADS=6 timeout $to python3 scripts/torch_tiers.py --ltt $L --work /tmp/tt_$n --device cuda --out $R/$n.md --json $R/$n.json "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# |correct outputs|bugs' $R/$n.log | tail -3 | tr '\n' ' ')"; grep -E "ERROR|correct  #" $R/$n.log | head -4; }
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); OMP_NUM_THREADS=10 timeout $to "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of|Mutants)' $R/$n.log | tr '\n' ' ')"; grep -E "FAIL|MISSED|ltt:|rror:" $R/$n.log | head -6; }
( t small_ring 150 --dims small --tp 8,16 --tokens 1,5,33,129,257 --dist realistic,adversarial,exact --algo ring
  t small_ring_torchnorm 90 --dims small --tp 8,16 --tokens 5,33,257 --dist realistic,adversarial --algo ring --rmsnorm torch --golden-norm fused
  t k3_ring 240 --dims k3 --tp 8,16 --tokens 1,5,33,128,256 --dist realistic,adversarial --algo ring ) > $R/phase_torch.txt 2>&1 &
( s mutants_ring 90 $L mutants --backend cuda --dims small --tp 8,16 --tokens 5,33 --algo ring
  s cuda_ring_k3 380 $L check --backend cuda --dims k3 --tp 8,16 --tokens 1,5,33,128,256,257 --dist all --algo ring --json $R/cuda_ring_k3.json ) > $R/phase_cuda.txt 2>&1 &
wait
cat $R/phase_torch.txt $R/phase_cuda.txt
echo "total $(( $(date +%s) - t0 )) s"
tar czf $OUT/r.tgz -C $OUT r
