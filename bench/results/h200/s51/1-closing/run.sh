# Fifty-first session, call 1: this session's harness changes (session 50's
# named findings; the reviews of the reports, verify and simulate --fit:
# faults.unseen 15-17, html.report 7, simulate.outputs, python.package) and
# session 50's last two commits, none of which ran on the GPU machine. Every
# target built (gcc 13); the closing checks (the suite by the README's
# GPU-machine command, the cuda mutants, process per rank against the fake
# ranks, the main job's adversarial cases); memcheck on a small case of every
# tier; the speed figures where the card is an H200 (kernels as session 41's).
. scripts/device-steps.sh
build
closing
sanitize memcheck
speed
