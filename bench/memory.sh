#!/usr/bin/env bash
# Resident memory per stored record at scale, against the bounds the fake
# keeps: 1 KB per run with 100,000 runs stored, 0.5 KB per reported task
# with 100,000 tasks stored, indexes and caches included.
#
#   bench/memory.sh
#
# Each figure is what the fake's process holds after a collection (and
# after handing freed memory back to the system), less what it held
# before the records were written, divided by their number: B-rss/run
# from BenchmarkStoreScale (runs launched through the API), B-rss/task
# from BenchmarkTraceProgress (tasks reported by Nextflow's progress
# calls, 100 at a time). The heap's share (B-heap/...) is printed beside
# it. It measures the embedded document, and the service's published
# schema too where the tests find it.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp)
trap 'rm -f "$bin"' EXIT
go test -c -o "$bin" ./mock
cd mock
# Each figure from a process of its own, so that none starts on a heap
# another measurement left behind.
for bench in 'StoreScale/doc=embedded/runs=100000/list$' 'StoreScale/doc=published/runs=100000/list$' \
  'TraceProgress/doc=embedded/stored=100000/update$' 'TraceProgress/doc=published/stored=100000/update$'; do
  "$bin" -test.run '^$' -test.benchtime 1x -test.bench "$bench"
done |
  awk '
    /^Benchmark/ {
      name = $1; sub(/-[0-9]+$/, "", name); sub(/^Benchmark/, "", name)
      for (i = 2; i < NF; i++) {
        if ($(i+1) ~ /^B-(rss|heap)\/(run|task)$/) v[$(i+1)] = $i
      }
      if ("B-rss/run" in v) { per = "run"; bound = 1000 } else { per = "task"; bound = 500 }
      rss = v["B-rss/" per]; heap = v["B-heap/" per]
      printf "%-52s %6.0f B-rss/%s  %6.0f B-heap/%s  bound %d: %s\n", name, rss, per, heap, per, bound, (rss <= bound ? "met" : "NOT MET")
      delete v
    }'
