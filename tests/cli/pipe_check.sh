#!/usr/bin/env bash
# pipe_check.sh MPK - the tool on a live pipe: each command writes a value's output as soon as
# the value has arrived, before the input ends. The writer sends the first message, waits to
# read the first output line (failure after a generous timeout, never a timing assertion),
# and only then sends the second message and closes the pipe.
set -euo pipefail
mpk=$1
fail=0
timeout_s=60

# live CASE FIRST SECOND WANT1 WANT2 COMMAND...: FIRST and SECOND are printf formats.
live() {
  local name=$1 first=$2 second=$3 want1=$4 want2=$5
  shift 5
  coproc tool { "$@" 2>&1; }
  local in=${tool[1]} out=${tool[0]}
  printf "$first" >&"$in"
  local line1="" line2=""
  if ! IFS= read -r -t "$timeout_s" line1 <&"$out"; then
    echo "FAILED: $name: no output line within ${timeout_s}s after the first message"
    fail=1
    exec {in}>&-
    wait "$tool_PID" || true
    return
  fi
  printf "$second" >&"$in"
  exec {in}>&-
  IFS= read -r -t "$timeout_s" line2 <&"$out" || true
  wait "$tool_PID" || true
  if [[ $line1 == "$want1" && $line2 == "$want2" ]]; then
    echo "ok: $name: '$line1' arrived before the second message was sent"
  else
    echo "FAILED: $name: got '$line1' then '$line2', expected '$want1' then '$want2'"
    fail=1
  fi
}

live to-json '\x82\xa1a\x01\xa1b\x92\xc3\xc2' '\x91\x02' '{"a":1,"b":[true,false]}' '[2]' \
  "$mpk" to-json
live to-json-unbuffered '\x01' '\x02' '1' '2' "$mpk" to-json --unbuffered
live get '\x82\xa1a\x01\xa1b\x02' '\x81\xa1b\x03' '2' '3' "$mpk" get .b
live get-key-with-space '\x81\xa3a b\x05' '\x81\xa3a b\x06' '5' '6' "$mpk" get '."a b"'
live dump '\x01' '\x02' '000000  01                         positive fixint 1' \
  '000001  02                         positive fixint 2' "$mpk" dump
# from-json: its MessagePack goes through to-json (live too) to come back as a line.
live from-json '{"a": 1}\n' '[2]\n' '{"a":1}' '[2]' \
  bash -c "'$mpk' from-json | '$mpk' to-json"
# A JSON number at the end of the first piece is not complete until a delimiter follows.
live from-json-number '7 8' '\n' '7' '8' bash -c "'$mpk' from-json | '$mpk' to-json"
# A value cut across the pause: the complete one before it comes out first.
live to-json-split '\x01\x92\x02' '\x03' '1' '[2,3]' "$mpk" to-json
exit $fail
