#!/usr/bin/env bash
# The cost of near-duplicates of the content by default (issue 41): the default `dedup` of a
# web-shaped crawl by the build before (full text) and this build (main content), alternating,
# then this build with `--text full`, whose lists must equal the build before's.
# Usage: scripts/bench_main_content.sh OLD_BINARY NEW_BINARY CRAWL [ROUNDS] [WORK_DIR]
#   CRAWL: neardup synth-crawl --docs 1000000 --shape web --shards 8 -o CRAWL
set -euo pipefail
old=$1 new=$2 crawl=$3 rounds=${4:-2} work=${5:-$(mktemp -d)}
mkdir -p "$work"
t() { /usr/bin/time -f "%e s wall, %U s user, %S s sys, %M KB peak" "$@" 2>&1 >/dev/null | tail -1; }
for round in $(seq "$rounds"); do
    for b in old new; do
        bin=$old; [ $b = new ] && bin=$new
        rm -rf "$work/o-$b"
        echo "round $round, $b default: $(t "$bin" -q dedup "$crawl" -o "$work/o-$b")"
    done
done
rm -rf "$work/o-full"
echo "new --text full: $(t "$new" -q dedup "$crawl" -o "$work/o-full" --text full)"
cmp "$work/o-old/remove.tsv" "$work/o-full/remove.tsv"
cmp "$work/o-old/keep.txt" "$work/o-full/keep.txt"
echo "--text full: remove.tsv and keep.txt identical to the build before's"
for b in old new; do
    echo "$b default: $(($(wc -l < "$work/o-$b/remove.tsv") - 1)) removed"
done
