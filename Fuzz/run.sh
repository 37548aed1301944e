#!/usr/bin/env bash
# Builds every libFuzzer target and runs each for SECONDS (default 60):
#
#     Fuzz/run.sh [SECONDS]
#
# Seeds are copied from Fuzz/Corpus/<target>/ to a scratch directory, so the repository's
# corpus is never written to; crash inputs go to the crash directory printed at the start.
# Prints one line per target, then `fuzz: N targets, C crashes`; exits 1 when any target
# crashed (or a property failed), 2 on a usage or build error.
#
# Environment: FUZZ_TARGETS="json xml" runs only those; FUZZ_SCRATCH=DIR keeps the scratch
# directory there instead of a new one under ${TMPDIR:-/tmp}.
set -euo pipefail

duration="${1:-60}"
if ! [[ "$duration" =~ ^[0-9]+$ ]] || [ "$duration" -lt 1 ]; then
    echo "usage: $0 [SECONDS]" >&2
    exit 2
fi

fuzz_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
scratch_path="$fuzz_dir/.build"

# Short name, executable target.
all_targets=(
    "json:FuzzJSON"
    "xml:FuzzXML"
    "plist:FuzzPropertyList"
    "query:FuzzQueryString"
    "headers:FuzzHeaderFields"
    "cache-control:FuzzCacheControl"
    "set-cookie:FuzzSetCookie"
    "netscape:FuzzNetscapeCookies"
    "cache-record:FuzzCacheRecord"
    "resume-data:FuzzResumeData"
    "content-range:FuzzContentRange"
    "retry-after:FuzzRetryAfter"
    "netlink:FuzzNetlink"
    "image:FuzzImageHeader"
    "request-item:FuzzRequestItem"
    "multipart:FuzzMultipart"
    "download-name:FuzzDownloadName"
)
targets=()
for entry in "${all_targets[@]}"; do
    if [ -z "${FUZZ_TARGETS:-}" ] || [[ " $FUZZ_TARGETS " == *" ${entry%%:*} "* ]]; then
        targets+=("$entry")
    fi
done
if [ "${#targets[@]}" -eq 0 ]; then
    echo "run.sh: no target matches FUZZ_TARGETS='${FUZZ_TARGETS:-}'" >&2
    exit 2
fi

# Debug (-Onone) with the fuzzer's coverage and AddressSanitizer; -enable-testing opens
# Lupine's internal parsers to `@testable import`.
echo "building (swift build -c debug, -sanitize=fuzzer,address) ..."
if ! (cd "$fuzz_dir" && swift build -c debug --scratch-path "$scratch_path" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -enable-testing >"$fuzz_dir/.build/run-build.log" 2>&1); then
    tail -n 40 "$fuzz_dir/.build/run-build.log" >&2
    echo "run.sh: the build failed (log: $fuzz_dir/.build/run-build.log)" >&2
    exit 2
fi
bin_dir="$(cd "$fuzz_dir" && swift build -c debug --scratch-path "$scratch_path" --show-bin-path)"

scratch="${FUZZ_SCRATCH:-$(mktemp -d "${TMPDIR:-/tmp}/lupine-fuzz.XXXXXX")}"
mkdir -p "$scratch"
crash_root="$scratch/crashes"
echo "scratch: $scratch"
echo "crash inputs: $crash_root/<target>/"

# ASan's leak check is off: the Swift runtime's caches read as leaks at exit.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1}"
# The Swift runtime's backtracer reads the stack in a way ASan reports; libFuzzer prints its own.
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}"

total_crashes=0
for entry in "${targets[@]}"; do
    name="${entry%%:*}"
    executable="${entry#*:}"
    corpus="$scratch/corpus/$name"
    crashes="$crash_root/$name"
    log="$scratch/logs/$name.log"
    mkdir -p "$corpus" "$crashes" "$scratch/logs"
    cp -R "$fuzz_dir/Corpus/$name/." "$corpus/"
    options=(-max_total_time="$duration" -print_final_stats=1 -timeout=10 -rss_limit_mb=4096 -max_len=8192
        -artifact_prefix="$crashes/")
    if [ -f "$fuzz_dir/Dictionaries/$name.dict" ]; then
        options+=(-dict="$fuzz_dir/Dictionaries/$name.dict")
    fi
    status=0
    # The wall-clock bound: libFuzzer's own plus a minute for loading the corpus and exiting.
    timeout --kill-after=10 $((duration + 60)) "$bin_dir/$executable" "${options[@]}" "$corpus" >"$log" 2>&1 || status=$?

    stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -n 1; }
    runs="$(stat number_of_executed_units)"
    speed="$(stat average_exec_per_sec)"
    last="$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -n 1 || true)"
    cov="$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<<"$last")"
    ft="$(sed -n 's/.*ft: \([0-9]*\).*/\1/p' <<<"$last")"
    found="$(find "$crashes" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l | tr -d ' ')"
    if [ "$status" -ne 0 ] && [ "$found" -eq 0 ]; then
        # Stopped without leaving an input (killed by the bound, or died loading): count it.
        found=1
        echo "$name: exited with status $status and no crash input; see $log" >&2
    fi
    total_crashes=$((total_crashes + found))
    echo "$name: ${runs:-0} runs, ${speed:-0} exec/s, cov: ${cov:-0} ft: ${ft:-0}, $found crashes"
    if [ "$found" -gt 0 ]; then
        grep -m 3 -E 'fuzz property failed|Fatal error|ERROR: AddressSanitizer|ERROR: libFuzzer|SUMMARY' "$log" | sed "s/^/    /" || true
        find "$crashes" -type f | sed "s/^/    input: /"
    fi
done

echo "fuzz: ${#targets[@]} targets, $total_crashes crashes"
[ "$total_crashes" -eq 0 ]
