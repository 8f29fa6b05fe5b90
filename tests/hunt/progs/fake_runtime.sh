#!/bin/sh
# A stand-in for a program built with sicc whose runtime has --hunt and --timeout:
# it prints its arguments (what replay-hunt passed) and a line on stderr, and exits
# with the status named by FAKE_RC (default 0).
case "$1" in
--replay-help)
	echo "usage: $0 [libreplay flags] [--] [program arguments]"
	echo "  --hunt[=SEED]  --timeout=DURATION"
	exit 0 ;;
esac
echo "args: $*"
echo "a line on stderr" >&2
exit "${FAKE_RC:-0}"
