# Fiftieth session, call 1: the tree session 49 ended on (its last harness
# change, b92b98f, never ran on the GPU machine: no machine would start).
# Every target built (gcc 13); the closing checks (the suite by the README's
# GPU-machine command, the cuda mutants, process per rank against the fake
# ranks, the main job's adversarial cases); memcheck on a small case of every
# tier; the speed figures where the card is an H200 (kernels as session 41's).
. scripts/device-steps.sh
build
closing
sanitize memcheck
speed
