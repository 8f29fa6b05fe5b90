#!/bin/bash
# The layer rule of libreplay/README.md, checked on the built objects and the sources:
# a folder may use (call, read, include) only the folders below it. Bottom to top:
LAYERS="sched base log engine inputs pthread signals io main tools"
# sched/ is a library of its own (green threads) and uses nothing of libreplay's; main
# is libreplay/main.c, which joins the layers; tools/ are programs on top (replay-dump).
# Uses: the linker's view (nm: a symbol one object leaves undefined that another
# defines; libc's names count too, since libreplay defines read, open, clock_gettime...)
# and #include lines. Prints one line per use that points up or sideways, then PASS or
# FAIL and "N passed, M failed" like the other suites.
# The engine's rooms (libreplay/engine/README.md) follow the same rule inside engine/,
# bottom to top (its headers in engine/ itself are shared by every room):
ROOMS="core counter schedule ending hunt races session"
# A room reaches a higher one only through a hook (core.h: rp_up, rp_resumed_hook,
# rp_session_fatal_hook), never by name: no call from a room to a higher one's symbols
# is allowed (object symbol, one a line, would name an exception).
ROOM_ARROWS=""
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OBJ=$ROOT/build/obj
pass=0 fail=0

rank() {
	local i=0 l
	for l in $LAYERS; do
		[ "$l" = "$1" ] && { echo $i; return; }
		i=$((i + 1))
	done
	echo -1
}

# The layer of a path under build/obj or the source tree.
layer_of() {
	case $1 in
	*/sched/*) echo sched ;;
	*/libreplay/main.*) echo main ;;
	*/libreplay/tools/*) echo tools ;;
	*/libreplay/*/*) local p=${1#*/libreplay/}; echo "${p%%/*}" ;;
	*) echo none ;;
	esac
}

if [ ! -d "$OBJ/libreplay" ] || [ ! -d "$OBJ/sched" ]; then
	echo "FAIL layers: no objects under build/obj (run make first)"
	echo "0 passed, 1 failed"
	exit 1
fi

# PASS with what holds, or every offending line and FAIL with how many.
verdict() {
	if [ -z "$1" ]; then
		echo "PASS layers: $2"
		pass=$((pass + 1))
	else
		echo "$1"
		echo "FAIL layers: $(echo "$1" | wc -l) $3 point up"
		fail=$((fail + 1))
	fi
}

syms=$(mktemp)
trap 'rm -f "$syms"' EXIT
# Uses that point up, from "layer D sym object" and "layer U sym object" lines.
upward_uses() {
	awk -v layers="$LAYERS" '
	BEGIN { n = split(layers, a, " "); for (i = 1; i <= n; i++) r[a[i]] = i }
	$2 == "D" { if (!($3 in def)) def[$3] = $1; else if (def[$3] != $1) def[$3] = def[$3] " " $1 }
	$2 == "U" { use[NR] = $0 }
	END {
		for (k in use) {
			split(use[k], u, " ")
			if (!(u[3] in def)) continue
			split(def[u[3]], d, " ")
			for (j in d) if (d[j] != u[1] && r[d[j]] > r[u[1]])
				printf "%s uses %s, defined in %s/ (a higher layer)\n", u[4], u[3], d[j]
		}
	}' "$1" | sort -u
}

# The check must be able to fail: a log object calling the inputs layer's open().
printf '%s\n' "log U open log/x.o" "inputs D open inputs/y.o" "log D rp_log_x log/x.o" \
	"engine U rp_log_x engine/z.o" >"$syms"
if [ "$(upward_uses "$syms")" = "log/x.o uses open, defined in inputs/ (a higher layer)" ]; then
	echo "PASS layers: the check catches a use that points up (negative control)"
	pass=$((pass + 1))
else
	echo "FAIL layers: the check misses a use that points up (negative control)"
	fail=$((fail + 1))
fi

