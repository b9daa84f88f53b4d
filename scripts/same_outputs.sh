#!/usr/bin/env bash
# Two neardup builds, the same outputs byte for byte: pairs TSV and pairs.bin, sweeps, clusters
# and lists, on a synthetic crawl (20 000 pages) and a synthetic store (200 000 fingerprints),
# at tau 0, 3, 6 and 8, both methods, both backends (the GPU one on any adapter, software ones
# included: install mesa-vulkan-drivers for lavapipe), plus the 128-bit filter, collapsed
# units, a 128-bit sweep and a sweep from a saved pairs file. summary.json is left out (it
# holds wall times); the stores themselves are compared by the pairs they give. dedup runs
# both candidate methods (MinHash-LSH with both verification paths, SimHash with and without
# verification).
#
# Usage: scripts/same_outputs.sh OLD_BINARY NEW_BINARY [WORK_DIR]
# Exits 0 when every output is identical, 1 (with the differences) otherwise.
set -euo pipefail
old=$1 new=$2 work=${3:-$(mktemp -d)}
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
data=$work/data
mkdir -p "$data"
[ -d "$data/crawl" ] || "$old" -q synth-crawl --docs 20000 --shards 2 -o "$data/crawl"
[ -d "$data/s200k" ] || "$old" -q synth --docs 200000 -o "$data/s200k"
[ -d "$data/crawlstore" ] || "$old" -q fingerprint "$data/crawl" -o "$data/crawlstore"

outputs() {
    local b=$1 o=$2
    rm -rf "$o"
    mkdir -p "$o"
    for be in cpu gpu; do
        for tau in 0 3 6 8; do
            for m in exact random; do
                "$b" -q join "$data/s200k" --tau $tau --method $m --backend $be \
                    -o "$o/s-$be-$tau-$m.tsv" --pairs-bin "$o/s-$be-$tau-$m.bin"
                "$b" -q join "$data/crawlstore" --tau $tau --method $m --backend $be \
                    -o "$o/c-$be-$tau-$m.tsv"
            done
        done
        "$b" -q join "$data/s200k" --tau 6 --tau128 20 --backend $be -o "$o/s-$be-t128.tsv"
        "$b" -q join "$data/s200k" --tau 3 --collapse-exact --backend $be -o "$o/s-$be-units.tsv"
        "$b" -q dedup "$data/crawl" -o "$o/d-$be" --tau 3 --tau-max 8 --backend $be
        "$b" -q sweep "$data/s200k" -o "$o/sw-$be" --tau-max 6 --backend $be
        "$b" -q sweep "$data/s200k" -o "$o/sw128-$be" --tau 6 --tau128-max 16 --backend $be
        "$b" -q cluster "$data/s200k" -o "$o/cl-$be" --tau 4 --representative longest --backend $be
    done
    "$b" -q sweep "$data/crawlstore" --pairs "$o/d-cpu/pairs.bin" -o "$o/swp" --tau-max 5
    # dedup's candidate methods and verification paths: MinHash-LSH verified against kept
    # texts (the default) and every pair listed, SimHash verified with and without the
    # skipped comparisons, unverified, another rule with typed tables, canonical links.
    "$b" -q dedup "$data/crawl" -o "$o/dm-default"
    "$b" -q dedup "$data/crawl" -o "$o/dm-all" --all-pairs
    "$b" -q dedup "$data/crawl" -o "$o/dm-longest" --representative longest --tables jsonl
    "$b" -q dedup "$data/crawl" -o "$o/dm-canonical" --canonical
    "$b" -q dedup "$data/crawl" -o "$o/ds-skip" --candidates simhash --skip-joined --remove-by component
    "$b" -q dedup "$data/crawl" -o "$o/ds-noverify" --no-verify
    rm -rf "$o"/d-*/store
    find "$o" -name summary.json -delete
}

outputs "$old" "$work/old"
outputs "$new" "$work/new"
if diff -r "$work/old" "$work/new"; then
    echo "same outputs: $(find "$work/new" -type f | wc -l) files byte for byte ($work)"
else
    echo "outputs differ ($work)"
    exit 1
fi
