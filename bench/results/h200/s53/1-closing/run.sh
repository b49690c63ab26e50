# Fifty-third session, call 1: sessions 51 and 52's harness and verdict
# changes (the flushing members' allowance, N's zero set, the fp32 overflow
# caps, the all-zero rule; golden, regress and mutants) and this session's
# (one flush predicate, flush_reach; regress reads the manifest once; the
# what-ifs applied from one table; the false alarms D and G mended), none of
# which has run on
# the GPU machine: no machine would start in either session. Every target
# built (gcc 13); the closing checks (the suite by the README's GPU-machine
# command, the cuda mutants, process per rank against the fake ranks, the
# main job's adversarial cases); memcheck on a small case of every tier; the
# speed figures where the card is an H200 (kernels as session 41's).
. scripts/device-steps.sh
build
closing
sanitize memcheck
speed
