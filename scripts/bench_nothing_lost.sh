#!/usr/bin/env bash
# The costs of "nothing lost" (issue 29), two builds side by side, alternating:
#   - `trec inspect` of one topic with 4 000 judged pages (was every pair; now classes and
#     prefix filtering), with the reports compared;
#   - the default `dedup` of a 30 000-page synthetic crawl (the output directory's record and
#     the content-hash check of every text read again are the only additions on its path).
# Usage: scripts/bench_nothing_lost.sh OLD_BINARY NEW_BINARY [WORK_DIR]
set -euo pipefail
old=$1 new=$2 work=${3:-$(mktemp -d)}
mkdir -p "$work"
t() { /usr/bin/time -f "%e s %M KB" "$@" 2>&1 >/dev/null | tail -1; }
"$new" -q synth-crawl --docs 4000 -o "$work/tc"
"$new" -q fingerprint "$work/tc" -o "$work/ts" --force
# One topic, every page judged (grades 0, 1, 2 in turn).
"$new" export "$work/ts" -o - | tail -n +2 | awk -F'\t' '{print "1 0 "$1" "(NR%3)}' >"$work/qrels.txt"
for round in 1 2; do
    for b in old new; do
        bin=$old; [ $b = new ] && bin=$new
        rm -rf "$work/rep-$b"
        echo "trec inspect, 4 000 judgments in one topic, $b: $(t "$bin" -q trec inspect --store "$work/ts" -o "$work/rep-$b" "$work/qrels.txt")"
    done
done
cmp "$work/rep-old/inspect.tsv" "$work/rep-new/inspect.tsv"
cmp <(sort "$work/rep-old/pairs.tsv") <(sort "$work/rep-new/pairs.tsv")
echo "reports: identical"
"$new" -q synth-crawl --docs 30000 -o "$work/dc"
for round in 1 2 3 4; do
    for b in old new; do
        bin=$old; [ $b = new ] && bin=$new
        rm -rf "$work/do-$b"
        echo "dedup, 30 000 pages, $b: $(t "$bin" -q dedup "$work/dc" -o "$work/do-$b")"
    done
done
cmp "$work/do-old/remove.tsv" "$work/do-new/remove.tsv"
echo "remove lists: identical"
