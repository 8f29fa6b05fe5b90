#!/bin/bash
# Every example in docs/: its commands run, its output checked for shape
# (tests/docs/doctest.py says how), so the docs cannot go stale.
. "$(dirname "$0")/../lib/common.sh"
GDB_CANNOT_CALL=$(gdb_cannot_call) python3 "$ROOT/tests/docs/doctest.py" "$ROOT" "$WORK" "$@"
