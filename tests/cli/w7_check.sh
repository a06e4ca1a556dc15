#!/usr/bin/env bash
# w7_check.sh MPK WORK_DIR - the W7 documents through `mpk to-json` (plain mode) equal what
# msgpack-python + json give for the same bytes (tests/cli/w7_reference.py).
#
# JSON texts are compared as values, not as text: both are read back by `mpk from-json`,
# which keeps integers as integers, other numbers as float64 and keys in order, and the
# resulting MessagePack bytes must be equal. (Number spelling - "1e+16" against "1e16" - and
# escapes may differ between the two writers; the values may not.)
set -euo pipefail
mpk=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
/usr/bin/python3 "$here/w7_reference.py" "$work"
fail=0
for name in tiny small medium large example; do
  "$mpk" to-json "$work/$name.msgpack" >"$work/$name.mpk.json"
  "$mpk" from-json "$work/$name.mpk.json" >"$work/$name.mpk.values"
  "$mpk" from-json "$work/$name.json" >"$work/$name.python.values"
  if cmp -s "$work/$name.mpk.values" "$work/$name.python.values"; then
    echo "$name: same values"
  else
    echo "$name: DIFFERENT values (mpk: $work/$name.mpk.json, python: $work/$name.json)"
    fail=1
  fi
done
exit $fail
