#!/usr/bin/env bash
# Builds the libFuzzer targets in build-fuzz/ (clang++) and fuzzes each for SECONDS (default 60).
# Fails if any target finds a crash, an escaped exception, undefined behaviour, a hang (> 2 s per input)
# or an input that needs more than 2 GiB. Findings are written to build-fuzz/findings/<target>/; once
# fixed, copy them to fuzz/regressions/<target>/ (replayed by the unit tests and by ctest).
# New inputs found go to build-fuzz/corpus/<target>/, never into the repository's seeds.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
targets=(paleo_json device_json price_csv kernel_trace progress_log measurements)

cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSTEPTIME_BUILD_FUZZERS=ON -DSTEPTIME_BUILD_TESTS=OFF -DSTEPTIME_BUILD_EXAMPLES=OFF \
  -DSTEPTIME_BUILD_TOOLS=OFF -DSTEPTIME_INSTALL=OFF >/dev/null
cmake --build build-fuzz -j2 --target "${targets[@]/#/fuzz_}"

failed=()
for t in "${targets[@]}"; do
  mkdir -p "build-fuzz/corpus/$t" "build-fuzz/findings/$t"
  seeds=("fuzz/corpus/$t")
  [[ -d "fuzz/regressions/$t" ]] && seeds+=("fuzz/regressions/$t")
  echo "== fuzz_$t: ${seconds} s"
  if ! "build-fuzz/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=2 -rss_limit_mb=2048 -max_len=65536 \
       -dict="fuzz/$t.dict" -artifact_prefix="build-fuzz/findings/$t/" -print_final_stats=1 \
       "build-fuzz/corpus/$t" "${seeds[@]}" 2>"build-fuzz/$t.log"; then
    tail -n 40 "build-fuzz/$t.log" >&2
    failed+=("$t")
  else
    grep -E '^stat::number_of_executed_units|^stat::new_units_added' "build-fuzz/$t.log" || true
  fi
done
if ((${#failed[@]})); then
  echo "fuzz/run.sh: findings in ${failed[*]} (inputs in build-fuzz/findings/)" >&2
  exit 1
fi
echo "fuzz/run.sh: no findings in ${targets[*]} (${seconds} s each)"
