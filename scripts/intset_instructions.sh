#!/bin/bash
# Instructions per transaction of intset (4096 keys in 8192, 20 % updates),
# one thread, under callgrind: the difference between runs of 60,000 and
# 20,000 operations over 40,000, so that start-up, the fill and the final
# check cancel out.
#
#     scripts/intset_instructions.sh [BUILD_DIR] [BACKEND...]
#
# Default backends: seq tl2 pot.  Prints one line per backend and
# structure (rb: red-black tree, hs: hash set).  POTM_* variables in the
# environment apply (e.g. POTM_TURN_BATCH=0: one transaction per turn).
set -euo pipefail
B=${1:-build}
shift || true
BES=("$@")
[ ${#BES[@]} -eq 0 ] && BES=(seq tl2 pot)
ir() {   # backend structure count
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$B/bench/intset-$1" \
		-s "$2" -i 4096 -r 8192 -u 20 -t 1 -n "$3" 2>&1 >/dev/null |
		sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
for be in "${BES[@]}"; do
	for s in rb hs; do
		a=$(ir "$be" "$s" 20000)
		b=$(ir "$be" "$s" 60000)
		echo "$be $s: $(( (b - a) / 40000 )) instructions/transaction"
	done
done
