#!/usr/bin/env bash
# Candidate methods side by side on one crawl: `dedup --no-verify` (SimHash alone, tau 3),
# `dedup --candidates simhash` (SimHash candidates within tau 14 verified on their text) and the
# default `dedup` (MinHash-LSH candidates verified), then `verify` of unscored candidates on one thread (MB/s
# of HTML per core).
#
#   scripts/verify_speed.sh [NEARDUP] [CRAWL|DOCS] [RUNS]
#
# CRAWL is a crawl file or directory; a number makes a synthetic crawl of that many documents
# (default 20000). Each dedup runs RUNS times (default 1); every run prints its wall time,
# candidate and verified pairs (from its summary.json) and the ratio of its time to the first
# `--no-verify` run. Extra dedup options for the default run come from $MINHASH_OPTS (for
# example "--minhash-bands 25 --minhash-rows 6"). Works in a temporary directory, removed at
# the end.
set -euo pipefail
bin=$(realpath "${1:-target/release/neardup}")
input=${2:-20000}
runs=${3:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ "$input" =~ ^[0-9]+$ ]]; then
    "$bin" -q synth-crawl --docs "$input" --shards 2 -o "$work/crawl"
    crawl="$work/crawl"
else
    crawl=$(realpath "$input")
fi
echo "machine: $(nproc) cores, $(uname -m); crawl: $input"
base=""
run() {
    local name=$1
    shift
    for _ in $(seq "$runs"); do
        rm -rf "$work/out"
        local s e
        s=$(date +%s.%N)
        "$bin" -q dedup "$crawl" -o "$work/out" "$@"
        e=$(date +%s.%N)
        python3 - "$name" "$s" "$e" "$work/out/summary.json" "$base" <<'PY'
import json, sys
name, s, e, path, base = sys.argv[1:]
wall = float(e) - float(s)
v = json.load(open(path)).get("verification") or {}
ratio = f"{wall / float(base):.2f}x" if base else "1x"
print(f"{name:<24} wall {wall:6.2f} s  {ratio:>6}  candidates {v.get('candidate_pairs', '-'):>9}"
      f"  verified {v.get('verified_pairs', '-'):>9}  verification {v.get('seconds', 0):.2f} s")
PY
        if [ -z "$base" ]; then base=$(python3 -c "print($e - $s)"); fi
    done
}
run "--no-verify (tau 3)" --no-verify
run "--candidates simhash" --candidates simhash
# shellcheck disable=SC2086
run "default (MinHash-LSH)" ${MINHASH_OPTS:-}
echo "== verify of the SimHash candidates within tau 14, on one thread (payload MB/s per core)"
"$bin" -q dedup "$crawl" -o "$work/plain" --no-verify --tau 14
"$bin" --threads 1 verify "$work/plain/store" --pairs "$work/plain/pairs.bin" --tau 14 -o /dev/null 2>&1 | grep -E "^verify"
