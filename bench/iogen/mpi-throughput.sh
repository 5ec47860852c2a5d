#!/usr/bin/env bash
# Aggregate null-engine throughput of iogen with 1 and 2 MPI ranks on this machine, interleaved
# (the machine is shared: a slow moment hits both), plus the exchange time per subinterval that
# rank 0 prints. Needs `npm run build:iogen-mpi`. Usage: bench/iogen/mpi-throughput.sh [REPS]
# Output: one line per run (ranks, all-row IOPS, IOs per CPU-second of iogen, exchange ms), then
# medians and the load average (the machine is shared: compare the IOPS ratio with the load).
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=iogen/target/release/iogen
reps=${1:-5}
tmp=$(mktemp -d /tmp/iogen-mpi-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
"$bin" --version
run() { # ranks rep
  local n=$1 out="$tmp/sum-$1-$2.csv"
  # --rt-priority off: with more busy ranks than idle cores, SCHED_FIFO ranks would starve the rest.
  local args=(run --engine null --iops max --queue-depth 16 --warmup 1s --duration 5s --subinterval 1s
    --rt-priority off --size 1MiB --target "$tmp/t-$1-$2.dat" --summary "$out")
  local err
  if [ "$n" = 1 ]; then err=$("$bin" "${args[@]}" 2>&1 >/dev/null)
  else err=$(mpirun --allow-run-as-root --oversubscribe -n "$n" "$bin" "${args[@]}" 2>&1 >/dev/null); fi
  local host=$([ "$n" = 1 ] && awk -F, 'NR==2{print $1}' "$out" || echo all)
  local col=$(head -1 "$out" | tr , '\n' | grep -n '^iogen_cpu_pct$' | cut -d: -f1)
  local iops=$(awk -F, -v h="$host" '$1==h && $5=="overall"{print $7}' "$out")
  local cpu=$(awk -F, -v h="$host" -v c="$col" '$1==h && $5=="overall"{print $c}' "$out")
  local ex=$(echo "$err" | sed -n 's/.*took \([0-9.]*\) ms on rank 0.*/\1/p')
  # IOs per second of iogen CPU time: what the ranks did with the CPU they got.
  echo "$n $iops $(awk -v i="$iops" -v c="$cpu" 'BEGIN{printf "%.0f", i/(c/100)}') ${ex:--}"
}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$reps"); do run 1 "$r"; run 2 "$r"; done | tee "$tmp/all.txt"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
median() { sort -g | awk '{a[NR]=$1} END{print (NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2}'; }
one=$(awk '$1==1{print $2}' "$tmp/all.txt" | median)
two=$(awk '$1==2{print $2}' "$tmp/all.txt" | median)
ex=$(awk '$1==2 && $4!="-"{print $4}' "$tmp/all.txt" | median)
eff1=$(awk '$1==1{print $3}' "$tmp/all.txt" | median)
eff2=$(awk '$1==2{print $3}' "$tmp/all.txt" | median)
echo "median IOPS: 1 rank $one, 2 ranks $two, ratio $(awk -v a="$two" -v b="$one" 'BEGIN{printf "%.2f", a/b}')"
echo "median IOs per CPU-second: 1 rank $eff1, 2 ranks $eff2"
echo "median exchange per subinterval on rank 0 (2 ranks): $ex ms"
