# Thirty-fourth session, call 1: session 33's prepared call, run unchanged on
# the tree in commit.txt (the machine lent was an H100 80GB HBM3, r/gpu.txt):
exec env LTT_DEADLINE_S=${LTT_DEADLINE_S:-560} bash "$(dirname "$0")/../../s33/1-all/run.sh"
