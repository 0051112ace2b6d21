#!/usr/bin/env bash
# Set up nastwin and run the whole test suite: once in a normal build with
# warnings as errors, once under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."

# The test run also needs: clang + libFuzzer (fuzz smoke), valgrind,
# chromium (the HTML report is rendered headless) and Open MPI (the sweep
# under mpirun -n 2 must match -j 1 byte for byte) and fio (tests/test_fio.c
# compares nastwin's fio JSON with real fio's).

# Check's per-test timeout (default 4 s) is for a normal build; sanitizers
# slow some property tests down several times.
export CK_DEFAULT_TIMEOUT="${CK_DEFAULT_TIMEOUT:-120}"

NASTWIN_EXTRA_PACKAGES="clang libclang-rt-14-dev valgrind chromium libopenmpi-dev openmpi-bin fio" \
  BUILD_DIR=build BUILD_TYPE=RelWithDebInfo ./scripts/setup.sh -DNASTWIN_WERROR=ON
ctest --test-dir build --output-on-failure -j "$(nproc)"

BUILD_DIR=build-asan BUILD_TYPE=RelWithDebInfo ./scripts/setup.sh -DNASTWIN_WERROR=ON -DNASTWIN_SANITIZE=ON
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j "$(nproc)"

# valgrind: the pure-model unit tests in-process, and the engine (its
# forked simulation children too) on each protocol: no invalid access, no
# definite leak.
vg=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite)
for t in test_units test_stats test_fio test_presets test_net test_soc test_raid test_stack \
         test_mva test_storage_rebuild test_disks; do
  CK_FORK=no NASTWIN_SOURCE_DIR="$PWD" NASTWIN_BIN="$PWD/build/nastwin" "${vg[@]}" "build/$t" >/dev/null
done
# (the failover scenario runs past its path_down at 1 s: a fault after the
# end of the simulated time is refused)
for run in "--time 0.3s" "--set protocol.kind=nfs --time 0.3s" "--set protocol.kind=iscsi --time 0.3s" \
           "tests/scenarios/mpio-failover.yaml --time 1.1s" "tests/scenarios/client-cache-rewrite.yaml --time 0.3s"; do
  # shellcheck disable=SC2086
  "${vg[@]}" --trace-children=yes build/nastwin run $run >/dev/null
done
echo "valgrind: clean"

# Fuzz smoke: each libFuzzer target (scenario loader, fio parser) for a
# bounded time; a crash, leak or hang fails and is saved in fuzz/regressions/.
FUZZ_SECONDS=20 ./fuzz/run-smoke
