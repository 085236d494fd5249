#!/bin/bash
# The embedded mock's thread starved mid-run (as on a busy machine): a time-scaled run (300 rpm for 20 model
# minutes at k = 60) whose mock thread alone is held to 20 ms of CPU per second for 8 s, through a cgroup v1 cpu
# quota on that thread. Prints each tree's request outcomes and verdict: timeouts or a FAIL here are the tool's.
# Needs root and a cgroup v1 cpu controller (/sys/fs/cgroup/cpu); traffic stays on loopback (the embedded mock).
# Usage: bash bench/starved-mock-thread.sh [loadproof tree …]   (default: this one)
set -euo pipefail
G=/sys/fs/cgroup/cpu/loadproof-starved
if ! mkdir -p "$G" 2>/dev/null || [ ! -w "$G/tasks" ]; then
  echo "skipped: no writable cgroup v1 cpu controller at /sys/fs/cgroup/cpu (needs root)"
  exit 0
fi
echo 1000000 >"$G/cpu.cfs_period_us"
echo 20000 >"$G/cpu.cfs_quota_us"
work=$(mktemp -d)
trap 'rmdir "$G" 2>/dev/null || true; rm -rf "$work"' EXIT
cat >"$work/s.yaml" <<'YAML'
name: starved
description: sustained 300 rpm at k = 60 with the mock's thread starved for 8 s
target: { environment: mock }
phases:
  - { name: steady, duration: 20m, rpm: 300 }
thresholds: { documentedTargets: false }
YAML
trees=("$@")
[ ${#trees[@]} -eq 0 ] && trees=("$(cd "$(dirname "$0")/.." && pwd)")
for tree in "${trees[@]}"; do
  out="$work/out-$(basename "$tree")"
  node "$tree/bin/loadproof.js" run --no-charts "$work/s.yaml" --time-scale 60 --out "$out" >"$out.log" 2>&1 &
  run=$!
  sleep 4
  # The mock's worker thread is the process's newest thread once the run has started.
  tid=$(ls "/proc/$run/task" | sort -n | tail -1)
  echo "$tid" >"$G/tasks"
  sleep 8
  echo "$tid" >/sys/fs/cgroup/cpu/tasks 2>/dev/null || true
  code=0
  wait "$run" || code=$?
  echo "$tree: exit $code"
  node -e '
    const fs = require("fs"), path = require("path");
    const dir = path.join(process.argv[1], fs.readdirSync(process.argv[1])[0]);
    const counts = {};
    for (const line of fs.readFileSync(path.join(dir, "events.ndjson"), "utf8").trim().split("\n")) {
      const o = JSON.parse(line).outcome;
      counts[o] = (counts[o] || 0) + 1;
    }
    console.log("  outcomes:", JSON.stringify(counts));
  ' "$out"
  grep -E "^verdict|^  - " "$out.log" | cut -c1-240 | sed 's/^/  /'
done
