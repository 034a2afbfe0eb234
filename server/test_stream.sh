#!/bin/sh
# t-server-stream: potm-server --stream (server/stream.c).  The same seed's
# stream ends with the same digest in every ordered mode (sequential, pot,
# pot+lsd, pot+fast, pot+lsd+fast; with --applier-executes and
# --worker-spin; pot and pot+lsd with --requests-per-tx, whole
# transactions and a partial last one; pot with --barrier, pot and
# pot+lsd with --extend; pot pipelined in
# entries smaller than a round, with and without digests; on
# potm-server-seq too), every
# request answered and
# the final checks passing; another seed gives another digest; occ and 2pl
# answer everything and pass their checks; bad options exit 2.
#
#   test_stream.sh BUILD/server
set -u
dir=${1:?usage: test_stream.sh BUILD/server}
n=${POTM_STREAM_N:-600}
scale="-w 2 -I 1000 -C 30 --clients 8"
failed=0

fail() {
	echo "FAIL: $*" >&2
	failed=1
}

# field JSON NAME: a field of the run's JSON line (strings unquoted).
field() {
	printf '%s\n' "$1" | sed -n "s/.*\"$2\": \"\{0,1\}\([^\",}]*\).*/\1/p"
}

# run BINARY ARGS...: one stream run, checked; prints its digest.
run() {
	bin=$1
	shift
	out=$("$dir/$bin" "$@") || { fail "$bin $*: exit $?"; return; }
	[ "$(field "$out" event)" = stream ] || { fail "$bin $*: no stream line: $out"; return; }
	[ "$(field "$out" verified)" = true ] || fail "$bin $*: checks failed: $out"
	[ "$(field "$out" errors)" = 0 ] || fail "$bin $*: error responses: $out"
	answered=$(( $(field "$out" ok) + $(field "$out" rolled_back) ))
	[ "$(field "$out" requests)" = "$want" ] && [ "$answered" = "$want" ] ||
		fail "$bin $*: $want requests expected, answered $answered: $out"
	field "$out" digest
}

[ -x "$dir/potm-server-pot" ] || { echo "potm-server-pot not built: skipped"; exit 77; }

for workload in tpcc hot; do
	if [ $workload = tpcc ]; then args="$scale --seed 3"; else args="--clients 8 -I 1000 -C 30 --accounts 8 --workload hot --seed 3"; fi
	want=$n
	ref=$(run potm-server-pot --mode sequential --stream $n $args)
	[ -n "$ref" ] || { fail "$workload: no reference digest"; continue; }
	for m in pot pot+lsd pot+fast pot+lsd+fast; do
		d=$(run potm-server-pot --mode $m --stream $n $args)
		[ "$d" = "$ref" ] || fail "$workload $m: digest $d, sequential's $ref"
	done
	for g in 3 4; do
		d=$(run potm-server-pot --mode pot --stream $n $args --requests-per-tx $g)
		[ "$d" = "$ref" ] || fail "$workload pot --requests-per-tx $g: digest $d, sequential's $ref"
	done
	# pot+lsd with several requests in one transaction: a request reads
	# words an earlier one wrote lazily (through their futures)
	for extra in "--requests-per-tx 4" "--extend 3" "--extend 8 --requests-per-tx 2"; do
		d=$(run potm-server-pot --mode pot+lsd --stream $n $args $extra)
		[ "$d" = "$ref" ] || fail "$workload pot+lsd $extra: digest $d, sequential's $ref"
	done
	# pass by pass; entries of 3 requests, each client group's next
	# proposed on its last response (pipelined), with and without a
	# digest every 2 entries (quiescent points in the continuous walk)
	for extra in "--barrier" "--batch-max 3" "--batch-max 3 --digest-every 2" \
		     "--batch-max 3 --requests-per-tx 2 --digest-every 5" \
		     "--batch-max 1 --workers 4 --digest-every 7" "--extend 2" \
		     "--extend 3 --batch-max 3 --digest-every 4" "--extend 2 --requests-per-tx 2"; do
		d=$(run potm-server-pot --mode pot --stream $n $args $extra)
		[ "$d" = "$ref" ] || fail "$workload pot $extra: digest $d, sequential's $ref"
	done
	if [ $workload = tpcc ]; then
		# One warehouse of 30 customers and many requests: a taken-in
		# request often reads (Order-Status, Stock-Level, Delivery) a
		# word an earlier request of its transaction wrote lazily.
		for s in 3 4; do
			want=20000
			many="--stream 20000 -w 1 -I 1000 -C 30 --clients 64 --digest-every 0 --seed $s"
			r=$(run potm-server-pot --mode sequential $many)
			d=$(run potm-server-pot --mode pot+lsd $many --extend 8)
			[ -n "$r" ] && [ "$d" = "$r" ] ||
				fail "pot+lsd --extend 8, seed $s: digest $d, sequential's $r"
		done
		want=$n
	fi
	d=$(run potm-server-pot --mode sequential --stream $n $args --batch-max 3)
	[ "$d" = "$ref" ] || fail "$workload sequential --batch-max 3: digest $d, sequential's $ref"
	for extra in "--workers 1 --applier-executes" "--workers 3 --worker-spin 1000"; do
		d=$(run potm-server-pot --mode pot+lsd+fast --stream $n $args $extra)
		[ "$d" = "$ref" ] || fail "$workload pot+lsd+fast $extra: digest $d, sequential's $ref"
	done
	if [ -x "$dir/potm-server-seq" ]; then
		d=$(run potm-server-seq --mode sequential --stream $n $args)
		[ "$d" = "$ref" ] || fail "$workload potm-server-seq: digest $d, potm-server-pot's $ref"
	fi
