#!/usr/bin/env bash
# memory_check.sh MPK WORK_DIR [COMMAND...] - the tool's memory does not grow with its input:
# each streaming command (or those named) reads 512 MiB or more (a block of about 1 MiB of
# small documents, repeated, through a pipe) and its peak resident set size (GNU time's %M)
# must stay within 64 MiB. About 10 s of CPU in a Release build: the slow tier (docs/cli.md).
set -euo pipefail
mpk=$1
work=$2
mkdir -p "$work"
shift 2
only=("$@")
limit_kib=$((64 * 1024))

# One message: a document with numbers, strings, a binary, nesting; about 300 bytes.
message='{"id": 123456789, "name": "a fairly ordinary name", "tags": ["red", "green", "blue"],'
message+=' "price": 12.75, "ratio": 0.1, "ok": true, "none": null,'
message+=' "items": [{"sku": "A-1", "n": 2}, {"sku": "B-22", "n": -5}, {"sku": "C-333", "n": 70000}],'
message+=' "text": "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor"}'
block_json=$work/block.json
: >"$block_json"
while (($(stat -c %s "$block_json") < 1048576)); do
  for _ in $(seq 64); do printf '%s\n' "$message"; done >>"$block_json"
done
block=$work/block.msgpack
"$mpk" from-json "$block_json" >"$block"

fail=0
# measure NAME BLOCK COMMAND...: streams copies of BLOCK (512 MiB at least) into COMMAND.
measure() {
  local name=$1 input=$2
  shift 2
  if ((${#only[@]} != 0)) && [[ " ${only[*]} " != *" $name "* ]]; then return; fi
  local rss size copies
  size=$(stat -c %s "$input")
  copies=$(((512 * 1048576 + size - 1) / size))
  if ! (for _ in $(seq $copies); do cat "$input"; done) |
    /usr/bin/time -f %M -o "$work/$name.rss" "$@" >/dev/null 2>"$work/$name.err"; then
    echo "FAILED: $name exited with an error: $(head -3 "$work/$name.err")"
    fail=1
    return
  fi
  rss=$(tail -1 "$work/$name.rss")
  local mib=$((size * copies >> 20))
  if ((rss <= limit_kib)); then
    echo "ok: $name: $mib MiB of input, peak RSS $((rss / 1024)) MiB"
  else
    echo "FAILED: $name: $mib MiB of input, peak RSS $((rss / 1024)) MiB (limit 64 MiB)"
    fail=1
  fi
}
measure to-json "$block" "$mpk" to-json
measure get "$block" "$mpk" get '.items[].sku'
measure validate "$block" "$mpk" validate
measure stats "$block" "$mpk" stats
measure from-json "$block_json" "$mpk" from-json
exit $fail
