#!/usr/bin/env bash
# progress_check.sh MPK WORK_DIR - the tool's progress line on standard error: shown when
# standard error is a terminal and the input is larger than the threshold, cleared at the
# end; never otherwise. The threshold is 64 MiB; MPK_PROGRESS_THRESHOLD (bytes) lowers it so
# that a small input shows the line. The terminal is a pseudo-terminal from script(1).
set -euo pipefail
mpk=$1
work=$2
mkdir -p "$work"
input=$work/zeros.msgpack
head -c 1600000 /dev/zero >"$input"  # 1,600,000 fixint 0: 3.2 MB of JSON Lines
small=$work/small.msgpack
head -c 50000 /dev/zero >"$small"
json=$work/small.json
printf '[1, 2, 3]\n' >"$json"
fail=0
check() {  # check WHAT CONDITION...
  local what=$1
  shift
  if "$@"; then
    echo "ok: $what"
  else
    echo "FAILED: $what"
    fail=1
  fi
}
# on_tty FILE COMMAND: runs COMMAND with standard error (and input) on a pseudo-terminal,
# standard output to /dev/null; FILE receives what the terminal showed.
on_tty() {
  local file=$1
  shift
  script -qec "$* >/dev/null" /dev/null </dev/null >"$file"
}
clear=$'\r\e[K'

# 1. Over the threshold, on a terminal: percentages that grow, then the line is cleared.
MPK_PROGRESS_THRESHOLD=1000 on_tty "$work/to_json.tty" "'$mpk' to-json '$input'"
lines=$(grep -a -o 'mpk: [0-9]*% ([0-9]* of 1 MiB)' "$work/to_json.tty" | wc -l)
check "to-json shows several progress lines ($lines)" test "$lines" -ge 3
check "to-json clears the line at the end" test "$(tail -c 4 "$work/to_json.tty")" = "$clear"
first=$(grep -a -o 'mpk: [0-9]*%' "$work/to_json.tty" | head -1 | tr -dc 0-9)
last=$(grep -a -o 'mpk: [0-9]*%' "$work/to_json.tty" | tail -1 | tr -dc 0-9)
check "the percentage grows ($first% .. $last%)" test "$first" -lt "$last"
MPK_PROGRESS_THRESHOLD=5 on_tty "$work/from_json.tty" "'$mpk' from-json '$json'"
check "from-json shows its line" grep -a -q 'mpk: 0% (0 of 0 MiB)' "$work/from_json.tty"
for cmd in validate stats dump; do
  MPK_PROGRESS_THRESHOLD=1000 on_tty "$work/$cmd.tty" "'$mpk' $cmd '$small'"
  check "$cmd shows its line" grep -a -q 'mpk: [0-9]*% (' "$work/$cmd.tty"
done

# 2. Under the threshold (the default 64 MiB), on a terminal: nothing.
on_tty "$work/default.tty" "'$mpk' to-json '$input'"
check "no line under the default threshold" test ! -s "$work/default.tty"
MPK_PROGRESS_THRESHOLD=1600000 on_tty "$work/equal.tty" "'$mpk' to-json '$input'"
check "no line for an input of exactly the threshold" test ! -s "$work/equal.tty"

# 3. Standard error not a terminal: nothing, whatever the threshold.
MPK_PROGRESS_THRESHOLD=1000 "$mpk" to-json "$input" >/dev/null 2>"$work/not_tty.err"
check "no line when standard error is a file" test ! -s "$work/not_tty.err"
exit $fail
