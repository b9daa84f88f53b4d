#!/usr/bin/env bash
# trec transfer of 50 000 judgments against a 1 M-page crawl (BENCHMARKS.md, "TREC tools").
# Usage: scripts/bench_trec_transfer.sh [WORK_DIR]   (needs about 6 GB of disk; a release build)
set -euo pipefail
N=${NEARDUP:-$(dirname "$0")/../target/release/neardup}
W=${1:-/tmp/bench-transfer}
mkdir -p "$W" && cd "$W"
[ -d crawl ] || "$N" -q synth-crawl --docs 1000000 --shards 10 -o crawl
"$N" -q fingerprint crawl/synth-0000[0-4].warc.gz -o old --minhash --force
"$N" -q fingerprint crawl -o new --minhash --force
"$N" -q fingerprint crawl/synth-0000[5-9].warc.gz -o new2 --minhash --force
"$N" export old -o old.tsv
python3 - <<'PY'
import random
random.seed(1)
ids = [l.split('\t')[0] for l in open('old.tsv').read().splitlines()[1:]]
with open('qrels.txt', 'w') as f:
    for i in range(50000):
        f.write(f"{1 + i % 50} 0 {random.choice(ids)} {random.choice([0, 0, 1, 2])}\n")
PY
for to in new new2; do
  /usr/bin/time -f "transfer to $to: %e s %M KB" "$N" trec transfer qrels.txt --from old --to "$to" -o "$to.qrels" --force
done
