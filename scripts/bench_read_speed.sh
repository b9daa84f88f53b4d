#!/usr/bin/env bash
# Fingerprinting against inflating, one thread (issue 56's targets; BENCHMARKS.md).
# Usage: scripts/bench_read_speed.sh SHARD.warc.gz [SHARD.warc.gz ...]   (a release build)
#   NEARDUP=path/to/neardup  ROUNDS=3
# For each shard, ROUNDS rounds alternating `neardup --threads 1 fingerprint` (plain),
# `fingerprint --minhash` (what the default dedup computes) and `gzip -dc`, each timed as
# user + system CPU seconds. Prints every round and a table of medians: the band keys' cost
# (--minhash / plain; target <= 1.1x) and the speed of --minhash against gzip -dc (target
# >= 1.0x).
set -euo pipefail
N=${NEARDUP:-$(cd "$(dirname "$0")/.." && pwd)/target/release/neardup}
ROUNDS=${ROUNDS:-3}
S=$(mktemp -d)
trap 'rm -rf "$S"' EXIT
cpu() { /usr/bin/time -f "%U %S" "$@" 2>&1 >/dev/null | tail -1 | awk '{printf "%.2f", $1 + $2}'; }
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
rows=()
for shard in "$@"; do
  plain="" minhash="" gz=""
  for _ in $(seq "$ROUNDS"); do
    plain+=" $(cpu "$N" --threads 1 fingerprint -q --force -o "$S/p" "$shard")"
    minhash+=" $(cpu "$N" --threads 1 fingerprint -q --minhash --force -o "$S/m" "$shard")"
    gz+=" $(cpu gzip -dc "$shard")"
  done
  echo "$(basename "$shard"): plain$plain | --minhash$minhash | gzip -dc$gz"
  p=$(echo "$plain" | median) m=$(echo "$minhash" | median) g=$(echo "$gz" | median)
  rows+=("| $(basename "$shard") | $p | $m | $g | $(awk -v a="$m" -v b="$p" 'BEGIN {printf "%.2fx", a / b}') | $(awk -v a="$g" -v b="$m" 'BEGIN {printf "%.2fx", a / b}') |")
done
echo
echo "| shard | plain (s) | --minhash (s) | gzip -dc (s) | --minhash / plain | --minhash speed vs gzip -dc |"
echo "|---|---:|---:|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
