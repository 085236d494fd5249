#!/usr/bin/env bash
# Captures what the CLI prints and writes for the shipped scenarios, with times, dates and paths masked, so
# that a change meant to leave behaviour alone (a regrouping, a rename) can be diffed against the code before it:
#   bash scripts/cli-outputs.sh /tmp/before   # on the old checkout
#   bash scripts/cli-outputs.sh /tmp/after    # on the new one
#   diff -r /tmp/before /tmp/after
# Runs only against the embedded mock on loopback. Takes about a minute.
set -u
OUT=${1:?usage: cli-outputs.sh <out-dir>}
BIN="node $(cd "$(dirname "$0")/.." && pwd)/bin/loadproof.js"
rm -rf "$OUT" && mkdir -p "$OUT"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$(dirname "$0")/.."

# Masks what legitimately differs between two runs of the same code: durations and latencies, clock times,
# hashes and versions that hold them, and the temporary paths.
mask() {
  sed -E \
    -e 's#HISTF[A-Za-z0-9+/=]+#<histogram>#g' \
    -e 's#"inFlight":\{[^}]*\}#"inFlight":<n>#g' \
    -e "s#$WORK#<work>#g" \
    -e 's#[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z?([+-][0-9]{2}:[0-9]{2})?#<time>#g' \
    -e 's#[0-9]{4}-[0-9]{2}-[0-9]{2}( [0-9:]+( UTC)?)?#<date>#g' \
    -e 's#[0-9a-f]{64}#<hash>#g' \
    -e 's#[0-9a-f]{40}#<commit>#g' \
    -e 's#[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}#<uuid>#g' \
    -e 's#(127\.0\.0\.1|localhost|\[::1\]):[0-9]+#<addr>#g' \
    -e 's#time="[0-9.]+"#time="<t>"#g' \
    -e 's#observed [0-9.]+; 95 % interval \[[0-9.]+, [0-9.]+\]#observed <t>; 95 % interval <t>#g' \
    -e 's#[0-9][0-9,]*(\.[0-9]+)? ?(µs|ms|s|min|h)\b#<t>#g' \
    -e 's#"[A-Za-z]*(Ms|Seconds|Sec|At|time|Time|ms|lag[A-Za-z]*)": ?-?[0-9.e+-]+#"\1": <n>#g' \
    -e 's#[0-9]+ (days?|hours?|minutes?)#<n> \1#g' \
    -e 's# +<t>#  <t>#g'
}

# Machine-readable files carry the raw measured values: every fractional number is masked there.
mask_numbers() { mask | sed -E 's#-?[0-9]+\.[0-9]+(e[+-]?[0-9]+)?#<f>#g'; }

capture() { # name, then the command
  local name=$1; shift
  "$@" >"$WORK/out" 2>"$WORK/err" </dev/null
  echo "exit $?" >"$OUT/$name.exit"
  mask <"$WORK/out" >"$OUT/$name.stdout"
  mask <"$WORK/err" >"$OUT/$name.stderr"
}

capture help $BIN --help
for c in mock run plan report verify compare check notice deid merge probe schema; do capture "help-$c" $BIN $c --help; done
capture schema $BIN schema
for s in scenarios/*.yaml; do
  n=$(basename "$s" .yaml)
  capture "plan-$n" $BIN plan "$s"
  capture "plan-json-$n" $BIN plan "$s" --json
done
capture notice-sandbox $BIN notice scenarios/sandbox-burst.yaml
capture check-ci $BIN check scenarios/ci-regression.yaml
printf 'Patient John Smith, MRN 12345678, seen 2024-03-01, phone 555-123-4567.\n' >"$WORK/doc.txt"
capture deid $BIN deid "$WORK/doc.txt"
# Refusals and bad input: each must keep its message and exit code.
printf 'version: 1\nname: x\nphases: nope\n' >"$WORK/bad.yaml"
capture bad-scenario $BIN run "$WORK/bad.yaml"
capture sandbox-refused $BIN run scenarios/sandbox-burst.yaml
capture missing-file $BIN run "$WORK/none.yaml"
# Runs against the embedded mock, then what reads their folders.
for n in ci-regression deid; do
  capture "run-$n" $BIN run "scenarios/$n.yaml" --time-scale 60 --run-dir "$WORK/$n" --quiet --no-charts
  for f in report.md summary.json junit.xml; do [ -f "$WORK/$n/$f" ] && mask_numbers <"$WORK/$n/$f" >"$OUT/run-$n.$f"; done
  ls "$WORK/$n" | sort >"$OUT/run-$n.files"
done
capture report-ci $BIN report "$WORK/ci-regression"
capture verify-ci $BIN verify "$WORK/ci-regression"
capture compare-ci $BIN compare "$WORK/ci-regression" "$WORK/ci-regression"
