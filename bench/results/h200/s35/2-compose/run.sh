# Thirty-fifth session, call 2 (asked for nvidia-h200): call 1's
# bench/torch/compose.py timed torch.compile's RMSNorm at 0.86x and 0.89x of
# the roofline on the H100 (0.85-0.90x in every earlier session on the H200):
# faster than a copy of the same bytes. Its graph let each call's result go at
# once, so the pool gave the next call the same output and its writes could
# stay in L2; ltt bench rotates its outputs. compose.py now keeps every call's
# result. Both, in this call, beside ltt bench's RMSNorm and tier 0 rows: the
# script as it was (the one line undone by sed, into a temporary file) and as
# it is now.
set -uo pipefail
R=$(mktemp -d)/r; mkdir -p $R  # tarred into $OUT at the end (call 1 wrote more files than come back)
trap 'tar czf $OUT/r.tgz -C $(dirname $R) r' EXIT
export NCCL_NVLS_ENABLE=0
t0=$(date +%s)
nvidia-smi -L | tee $R/gpu.txt
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 --target ltt >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
old=$(mktemp --suffix=.py)
sed 's/kept.append(\(fns\[i % len(fns)\]()\))/\1/' bench/torch/compose.py > $old
echo "the script as it was differs from compose.py in $(diff $old bench/torch/compose.py | grep -c '^>') line(s)"
timeout 70 $L bench --backend cuda --dims k3 --tp 8 --tier 1 --tokens 2048,8192 --json $R/bench_norm.json > $R/bench_norm.out 2>&1; echo "bench_norm exit $?"
grep -E "copy bandwidth" $R/bench_norm.out | cut -c1-160
grep -E "^ +(rmsnorm|rmsnorm-pdl|copy-norm) " $R/bench_norm.out
for v in old new; do
  f=bench/torch/compose.py; [ $v = old ] && f=$old
  timeout 120 python3 $f --json $R/compose_$v.json > $R/compose_$v.out 2>&1; echo "compose ($v) exit $?"
  grep -v '^\[W' $R/compose_$v.out | grep -E "copy|rmsnorm|tier0_compile"
done
timeout 70 $L bench --backend cuda --dims k3 --tp 8 --tier 0 --tokens 1,5,33,128 --json $R/bench.json > $R/bench.out 2>&1; echo "bench exit $?"
grep -E "^ +(tier0-rank|tier0-cublas) " $R/bench.out
$L --version
echo "total $(( $(date +%s) - t0 )) s"
