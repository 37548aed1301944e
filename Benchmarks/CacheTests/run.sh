#!/usr/bin/env bash
# Runs the cache-tests.fyi suite (https://github.com/http-tests/cache-tests) against
# `lupine --cache`, as a private cache, and prints its score:
#
#     Benchmarks/CacheTests/run.sh HARNESS_DIR [LUPINE]
#
# HARNESS_DIR is a checkout of the suite (it needs Node 20 or later and no npm package: the
# client uses Node's own fetch). LUPINE defaults to the package's release build. The suite's
# server, and adapter.py in front of it playing the cache through one `lupine` per request, run on
# kernel-chosen loopback ports; the cache directory is a new temporary one, removed afterwards.
set -euo pipefail
harness="$(cd "${1:?usage: $0 HARNESS_DIR [LUPINE]}" && pwd)"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
lupine="${2:-$here/../../.build/release/lupine}"
[ -x "$lupine" ] || { echo "run.sh: no lupine at $lupine (swift build -c release --product lupine)" >&2; exit 2; }
command -v node >/dev/null || { echo "run.sh: node is not installed" >&2; exit 2; }

scratch="$(mktemp -d "${TMPDIR:-/tmp}/lupine-cache-tests.XXXXXX")"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$scratch"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_for() { for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done; echo "run.sh: nothing listens on $1" >&2; exit 1; }

origin_port="$(free_port)"
# The suite's server reads its port, protocol and pid file from npm's configuration.
export npm_config_port="$origin_port" npm_package_config_port="$origin_port" npm_package_config_protocol=http
export npm_package_config_pidfile="$scratch/server.pid"
(cd "$harness" && exec node test-engine/server/server.mjs) >"$scratch/server.log" 2>&1 &
pids+=($!)
adapter_port="$(free_port)"
python3 "$here/adapter.py" "$adapter_port" "http://127.0.0.1:$origin_port" "$lupine" "$scratch/cache" &
pids+=($!)
wait_for "$adapter_port"
wait_for "$origin_port"

node --no-warnings "$here/run-browser-selection.mjs" "$harness" "http://127.0.0.1:$adapter_port" >"$scratch/results.json"
node "$here/score.mjs" "$harness" "$scratch/results.json"
if [ -n "${CACHE_TESTS_RESULTS:-}" ]; then cp "$scratch/results.json" "$CACHE_TESTS_RESULTS"; fi
