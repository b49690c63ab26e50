# Forty-fourth session, call 3, the machine of calls 1 and 2 kept warm:
# call 2's suite step found no test binaries (calls 1 and 2 built only the
# ltt target, so every ltt_tests entry was "Not Run"; its log is kept in
# 2-closing/r/suite.out). Build every target, then the suite by the README's
# GPU-machine command; then ltt's cuda ring at M 8192 on adversarial inputs,
# T 16, under the row check; to the deadline.
. scripts/device-steps.sh
build
s suite 300 "$ROOT/scripts/ctest-gpu-host.sh" -j8
tail -4 "$R/suite.out"
s ring8192_adv_t16 200 "$L" check --backend cuda --dims k3 --tokens 8192 --tp 16 --dist adversarial --algo ring --json ring8192_adv_t16.json
rows ring8192_adv_t16.json
