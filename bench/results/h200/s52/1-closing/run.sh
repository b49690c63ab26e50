# Fifty-second session, call 1: session 50's last two commits and all of
# session 51's harness changes (faults.unseen 15-17, html.report 7,
# simulate.outputs, python.package), none of which has run on the GPU machine
# (session 51 found no machine). Every target built (gcc 13); the closing
# checks (the suite by the README's GPU-machine command, the cuda mutants,
# process per rank against the fake ranks, the main job's adversarial cases);
# memcheck on a small case of every tier; the speed figures where the card is
# an H200 (kernels as session 41's).
. scripts/device-steps.sh
build
closing
sanitize memcheck
speed
