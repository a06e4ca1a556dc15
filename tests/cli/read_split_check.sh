#!/usr/bin/env bash
# read_split_check.sh MPK WORK_DIR - to-json and get find where values end in the bytes at
# hand as they convert (a value cut by a read is converted again once it has arrived): with
# reads of several sizes, over an input larger than one read (256 KiB) and with an error far
# into it, their output, errors and exit status equal those of to-json through the stream
# decoder's values (what --max-message-size, with a bound no value reaches, takes).
set -euo pipefail
mpk=$1
work=$2
mkdir -p "$work"
# About 600 KB of small documents (numbers, strings, nesting), then a malformed value.
message='{"id": 123456789, "name": "a name", "tags": ["red", "blue"], "price": 12.75, "items": [{"sku": "A-1", "n": -5}]}'
json=$work/input.json
: >"$json"
for _ in $(seq 6000); do printf '%s\n' "$message"; done >>"$json"
good=$work/good.msgpack
"$mpk" from-json "$json" >"$good"
bad=$work/bad.msgpack
{ cat "$good"; printf '\x92\x01\xc1'; cat "$good"; } >"$bad"

fail=0
# check NAME ARGS...: the command's output, stderr and status, against the reference.
check() {
  local name=$1
  shift
  local status=0
  "$@" >"$work/$name.out" 2>"$work/$name.err" || status=$?
  echo "$status" >"$work/$name.status"
}
for input in good bad; do
  check "ref_$input" "$mpk" to-json --max-message-size 1000000000 "$work/$input.msgpack"
  check "refget_$input" "$mpk" get .items "$work/$input.msgpack"
  for chunk in default 5 1000 70000; do
    for cmd in to-json get; do
      args=(to-json)
      ref=ref_$input
      if [[ $cmd == get ]]; then
        args=(get .items)
        ref=refget_$input
      fi
      name=${cmd}_${input}_$chunk
      if [[ $chunk == default ]]; then
        check "$name" "$mpk" "${args[@]}" "$work/$input.msgpack"
      else
        check "$name" env MPK_READ_CHUNK=$chunk "$mpk" "${args[@]}" "$work/$input.msgpack"
      fi
      for part in out err status; do
        if ! cmp -s "$work/$ref.$part" "$work/$name.$part"; then
          echo "FAIL: $cmd, $input input, reads of $chunk bytes: standard $part differs"
          fail=1
        fi
      done
    done
  done
done
# The reference itself: every document converted, and the error at its offset.
lines=$(wc -l <"$work/ref_good.out")
if [[ $lines != 6000 ]]; then
  echo "FAIL: to-json wrote $lines lines of 6000"
  fail=1
fi
size=$(stat -c %s "$good")
want="offset $((size + 2)): invalid marker byte 0xc1"
if [[ $(cat "$work/ref_bad.err") != "$want" || $(cat "$work/ref_bad.status") != 1 ]]; then
  echo "FAIL: to-json of the bad input: '$(cat "$work/ref_bad.err")', expected '$want'"
  fail=1
fi
if ((fail == 0)); then echo "ok: to-json and get equal with reads of every size"; fi
exit "$fail"
