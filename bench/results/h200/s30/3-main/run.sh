# Thirtieth session, call 3 (one H200): the main job on the
# session's last code commit (e7b8628): k3, T 8 and 16, every tier where it
# applies, M 1 .. 2048, all three distributions, with its JSON report.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 --target ltt >> $R/build.log 2>&1) || { tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=build/release/bin/ltt
a=$(date +%s)
OMP_NUM_THREADS=16 timeout 480 $L check --backend cuda --dims k3 --tp 8,16 --tokens 1,5,33,128,256,257,2048 --dist all --json $R/main.json --markdown $R/main.md > $R/main.log 2> $R/main.err
echo "main job: exit $? $(( $(date +%s) - a )) s"
tail -3 $R/main.log; tail -3 $R/main.err
python3 -c "import json; j=json.load(open('$R/main.json')); print('finished', j['finished'], 'cases', len(j['cases']), 'failed', sum(not c['pass'] for c in j['cases']))"
$L --version
echo "total $(( $(date +%s) - t0 )) s"
tar czf $OUT/r.tgz -C $OUT r
