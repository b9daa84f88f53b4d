#!/usr/bin/env bash
# Verification speed: `dedup --verify` against `dedup` (SimHash only) on the same synthetic
# crawl, and `verify` alone on one thread (MB/s of payload per core).
#
#   scripts/verify_speed.sh [NEARDUP] [DOCS] [TAU]
#
# Defaults: target/release/neardup, 20000 documents, tau 3. Prints the commands' own summary
# lines and wall times; works in a temporary directory, removed at the end.
set -euo pipefail
bin=$(realpath "${1:-target/release/neardup}")
docs=${2:-20000}
tau=${3:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$bin" -q synth-crawl --docs "$docs" --shards 2 -o crawl
t() { local s; s=$(date +%s.%N); "$@"; python3 -c "print(f'  wall {$(date +%s.%N) - $s:.2f} s')"; }
echo "== dedup --tau $tau (SimHash only)"
t "$bin" dedup crawl -o plain --tau "$tau" 2>&1 | grep -E "^done"
echo "== dedup --tau $tau --verify"
t "$bin" dedup crawl -o verified --tau "$tau" --verify 2>&1 | grep -E "^verify|^done"
echo "== verify, one thread"
t "$bin" --threads 1 verify plain/store --pairs plain/pairs.bin --tau "$tau" -o /dev/null 2>&1 | grep -E "^verify"
echo "== verify, all threads"
t "$bin" verify plain/store --pairs plain/pairs.bin --tau "$tau" -o /dev/null 2>&1 | grep -E "^verify"
