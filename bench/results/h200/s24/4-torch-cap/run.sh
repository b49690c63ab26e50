# Twenty-fourth session, call 4 (one H200): PyTorch's own ops judged under
# one-shot against session 23's capped sets (norm_cap, cap_by_full: they
# narrow one-shot sets too, most on order-probe rows), which the cuda
# backend passed but PyTorch's one-shot pipelines had not met: small, all
# three distributions; F.rms_norm's kernel; k3 at decode sizes; and
# torch.compile of the steps (Inductor's own fused orders). A correct
# output must pass; the drop bug each run plants must fail.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 --target ltt >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=build/release/bin/ltt
t() { local n=$1 to=$2; shift 2; local a=$(date +%s); OMP_NUM_THREADS=5 timeout $to python3 scripts/torch_tiers.py --ltt $L --work /tmp/tt_$n --device cuda --out $R/$n.md --json $R/$n.json "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# |correct outputs|bugs' $R/$n.log | tail -3 | tr '\n' ' ')"; grep -E "ERROR|correct  #" $R/$n.log | head -4; }
( t small 150 --dims small --tp 8,16 --tokens 1,5,33,129,257 --dist realistic,adversarial,exact
  t small_torchnorm 90 --dims small --tp 8,16 --tokens 5,33,257 --dist realistic,adversarial --rmsnorm torch --golden-norm fused ) > $R/phase_a.txt 2>&1 &
( t k3 200 --dims k3 --tp 8,16 --tokens 1,5,33,128 --dist realistic,adversarial ) > $R/phase_b.txt 2>&1 &
( t small_compile 200 --dims small --tp 8,16 --tokens 5,33,129 --dist realistic,adversarial --compile ) > $R/phase_c.txt 2>&1 &
wait
cat $R/phase_a.txt $R/phase_b.txt $R/phase_c.txt
echo "total $(( $(date +%s) - t0 )) s"
tar czf $OUT/r.tgz -C $OUT r
