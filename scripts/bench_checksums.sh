#!/usr/bin/env bash
# The cost of the store columns' checksums (issue 40): the default `dedup` of a 1 M-page
# web-shaped crawl, the build before the checksums and the build with them, alternating, with
# the lists compared. The checksums are computed as the store is finished and checked when it
# is opened; everything else on the path is the same.
# Usage: scripts/bench_checksums.sh OLD_BINARY NEW_BINARY CRAWL_DIR [ROUNDS] [WORK_DIR]
#   CRAWL_DIR: neardup synth-crawl --docs 1000000 --shape web --shards 8 -o CRAWL_DIR
set -euo pipefail
old=$1 new=$2 crawl=$3 rounds=${4:-3} work=${5:-$(mktemp -d)}
mkdir -p "$work"
t() { /usr/bin/time -f "%e s wall, %U s user, %S s sys, %M KB peak" "$@" 2>&1 >/dev/null | tail -1; }
for round in $(seq "$rounds"); do
    for b in old new; do
        bin=$old; [ $b = new ] && bin=$new
        rm -rf "$work/o-$b"
        echo "round $round, $b: $(t "$bin" -q dedup "$crawl" -o "$work/o-$b")"
    done
done
cmp "$work/o-old/remove.tsv" "$work/o-new/remove.tsv"
cmp "$work/o-old/keep.txt" "$work/o-new/keep.txt"
echo "remove.tsv and keep.txt: identical"
