#!/usr/bin/env bash
# run_golden.sh MPK CASE_DIR WORK_DIR - runs one golden case of the mpk tool and compares
# standard output, standard error and the exit status exactly with the expected ones.
#
# A case is a folder of tests/cli/golden/:
#   args       the arguments, one line (word-split); the word @input stands for the input file
#   input.hex  the input as hex digits (spaces and newlines ignored), or
#   input.txt  the input as text (used as it is), or
#   input.repeat  "HEX COUNT": the bytes HEX repeated COUNT times (a large input generated
#              here rather than committed)
#              without @input in args, the input goes to standard input; @case/NAME stands
#              for the file NAME of the case folder (e.g. a second input)
#   stdout     the expected standard output (absent: empty), or
#   stdout.hex the expected standard output as hex digits (for MessagePack output)
#   stderr     the expected standard error (absent: empty)
#   status     the expected exit status
#
# Each case runs once more with the input read 1 byte at a time
# (MPK_READ_CHUNK), which must change nothing.
set -euo pipefail
mpk=$1
case_dir=$2
work=$3
mkdir -p "$work"
input="$work/input"
if [[ -f $case_dir/input.hex ]]; then
  hex=$(tr -d ' \n' <"$case_dir/input.hex")
  # printf '\xNN' per byte, in slices so that the command line stays short.
  : >"$input"
  while [[ -n $hex ]]; do
    slice=${hex:0:2048}
    hex=${hex:2048}
    printf "$(sed 's/\(..\)/\\x\1/g' <<<"$slice")" >>"$input"
  done
elif [[ -f $case_dir/input.repeat ]]; then
  read -r unit count <"$case_dir/input.repeat"
  printf "$(sed 's/\(..\)/\\x\1/g' <<<"$unit")" >"$work/unit"
  want=$(($(wc -c <"$work/unit") * count))
  while (($(wc -c <"$work/unit") < want)); do  # doubling: a few dozen steps, not COUNT
    cat "$work/unit" "$work/unit" >"$work/unit2"
    mv "$work/unit2" "$work/unit"
  done
  head -c "$want" "$work/unit" >"$input"
elif [[ -f $case_dir/input.txt ]]; then
  cp "$case_dir/input.txt" "$input"
else
  : >"$input"
fi

read -r -a args <"$case_dir/args"
use_stdin=1
for i in "${!args[@]}"; do
  if [[ ${args[$i]} == @input ]]; then
    args[$i]=$input
    use_stdin=0
  elif [[ ${args[$i]} == @case/* ]]; then  # a file of the case folder
    args[$i]=$case_dir/${args[$i]#@case/}
  fi
done

status=0
if [[ $use_stdin == 1 ]]; then
  "$mpk" "${args[@]}" <"$input" >"$work/stdout" 2>"$work/stderr" || status=$?
else
  "$mpk" "${args[@]}" </dev/null >"$work/stdout" 2>"$work/stderr" || status=$?
fi

fail=0
expect() {  # expect <name>: compares $work/<name> with the case's <name> (absent: empty)
  local want=$case_dir/$1
  [[ -f $want ]] || want=/dev/null
  if ! cmp -s "$want" "$work/$1"; then
    echo "--- $1 differs (expected, then got):"
    diff "$want" "$work/$1" || true
    fail=1
  fi
}
if [[ -f $case_dir/stdout.hex ]]; then
  want=$(tr -d ' \n' <"$case_dir/stdout.hex")
  got=$(od -An -tx1 -v "$work/stdout" | tr -d ' \n')
  if [[ $want != "$got" ]]; then
    echo "--- stdout differs: expected $want"
    echo "---                      got $got"
    fail=1
  fi
else
  expect stdout
fi
expect stderr
want_status=$(cat "$case_dir/status")
if [[ $status != "$want_status" ]]; then
  echo "--- exit status $status, expected $want_status"
  fail=1
fi
# The same case with the input read 1 byte at a time (MPK_READ_CHUNK=1, a split at every
# byte): decoding
# in pieces must give the same output, errors and status as reading it in one go.
if [[ $fail == 0 ]]; then
  for chunk in 1; do
    cp "$work/stdout" "$work/stdout.whole"
    cp "$work/stderr" "$work/stderr.whole"
    split_status=0
    if [[ $use_stdin == 1 ]]; then
      MPK_READ_CHUNK=$chunk "$mpk" "${args[@]}" <"$input" >"$work/stdout" 2>"$work/stderr" ||
        split_status=$?
    else
      MPK_READ_CHUNK=$chunk "$mpk" "${args[@]}" </dev/null >"$work/stdout" 2>"$work/stderr" ||
        split_status=$?
    fi
    for f in stdout stderr; do
      if ! cmp -s "$work/$f.whole" "$work/$f"; then
        echo "--- $f differs when the input is read $chunk byte(s) at a time:"
        diff "$work/$f.whole" "$work/$f" | head -20 || true
        fail=1
      fi
    done
    if [[ $split_status != "$status" ]]; then
      echo "--- exit status $split_status when read $chunk byte(s) at a time, expected $status"
      fail=1
    fi
    cp "$work/stdout.whole" "$work/stdout"
    cp "$work/stderr.whole" "$work/stderr"
  done
fi
exit $fail
