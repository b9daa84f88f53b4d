#!/usr/bin/env bash
# The corpus writer, Parquet input and typed tables (BENCHMARKS.md, "Corpus out, Parquet in").
# Usage: scripts/bench_corpus.sh [WORK_DIR]   (about 10 GB of disk; a release build)
# Every timed pair runs alternately, three times; compare the medians.
set -euo pipefail
N=${NEARDUP:-$(cd "$(dirname "$0")/.." && pwd)/target/release/neardup}
W=${1:-/tmp/bench-corpus}
mkdir -p "$W" && cd "$W"
# The time line, after the command's own report (the writer's MB/s).
t() { /usr/bin/time -f "$1 %e s %M KB" "${@:2}" 2>&1 | grep -v "^$" | tail -3; }
[ -d crawl ] || "$N" -q synth-crawl --docs 1000000 --shards 10 -o crawl
"$N" -q fingerprint crawl -o store --force
rm -rf D && "$N" -q dedup store -o D --no-verify
echo "== WARC.gz of the kept documents (copies): the command reports its own MB/s"
cat crawl/*.warc.gz > /dev/null
for i in 1 2 3; do
  rm -rf W && t "write warc.gz" "$N" write store --keep D/keep.txt --format warc.gz -o W
done
echo "== the same documents as JSONL and as Parquet, fingerprinted"
head -200000 D/keep.txt > keep200k.txt
rm -rf R_jsonl R_parquet
t "write jsonl.gz" "$N" -q write store --keep keep200k.txt --format jsonl.gz -o R_jsonl
t "write parquet" "$N" -q write store --keep keep200k.txt --format parquet -o R_parquet
mkdir -p in_jl in_pq && zcat R_jsonl/*.jsonl.gz > in_jl/rows.jsonl && cp R_parquet/*.parquet in_pq/
for i in 1 2 3; do
  for f in pq jl; do
    rm -rf fp_$f && t "fingerprint $f" "$N" -q fingerprint in_$f -o fp_$f --text-format text
  done
done
cmp <("$N" export fp_pq --format tsv -o -) <("$N" export fp_jl --format tsv -o -) && echo "same fingerprints"
echo "== dedup with and without --tables parquet"
mkdir -p sub2 && ln -sf ../crawl/synth-00000.warc.gz ../crawl/synth-00001.warc.gz sub2/ 2>/dev/null || true
for i in 1 2 3; do
  for a in "" "--tables parquet"; do
    rm -rf DT && t "dedup crawl ${a:-(tsv only)}" "$N" -q dedup sub2 -o DT $a
  done
done
for i in 1 2 3; do
  for a in "" "--tables parquet"; do
    rm -rf DT2 && t "dedup store --no-verify ${a:-(tsv only)}" "$N" -q dedup store -o DT2 --no-verify $a
  done
done
