#!/bin/bash
# make stress: the campaigns behind tests/durability's checks, longer (about 30 min on
# a loaded 2-core machine), with counts printed. Not part of make check.
#   1. kill campaign: 100 recordings ended at a random moment by SIGKILL or by a signal
#      that ends a process (its default action): SIGKILL loses at most 2 ms of
#      schedule; every other signal leaves END naming it, and the replay dies of the
#      same signal where the recording did; then as many in the first 100 ms, while
#      the session starts: 0 lost ENDs;
#   2. full disk: recordings into a 64 KiB tmpfs and past a file size limit;
#   3. forged logs: 2,000 logs with one record changed and every checksum recomputed
#      (tests/durability/forge.c): each replay ends, in a documented way;
#   4. 200 record/replay pairs under CPU load (two busy loops): each replays exactly.
# Every run is bounded by a timeout it must never reach.
#   tests/durability/stress.sh [KILLS [FORGED [PAIRS]]]
. "$(dirname "$0")/../lib/common.sh"
unset LIBREPLAY_OPTS
KILLS=${1:-100} FORGED=${2:-2000} PAIRS=${3:-200}
P="$ROOT/tests/durability/progs"
R="$ROOT/tests/replay/progs"
DUMP="$ROOT/build/bin/replay-dump"
cd "$WORK" || exit 1
for p in clock_trail:$P counters:$P clock_loop:$P lone_sleeper:$R sleeps:$R condvar:$R spin_flag:$R \
	inputs:$R racy_counter:$ROOT/examples heisenbug:$ROOT/examples; do
	"$SICC" -O2 -g -o "${p%%:*}" "${p#*:}/${p%%:*}.c" || { fail "build ${p%%:*}"; summary; exit 1; }
done
gcc -std=gnu11 -O2 -D_GNU_SOURCE -I"$ROOT/libreplay" -I"$ROOT/sched" -o forge \
	"$ROOT/tests/durability/forge.c" "$ROOT/build/lib/libreplay-log.a" || { fail "forge: build"; summary; exit 1; }
rnd() { echo $(((RANDOM << 15 | RANDOM) % $1)); }

