# Fiftieth session, call 1: session 49's last harness change (b92b98f, which
# never ran on the GPU machine: no machine would start) and this session's
# (golden and regress read manifests more strictly; make_blocking; the
# Python package's and the flags' reviews: python.package, faults.unseen 14).
# Every target built (gcc 13); the closing checks (the suite by the README's
# GPU-machine command, the cuda mutants, process per rank against the fake
# ranks, the main job's adversarial cases); memcheck on a small case of every
# tier; the speed figures where the card is an H200 (kernels as session 41's).
. scripts/device-steps.sh
build
closing
sanitize memcheck
speed
