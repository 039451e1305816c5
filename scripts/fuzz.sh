#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang (ASan + UBSan) into build-fuzz/ and runs
# each for SECONDS (default 20) from its seed corpus in tests/fuzz/corpus/<name>. New inputs go
# to build-fuzz/corpus/<name>, never into the repository; a crash leaves its input in
# build-fuzz/artifacts/ and fails the script.
#   scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-20}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(fuzz_paijson fuzz_taskyaml fuzz_request)
fi
build="${DDL_FUZZ_BUILD_DIR:-build-fuzz}"

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DDDL_BUILD_FUZZERS=ON -DDDL_BUILD_TESTS=OFF -DDDL_BUILD_DESKTOP=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"

rm -rf "$build/artifacts"
mkdir -p "$build/artifacts"
for target in "${targets[@]}"; do
    name="${target#fuzz_}"
    mkdir -p "$build/corpus/$name"
    log="$build/artifacts/$target.log"
    echo "fuzz.sh: $target for ${seconds}s"
    # detect_leaks=0: Qt keeps process-wide caches (codecs, meta types) that LSan would report.
    status=0
    ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
        "$build/fuzz/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -max_len=65536 -print_final_stats=1 -artifact_prefix="$build/artifacts/$target-" \
        "$build/corpus/$name" "tests/fuzz/corpus/$name" >"$log" 2>&1 || status=$?
    grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)|^stat::(number_of_executed_units|average_exec_per_sec)' "$log" || true
    if [ "$status" != 0 ]; then
        tail -n 60 "$log" >&2
        echo "fuzz.sh: $target failed (exit $status); the input is in $build/artifacts/" >&2
        exit 1
    fi
done
echo "fuzz.sh: all ${#targets[@]} targets ran ${seconds}s without a failure"
