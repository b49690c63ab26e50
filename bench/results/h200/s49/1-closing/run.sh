# Forty-ninth session, call 1, a fresh machine: this session's tree, whose
# change is in the harness only (verify refuses a one-shot case relabelled
# ring, a NUL in any JSON ltt reads, says loops of links and names too long,
# waits on a FIFO aloud, names case-like tensors it does not read): every
# target built (gcc 13, nlohmann-json 3.11.3, where the NUL check's
# parse_error::create must compile too); device-steps.sh's closing checks
# (the suite by the README's GPU-machine command, with faults.unseen's new
# checks; the cuda mutants; process per rank against the fake ranks; the
# main job's adversarial cases); the speed figures where the card is an
# H200; compute-sanitizer's memcheck; to the deadline.
. scripts/device-steps.sh
build
closing
speed
sanitize memcheck
