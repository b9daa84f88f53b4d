#!/usr/bin/env bash
# One box's `dedup` against its `fingerprint --minhash`, two builds side by side, at all the
# box's cores (BENCHMARKS.md, "The stages after fingerprinting on 16 cores").
#
#   scripts/bench_one_box.sh OLD_BINARY NEW_BINARY [PAGES] [THREADS]
#
# Writes a web-shaped crawl of PAGES pages (default 1 000 000; 16 shards) with NEW's
# `synth-crawl`, times `gzip -dc` of its shards all at once, then two rounds of:
# `fingerprint --minhash` (NEW), `dedup` (OLD), `dedup` (NEW), each at --threads THREADS (default:
# every core), under bash's `time` (wall, user, system seconds). The two builds' `remove.tsv`
# must be equal (the script says DIFFER otherwise). One line per figure goes to
# $OUT/figures.tsv, each `dedup`'s summary.json to $OUT (OUT defaults to /tmp/one-box-out);
# the work directory is /tmp/nd-one-box (about 3 GB and two outputs at a million pages).
# On a lent GPU machine, carry the two stripped binaries in .device/ and run this from there.
set -uo pipefail
OLD=$(readlink -f "$1") NEW=$(readlink -f "$2") CRAWL=${3:-1000000} TH=${4:-$(nproc)}
OUT="${OUT:-/tmp/one-box-out}"; mkdir -p "$OUT"
W=/tmp/nd-one-box; rm -rf "$W"; mkdir -p "$W"
fig() { printf '%s\t%s\n' "$1" "$2" >> "$OUT/figures.tsv"; echo "FIGURE $1: $2"; }
TIMEFORMAT='%R %U %S'
timed() { local f="$W/t.$$"; { time "$@" >"$W/last.log" 2>&1; } 2>"$f"; local rc=$?; LAST_S=$(tail -1 "$f"); return $rc; }
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); threads $TH"
timed "$NEW" synth-crawl --docs "$CRAWL" --shape web --shards 16 -q -o "$W/crawl"; fig synth_crawl "$LAST_S"
timed bash -c "ls $W/crawl/*.warc.gz | xargs -P16 -n1 sh -c 'gzip -dc \"\$0\" > /dev/null'"; fig gzip_dc_all_at_once "$LAST_S"
for r in 1 2; do
  rm -rf "$W/f"; timed "$NEW" --threads "$TH" fingerprint "$W/crawl" --minhash -q -o "$W/f"; fig "r${r}_fingerprint_minhash_new" "$LAST_S"
  rm -rf "$W/f" "$W/o"; timed "$OLD" --threads "$TH" dedup "$W/crawl" -q -o "$W/o"; fig "r${r}_dedup_old" "$LAST_S"
  cp "$W/o/summary.json" "$OUT/r${r}_old.json"
  rm -rf "$W/n"; timed "$NEW" --threads "$TH" dedup "$W/crawl" -q -o "$W/n"; fig "r${r}_dedup_new" "$LAST_S"
  cp "$W/n/summary.json" "$OUT/r${r}_new.json"
  if cmp -s "$W/o/remove.tsv" "$W/n/remove.tsv"; then fig "r${r}_same_lists" equal; else fig "r${r}_same_lists" DIFFER; fi
done