# ---- 1. kill campaign ---------------------------------------------------------------------
signals=(KILL KILL KILL TERM INT HUP QUIT USR1 USR2 ALRM PIPE XCPU VTALRM PWR RTMIN+1 RTMAX)
declare -A by_sig
hung=0 bad=0 worst=0 kills=0
for i in $(seq 1 "$KILLS"); do
	sig=${signals[$(rnd ${#signals[@]})]}
	env --default-signal ./clock_trail --record kill.bin --chaos=$((i * 131)) >kill.rec 2>kill.err &
	pid=$!
	ms=$((50 + $(rnd 1500)))
	sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
	kill -s "$sig" $pid 2>/dev/null
	wait $pid
	rc=$?
	num=$(kill -l "$sig" 2>/dev/null || kill -l "SIG$sig")
	[ "$sig" = RTMIN+1 ] && num=$(($(kill -l RTMIN) + 1))
	[ $rc -eq 0 ] && continue # (it ended by itself first)
	kills=$((kills + 1))
	by_sig[$sig]=$((${by_sig[$sig]:-0} + 1))
	timeout 300 env --default-signal ./clock_trail --replay kill.bin >kill.rep 2>kill.rep.err
	rrc=$?
	if [ $rrc -eq 124 ]; then hung=$((hung + 1)); echo "kill $i ($sig at $ms ms): the replay hung"; continue; fi
	if [ "$sig" = KILL ]; then
		lost=$(awk 'NR == FNR { rec[FNR] = $1; n = FNR; next }
			    { m = FNR } rec[FNR] != $1 && !d { d = FNR }
			    END { if (!d) d = m + 1; print (d > n ? 0 : rec[n] - rec[d]) }' kill.rec kill.rep)
		[ "$lost" -gt "$worst" ] && worst=$lost
		if [ $rc -ne 137 ] || [ $rrc -ne 0 ] || [ "$lost" -gt 2500000 ]; then
			bad=$((bad + 1)); echo "kill $i (KILL at $ms ms): rc $rc, replay $rrc, $lost ns lost: $(head -c 200 kill.rep.err)"
		fi
	else
		rec_lines=$(wc -l <kill.rec) rep_lines=$(wc -l <kill.rep)
		if [ $rc -ne $((128 + num)) ] || ! "$DUMP" kill.bin 2>/dev/null | grep -q "END .*killed by signal $num " ||
			[ $rrc -ne $((128 + num)) ] || ! cmp -s kill.rep <(head -n "$rep_lines" kill.rec) ||
			{ [ $((rec_lines - rep_lines)) -gt 1 ] && ! grep -q "only roughly" kill.rep.err; }; then
			bad=$((bad + 1)); echo "kill $i ($sig at $ms ms): rc $rc, replay $rrc, lines $rec_lines/$rep_lines: $(head -c 200 kill.rep.err)"
		fi
	fi
done
echo "kill campaign: $kills recordings killed ($(for s in "${!by_sig[@]}"; do printf '%s %s, ' "$s" "${by_sig[$s]}"; done)), $hung replays hung, $bad wrong; SIGKILL lost at most $worst ns of schedule"
[ $hung -eq 0 ] && [ $bad -eq 0 ] && pass "kill campaign: $kills recordings" || fail "kill campaign: $hung hung, $bad wrong"

# ---- 1b. kills at start-up --------------------------------------------------------------------
# A signal in the first 100 ms, while the session starts: the log exists before the
# handlers do, and such a signal is held until they are there (session.c). Each log
# ends with END naming the signal (0 lost), and its replay dies of it too; a kill
# before the log was created leaves none.
lost_end=0 early_kills=0 nolog=0
for i in $(seq 1 "$KILLS"); do
	sig=${signals[$((3 + $(rnd $((${#signals[@]} - 3)))))]} # not KILL
	rm -f early.bin
	env --default-signal ./clock_trail --record early.bin --chaos=$((i * 7)) >early.rec 2>early.err &
	pid=$!
	ms=$(rnd 100)
	sleep "$(printf '0.%03d' "$ms")"
	kill -s "$sig" $pid 2>/dev/null
	wait $pid
	rc=$?
	[ $rc -eq 0 ] && continue
	early_kills=$((early_kills + 1))
	if [ ! -e early.bin ]; then nolog=$((nolog + 1)); continue; fi
	num=$(kill -l "$sig" 2>/dev/null || kill -l "SIG$sig")
	[ "$sig" = RTMIN+1 ] && num=$(($(kill -l RTMIN) + 1))
	(timeout 300 env --default-signal ./clock_trail --replay early.bin >early.rep 2>early.rep.err)
	rrc=$?
	if ! "$DUMP" early.bin 2>/dev/null | grep -q "END .*killed by signal $num " || [ $rrc -ne $((128 + num)) ]; then
		lost_end=$((lost_end + 1))
		echo "start-up kill $i ($sig at $ms ms): rc $rc, replay $rrc: $(head -c 200 early.rep.err)"
	fi
done
echo "start-up kills: $early_kills recordings killed in their first 100 ms ($nolog before the log existed), $lost_end without END or replaying otherwise"
[ $lost_end -eq 0 ] && pass "start-up kills: $early_kills, 0 lost ENDs" || fail "start-up kills: $lost_end lost ENDs"

# ---- 2. full disk -------------------------------------------------------------------------
mkdir -p full
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=64k tmpfs full 2>/dev/null; then
	ok=0
	for n in 1 2 3 4 5; do
		rm -f full/*
		timeout 120 ./clock_loop --record full/full.bin -- $((100000 * n)) >full.out 2>full.err
		rc=$?
		cp full/full.bin full.bin
		timeout 120 ./clock_loop --replay full.bin >/dev/null 2>full.rep.err
		rrc=$?
		[ $rc -eq 0 ] && [ $rrc -eq 0 ] && [ "$(grep -c 'No space left on device' full.err)" -eq 2 ] &&
			grep -q "log ends early" full.rep.err && ok=$((ok + 1))
	done
	umount full
	echo "full disk: $ok of 5 recordings into a 64 KiB tmpfs said so twice, exited 0, and replayed their prefix"
	[ $ok -eq 5 ] && pass "full disk" || fail "full disk: $ok of 5"
else
	echo "SKIP full disk: mounting a tmpfs needs root"
fi
(ulimit -f 16 && exec timeout 120 ./clock_loop --record fsize.bin -- 300000 >/dev/null 2>fsize.err)
rc=$?
[ $rc -eq 0 ] && [ "$(grep -c 'File too large' fsize.err)" -eq 2 ] && pass "file size limit: said twice, exit 0" ||
	fail "file size limit: exit $rc: $(head -c 200 fsize.err)"

# ---- 3. forged logs -----------------------------------------------------------------------
bases=(lone_sleeper sleeps condvar spin_flag inputs racy_counter heisenbug clock_trail)
for b in "${bases[@]}"; do
	args=()
	[ "$b" = clock_trail ] && args=(-- 300)
	timeout 120 ./"$b" --record "$b.base.bin" --chaos=7 "${args[@]}" >/dev/null 2>&1
done
declare -A outcome by_kind
hung=0 bad=0
for i in $(seq 1 "$FORGED"); do
	b=${bases[$((i % ${#bases[@]}))]}
	what=$(./forge "$b.base.bin" forged.bin "$i" 2>&1) || { outcome[unforgeable]=$((${outcome[unforgeable]:-0} + 1)); continue; }
	kind=${what#*: } kind=${kind%% *}
	timeout 60 ./"$b" --replay forged.bin >/dev/null 2>forged.err
	rc=$?
	case $rc in
	0) o="replayed (exit 0)" ;;
	86) o="diverged (86)" ;;
	2) o="refused (2)" ;;
	124) o="HUNG"; hung=$((hung + 1)) ;;
	*) o="ended by the program ($rc)" ;;
	esac
	outcome[$o]=$((${outcome[$o]:-0} + 1))
	# One line (a context warning may come before), from libreplay; no runtime abort.
	if { [ $rc -eq 86 ] || [ $rc -eq 2 ]; } && { [ "$(grep -vc '^libreplay: warning:' forged.err)" -ne 1 ] ||
		! grep -v '^libreplay: warning:' forged.err | grep -q '^libreplay: '; }; then
		bad=$((bad + 1)); echo "forged $i ($b: $what): exit $rc, not one line: $(head -c 300 forged.err)"
	elif [ $rc -eq 134 ] && grep -q '^libreplay: ' forged.err && ! grep -q 'died of SIGABRT' forged.err; then
		bad=$((bad + 1)); echo "forged $i ($b: $what): the runtime aborted: $(head -c 300 forged.err)"
	fi
done
echo "forged logs: $FORGED: $(for o in "${!outcome[@]}"; do printf '%s %s, ' "${outcome[$o]}" "$o"; done)$bad badly reported"
[ $hung -eq 0 ] && [ $bad -eq 0 ] && pass "forged logs: $FORGED, none hung, each ended in one line and a documented status" ||
	fail "forged logs: $hung hung, $bad badly reported"

# ---- 4. record/replay pairs under CPU load -------------------------------------------------
hogs=()
for h in 1 2; do (while :; do :; done) & hogs+=($!); done
progs=(racy_counter spin_flag condvar sleeps inputs lone_sleeper heisenbug)
hung=0 bad=0
for i in $(seq 1 "$PAIRS"); do
	p=${progs[$((i % ${#progs[@]}))]}
	timeout 300 ./"$p" --record pair.bin --chaos=$((i * 977)) >pair.rec 2>/dev/null
	rc=$?
	timeout 300 ./"$p" --replay pair.bin >pair.rep 2>pair.err
	rrc=$?
	if [ $rc -eq 124 ] || [ $rrc -eq 124 ]; then hung=$((hung + 1)); echo "pair $i ($p): a run hung"
	elif [ $rc -ne $rrc ] || ! cmp -s pair.rec pair.rep; then
		bad=$((bad + 1)); echo "pair $i ($p): rc $rc vs $rrc: $(head -c 200 pair.err)"
	fi
done
kill "${hogs[@]}"
wait "${hogs[@]}" 2>/dev/null
echo "under load: $PAIRS record/replay pairs, $hung hung, $bad replayed differently"
[ $hung -eq 0 ] && [ $bad -eq 0 ] && pass "$PAIRS pairs under two busy loops replay exactly" ||
	fail "under load: $hung hung, $bad differed"
summary