done

# worker_idle_ms: none without workers; a number with them.  How much a
# worker idles at --barrier's quiescent points depends on timing (the
# worker that answers a pass walks and publishes the next one itself), so
# only its form is checked.
want=$n
out=$("$dir/potm-server-pot" --mode sequential --stream $n $scale --seed 3)
[ "$(field "$out" worker_idle_ms)" = 0.000 ] || fail "sequential: worker_idle_ms not 0: $out"
out=$("$dir/potm-server-pot" --mode pot --stream $n $scale --seed 3 --barrier)
idle=$(field "$out" worker_idle_ms)
case "$idle" in
[0-9]*.[0-9][0-9][0-9]) ;;
*) fail "pot --barrier: worker_idle_ms is not a number: $out" ;;
esac

# The digest is of the stream: another seed, another state.
want=$n
a=$(run potm-server-pot --mode pot --stream $n $scale --seed 3)
b=$(run potm-server-pot --mode pot --stream $n $scale --seed 4)
[ -n "$a" ] && [ "$a" != "$b" ] || fail "seeds 3 and 4 end with the same digest $a"
# A partial last round: 13 requests of 8 clients (in entries of 3: the
# last round's second entry holds 2, its third none).
want=13
run potm-server-pot --mode pot+fast --stream 13 $scale >/dev/null
run potm-server-pot --mode pot --stream 13 $scale --batch-max 3 >/dev/null

want=$n
for g in 1 3; do
	[ -x "$dir/potm-server-tl2" ] && run potm-server-tl2 --mode occ --stream $n $scale --requests-per-tx $g >/dev/null
	[ -x "$dir/potm-server-2pl" ] && run potm-server-2pl --mode 2pl --stream $n $scale --requests-per-tx $g >/dev/null
done

for bad in "--stream 0" "--stream 10 --port 7000" "--clients 4" "--stream 10 --workload tpcx" \
	   "--stream 10 --clients 0" "--stream 10 --worker-spin x" "--stream 10 --requests-per-tx 0" \
	   "--stream 10 --requests-per-tx 65" "--stream 10 --mode pot+fast --requests-per-tx 2" \
	   "--stream 10 --mode pot+lsd+fast --requests-per-tx 2" "--stream 10 --barrier=1" \
	   "--stream 10 --extend 65" "--stream 10 --mode pot+fast --extend 2" \
	   "--stream 10 --mode pot+lsd+fast --extend 2" "--stream 10 --mode occ --extend 2"; do
	"$dir/potm-server-pot" $bad >/dev/null 2>&1
	rc=$?
	[ $rc = 2 ] || fail "potm-server-pot $bad: exit $rc, not 2"
done
# one address for two replicas, or for Raft and clients: refused by name
for peers in 1=127.0.0.1:7000,2=127.0.0.1:7000 1=127.0.0.1:7000:7100,2=127.0.0.1:7001:7100 \
	     1=127.0.0.1:7000,2=127.0.0.1:7001:7000 1=127.0.0.1:7000:7000; do
	err=$("$dir/potm-server-pot" --replica 1 --peers $peers 2>&1 >/dev/null)
	rc=$?
	[ $rc = 2 ] && printf '%s' "$err" | grep -q "port" ||
		fail "potm-server-pot --peers $peers: exit $rc: $err"
done
"$dir/potm-server-pot" --replica 1 --peers 1=127.0.0.1:7000,2=127.0.0.2:7000 --help >/dev/null 2>&1 ||
	fail "--peers: one port on two hosts refused"
# A replica that cannot start (its data directory is a file): exit 1 with
# the reason, everything it opened closed (under ASan, a leak is another
# exit status).
notdir=$(mktemp)
err=$("$dir/potm-server-pot" --replica 1 --peers 1=127.0.0.1:7000,2=127.0.0.1:7001 \
	--data-dir "$notdir" -w 1 -I 1000 -C 30 2>&1 >/dev/null)
rc=$?
rm -f "$notdir"
[ $rc = 1 ] || fail "--data-dir on a file: exit $rc, not 1: $err"
[ $failed = 0 ] && echo "t-server-stream: ok"
exit $failed
