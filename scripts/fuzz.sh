#!/usr/bin/env bash
# make fuzz: runs every fuzz target of the parsers of untrusted bytes for
# FUZZTIME each (default 10m), one after the other, under a hard limit on
# the memory of each process (FUZZ_MEMORY, ulimit -v, default 4 GiB): an
# input that makes a reader allocate without bound crashes the fuzzer, which
# saves it under readers/testdata/fuzz/<target>/, where `make test` replays
# it ever after. Seeds come from the shared fixtures and internal/hostile's
# attack files. FUZZ_TARGETS picks targets (default: all); a target outside
# ./readers is written package:Target.
set -euo pipefail
cd "$(dirname "$0")/.."

time=${FUZZTIME:-10m}
memory_kib=${FUZZ_MEMORY_KIB:-4194304}
targets=${FUZZ_TARGETS:-FuzzParquet FuzzParquetFooter FuzzCSV FuzzSniffCSV FuzzJSON FuzzJSONWrapped ./evaluation/figures:FuzzNumerals ./evaluation/figures:FuzzDatetimes ./netguard:FuzzCheckURL ./sources:FuzzSourceSettings ./contracts:FuzzImportODCS ./cmd/dqs:FuzzAnomaliesCSV ./anomaly:FuzzEvaluate ./reportsvc:FuzzParseConfig ./reports:FuzzRender ./suggest:FuzzSuggest ./corrections:FuzzCustom ./corrections:FuzzRegexReplace ./corrections:FuzzDecimalPoint ./standardize:FuzzCluster}
go=${GO:-go}

# Built before the limit applies: the compiler is not what is measured.
$go test -c -o /dev/null ./readers
$go test -c -o /dev/null ./evaluation/figures
$go test -c -o /dev/null ./netguard
$go test -c -o /dev/null ./sources
$go test -c -o /dev/null ./contracts
$go test -c -o /dev/null ./cmd/dqs
$go test -c -o /dev/null ./anomaly
$go test -c -o /dev/null ./reportsvc
$go test -c -o /dev/null ./reports

status=0
for entry in $targets; do
  pkg=./readers target=$entry
  if [[ $entry == *:* ]]; then
    pkg=${entry%%:*} target=${entry#*:}
  fi
  echo "== $target for $time (memory limit $((memory_kib / 1024)) MiB a process)"
  if ! (ulimit -v "$memory_kib" && $go test -run '^$' -fuzz "^${target}\$" -fuzztime "$time" -fuzzminimizetime 1m "$pkg"); then
    echo "== $target FAILED: the crasher is under ${pkg#./}/testdata/fuzz/$target/" >&2
    status=1
  fi
done
exit $status
