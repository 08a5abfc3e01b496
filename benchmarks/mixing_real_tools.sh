#!/bin/sh
# The mixing flags on real tools' output (issue 39, item 2), run here:
# * go test -bench (Go 1.19, Debian golang-go): 4 "nights" (runstamps given), each a
#   `toolchain: baseline` block (built with -gcflags=all=-N, no optimisation) and a
#   `toolchain: experiment` block, as golang.org/x/benchmarks' runner prints them;
# * sysbench 1.0.20 cpu (Debian sysbench): two "servers" (--cpu-max-prime 5000 and 10000)
#   x 3 repetitions x threads 1, 2, under one --node.
# Then `analyze change-points` and `analyze load` on one warehouse.
#   PYTHONPATH=. sh benchmarks/mixing_real_tools.sh /tmp/mixing-real
set -eu
out=${1:-/tmp/mixing-real}
py=${PYTHON:-python}
rm -rf "$out"; mkdir -p "$out/go/bench" "$out/sb"
cat > "$out/go/go.mod" <<'GO'
module example.com/mixbench

go 1.19
GO
cat > "$out/go/bench/bench_test.go" <<'GO'
package bench

import (
	"sort"
	"testing"
)

func BenchmarkSort(b *testing.B) {
	data := make([]int, 4096)
	for i := 0; i < b.N; i++ {
		for j := range data {
			data[j] = (j * 7919) % 4096
		}
		sort.Ints(data)
	}
}

func BenchmarkSum(b *testing.B) {
	data := make([]float64, 8192)
	s := 0.0
	for i := 0; i < b.N; i++ {
		for _, v := range data {
			s += v
		}
	}
	_ = s
}
GO
export GOCACHE="$out/go/cache" GOFLAGS=-mod=mod
for night in 1 2 3 4; do
  (cd "$out/go" && echo "runstamp: 2024-03-0${night}T02:00:00Z" && echo "toolchain: baseline" \
   && go test -run=none -bench=. -count=3 -benchtime=100ms -gcflags=all=-N ./bench/ \
   && echo "toolchain: experiment" \
   && go test -run=none -bench=. -count=3 -benchtime=100ms ./bench/) > "$out/night-$night.txt"
done
for server in fast slow; do
  prime=5000; [ "$server" = slow ] && prime=10000
  for rep in 1 2 3; do
    for t in 1 2; do sysbench cpu --threads=$t --time=2 --cpu-max-prime=$prime run; done \
      > "$out/sb/$server-rep$rep.txt"
  done
done
pw="$py -m perfwarehouse -q --warehouse $out/warehouse"
$pw init >/dev/null
$pw ingest gotest "$out"/night-*.txt --node vm --campaign go
$pw ingest sysbench "$out/sb" --node vm --campaign sb
$pw analyze change-points --campaign go --min-size 2
$pw analyze load --campaign sb
