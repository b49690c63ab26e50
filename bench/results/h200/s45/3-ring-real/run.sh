# Forty-fifth session, call 3, call 2's machine kept warm (its build kept):
# ltt's cuda ring at M 8192 on realistic inputs, T 16 (session 44's refused
# call was for it). Run as the call's command line:
LTT_DEADLINE_S=230 bash -c '. scripts/device-steps.sh; s ring8192_real_t16 225 "$L" check --backend cuda --dims k3 --tokens 8192 --tp 16 --dist realistic --algo ring --json ring8192_real_t16.json; rows ring8192_real_t16.json'