# 1. Symbols: "layer D sym object" for definitions, "layer U sym object" for uses.
for o in $(find "$OBJ/sched" "$OBJ/libreplay" -name '*.o' | sort); do
	src=${o#$OBJ/}; src=${src%.o}
	[ -f "$ROOT/$src.c" ] || [ -f "$ROOT/$src.S" ] || continue # left from an older tree
	l=$(layer_of "$o")
	nm "$o" | awk -v l="$l" -v o="${o#$OBJ/}" '
		$1 == "U" { print l, "U", $2, o; next }
		NF == 3 && $2 ~ /^[TDBRVWCGS]$/ { print l, "D", $3, o }'
done >"$syms"
verdict "$(upward_uses "$syms")" "every object uses only its own layer and those below" "uses"

# 2. Includes: a source includes headers of its own layer and those below.
bad=$(cd "$ROOT" && for f in $(git ls-files 'sched/*.[chS]' 'libreplay/*.[chS]'); do
	l=$(layer_of "/$f"); [ "$l" = none ] && continue
	grep -n '^#include "' "$f" | while IFS=: read -r line inc; do
		h=${inc#*\"}; h=${h%%\"*}
		case $h in
		*/*) hl=${h%%/*} ;;
		libreplay.h) hl=base ;; # the public header: constants only
		green.h|sched*.h) hl=sched ;;
		*) [ -f "$(dirname "$f")/$h" ] && hl=$(layer_of "/$(dirname "$f")/$h") || hl=sched ;;
		esac
		[ "$hl" = libreplay ] && continue
		if [ "$l" = sched ] && [ "$hl" != sched ]; then
			echo "$f:$line includes $h (sched/ includes nothing of libreplay)"
		elif [ "$(rank "$hl")" -gt "$(rank "$l")" ]; then
			echo "$f:$line includes $h ($hl/ is above $l/)"
		fi
	done
done)
verdict "$bad" "every #include names its own layer or one below" "includes"

# 3. The engine's rooms: the same two checks inside libreplay/engine/, by room.
room_of() {
	case $1 in
	*/libreplay/engine/*/*) local p=${1#*/libreplay/engine/}; echo "${p%%/*}" ;;
	*/libreplay/engine/*) echo shared ;; # its headers: what every room may include
	*) echo none ;;
	esac
}
# Uses of a higher room's symbols, but the arrows ROOM_ARROWS names (a downward one,
# hunt's use of counter's, is fine).
upward_rooms() {
	local nl=$'\n'
	LAYERS="shared $ROOMS" upward_uses "$1" | while read -r o _ sym _; do
		sym=${sym%,}
		case "$ROOM_ARROWS$nl" in *"$nl${o#libreplay/engine/} $sym$nl"*) continue ;; esac
		echo "$o uses $sym, defined in a higher room"
	done
}
printf '%s\n' "counter U rp_hunt_step libreplay/engine/counter/x.o" \
	"hunt D rp_hunt_step libreplay/engine/hunt/y.o" \
	"hunt U rp_sic_init libreplay/engine/hunt/z.o" \
	"counter D rp_sic_init libreplay/engine/counter/sic.o" >"$syms"
if [ "$(upward_rooms "$syms")" = "libreplay/engine/counter/x.o uses rp_hunt_step, defined in a higher room" ]; then
	echo "PASS layers: the rooms' check catches a call that points up (negative control)"
	pass=$((pass + 1))
else
	echo "FAIL layers: the rooms' check misses a call that points up (negative control)"
	fail=$((fail + 1))
fi
for o in $(find "$OBJ/libreplay/engine" -name '*.o' | sort); do
	src=${o#$OBJ/}; src=${src%.o}
	[ -f "$ROOT/$src.c" ] || [ -f "$ROOT/$src.S" ] || continue
	r=$(room_of "$o")
	nm "$o" | awk -v l="$r" -v o="${o#$OBJ/}" '
		$1 == "U" { print l, "U", $2, o; next }
		NF == 3 && $2 ~ /^[TDBRVWCGS]$/ { print l, "D", $3, o }'
done >"$syms"
verdict "$(upward_rooms "$syms")" \
	"every engine room calls only itself and the rooms below ($(echo "$ROOM_ARROWS" | grep -c .) arrows up named)" "calls"
bad=$(cd "$ROOT" && for f in $(git ls-files 'libreplay/engine/*/*.[chS]'); do
	r=$(room_of "/$f")
	grep -n '^#include "' "$f" | while IFS=: read -r line inc; do
		h=${inc#*\"}; h=${h%%\"*}
		case $h in
		engine/*) hr=$(room_of "/libreplay/$h") ;;
		*/*) continue ;; # another layer's: checked above
		*) [ -f "$(dirname "$f")/$h" ] && hr=$r || continue ;;
		esac
		[ "$hr" = shared ] && continue
		ROOMS="$ROOMS" awk -v a="$r" -v b="$hr" 'BEGIN { n = split(ENVIRON["ROOMS"], x, " ")
			for (i = 1; i <= n; i++) k[x[i]] = i; exit !(k[b] > k[a]) }' &&
			echo "$f:$line includes $h ($hr/ is above $r/)"
	done
done)
verdict "$bad" "every engine room includes only its own headers, the shared ones and those below" "includes"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
