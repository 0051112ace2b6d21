#!/usr/bin/env bash
# Set up nastwin and run the whole test suite: once in a normal build with
# warnings as errors, once under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."

# Check's per-test timeout (default 4 s) is for a normal build; sanitizers
# slow some property tests down several times.
export CK_DEFAULT_TIMEOUT="${CK_DEFAULT_TIMEOUT:-120}"

NASTWIN_EXTRA_PACKAGES="clang libclang-rt-14-dev" \
  BUILD_DIR=build BUILD_TYPE=RelWithDebInfo ./scripts/setup.sh -DNASTWIN_WERROR=ON
ctest --test-dir build --output-on-failure -j "$(nproc)"

BUILD_DIR=build-asan BUILD_TYPE=RelWithDebInfo ./scripts/setup.sh -DNASTWIN_WERROR=ON -DNASTWIN_SANITIZE=ON
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j "$(nproc)"

# Fuzz smoke: each libFuzzer target (scenario loader, fio parser) for a
# bounded time; a crash, leak or hang fails and is saved in fuzz/regressions/.
FUZZ_SECONDS=20 ./fuzz/run-smoke
