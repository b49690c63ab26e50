# Twenty-fifth session, call 2 (one H200): the whole suite on this tree
# (13688df) by the README's GPU-machine command, now with torch.tiers_cpu and
# torch.tiers_cpu_ring (PyTorch's own ops on the CPU, judged by ltt verify;
# here torch 2.11's CPU kernels, not Debian's 1.13). Beside it, PyTorch on
# the GPU at the sizes call 1 left out: k3 with fp32 GEMMs at M 256 and 2048
# (T 8), and torch.compile with the rounding points kept (--keep-casts) at k3
# sizes, T 8 and 16, M 1, 5, 33. Every correct output must pass; every
# planted bug that changes the output must fail.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=build/release/bin/ltt
t() { local n=$1 to=$2; shift 2; local a=$(date +%s); OMP_NUM_THREADS=4 timeout $to python3 scripts/torch_tiers.py --ltt $L --work /tmp/tt_$n --device cuda --out $R/$n.md --json $R/$n.json "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E 'correct outputs|bugs' $R/$n.log | tail -2 | tr '\n' ' ')"; grep -E "ERROR|correct  #  .*FAIL|<<" $R/$n.log | head -4; }
( a=$(date +%s); OMP_NUM_THREADS=2 timeout 300 scripts/ctest-gpu-host.sh -j6 > $R/ctest_all.log 2>&1; echo "ctest-gpu-host, whole suite: exit $? $(( $(date +%s) - a )) s"
  grep -E "tests passed|tests failed|ctest-gpu-host|\(Failed\)|Timeout|torch\." $R/ctest_all.log ) > $R/phase_a.txt 2>&1 &
( t k3_large 330 --gemm fp32 --dims k3 --tp 8 --tokens 256,2048 --dist realistic,adversarial ) > $R/phase_b.txt 2>&1 &
( t k3_compile 330 --gemm fp32 --compile --keep-casts --dims k3 --tp 8,16 --tokens 1,5,33 --dist realistic,adversarial ) > $R/phase_c.txt 2>&1 &
wait
cat $R/phase_a.txt $R/phase_b.txt $R/phase_c.txt
grep -E "# correct outputs" build/release/Testing/Temporary/LastTest.log > $R/torch_cpu_totals.txt 2>&1; cat $R/torch_cpu_totals.txt
python3 -c "import torch; print('torch', torch.__version__)"
echo "total $(( $(date +%s) - t0 )) s"
tar czf $OUT/r.tgz -C $OUT r
