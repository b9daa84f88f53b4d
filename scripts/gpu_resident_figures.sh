#!/usr/bin/env bash
# The figures of issue 55's target table on one GPU machine, side by side in one run: GPU
# pairs against CPU pairs (2 M fingerprints, tau 0, 3, 6, 8), then the resident GPU join, the
# machine's CPU cores, the resident join's comparisons four columns a step (--unroll) and the
# batched GPU join (--batched), each `neardup bench` line cut at LIMIT seconds, and the tau
# sweep on both backends with their tables compared. A figure that would not finish before
# DEADLINE seconds (default 500, for a 540 s call) is skipped and says so, so one call gives
# as many figures as fit, in the order of what matters most.
#
# On an H100/H200 machine, after `bash ../shared/gpu/prepare.sh` here (which puts the
# stripped binary and the Vulkan loader into .device/), copy this script into .device/ and
# run it there instead of on-device.sh:
#     cp scripts/gpu_resident_figures.sh .device/   # here
#     bash .device/gpu_resident_figures.sh          # on the device, timeout_s 540
# Everything goes to $OUT/resident.log, one line per figure to $OUT/resident.tsv.
# ONLY="resident_exact_tau6 cpu_exact_tau6 sweep" runs only those figures (and the equality).
# The measured H200 run of 2026-12-04 took about 250 s for every figure but the CPU's tau 8.
# A dry run on Mesa's lavapipe here: ND=target/release/neardup SYN=20000 MID=200000 BIG=200000 bash scripts/gpu_resident_figures.sh
set -uo pipefail
OUT="${OUT:-/tmp/device-out}"; mkdir -p "$OUT"
exec > >(tee "$OUT/resident.log") 2>&1
cd "$(dirname "$0")/.."
ND="${ND:-$PWD/.device/neardup}"; W=/tmp/nd-resident; rm -rf "$W"; mkdir -p "$W"
SYN=${SYN:-2000000}; MID=${MID:-82500000}; BIG=${BIG:-100000000}; LIMIT=${LIMIT:-100}
DEADLINE=${DEADLINE:-500}
fig() { printf '%s\t%s\n' "$1" "$2" >> "$OUT/resident.tsv"; echo "FIGURE $1: $2"; }
left() { echo $((DEADLINE - SECONDS)); }
want() { [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $1 "* ]]; }
# run NAME NEED CMD...: skipped unless wanted and NEED seconds are left; cut at LIMIT or
# what is left.
run() {
  local name=$1 need=$2; shift 2
  want "$name" || return 0
  if [ "$(left)" -lt "$need" ]; then fig "$name" "skipped: $(left) s left"; return 1; fi
  local lim=$LIMIT; [ "$lim" -gt "$(( $(left) - 3 ))" ] && lim=$(( $(left) - 3 ))
  local t0=$SECONDS
  echo "== $name: $*"
  timeout "$lim" "$@" > "$W/last.log" 2>&1; local rc=$?
  cat "$W/last.log"
  fig "$name" "$(grep -E '^(neardup bench|join|gpu|host|device|comparisons|bound|table weight)' "$W/last.log" | tr '\n' ' ' | cut -c1-900) [rc $rc, $((SECONDS - t0)) s]"
  return $rc
}

# The Vulkan loader and NVIDIA's driver, as on-device.sh sets them up (neardup adds the
# driver's display-free library to the list VK_DRIVER_FILES names).
if ls .device/gl/*.deb >/dev/null 2>&1; then for f in .device/gl/*.deb; do dpkg -x "$f" /; done; ldconfig; fi
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f "$icd" ] && export VK_DRIVER_FILES="$icd"
date -u; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>&1 | tail -1
lscpu 2>/dev/null | grep -E '^Model name|^CPU\(s\)'
"$ND" gpus || true

echo "== GPU pairs = CPU pairs ($SYN synthetic fingerprints)"
"$ND" synth --docs "$SYN" -q -o "$W/syn" || echo "synth failed"
for tau in 0 3 6 8; do
  timeout 60 "$ND" join "$W/syn" --tau $tau --backend gpu -q -o "$W/g$tau.tsv"; rg=$?
  timeout 60 "$ND" join "$W/syn" --tau $tau --backend cpu -q -o "$W/c$tau.tsv"
  if [ $rg = 0 ] && cmp -s <(sort "$W/g$tau.tsv") <(sort "$W/c$tau.tsv"); then eq=equal; else eq="DIFFER (gpu rc $rg)"; fi
  fig "join_equal_tau$tau" "$eq ($(wc -l < "$W/g$tau.tsv") gpu lines, $(wc -l < "$W/c$tau.tsv") cpu lines)"
done

B="$ND bench"
run resident_exact_tau6 30 $B --docs "$MID" --tau 6 --backend gpu
run cpu_exact_tau6 30 $B --docs "$MID" --tau 6 --backend cpu
run resident_exact_tau3 20 $B --docs "$BIG" --tau 3 --backend gpu
run cpu_exact_tau3 20 $B --docs "$BIG" --tau 3 --backend cpu
run resident_exact_tau8 30 $B --docs "$MID" --tau 8 --backend gpu
run unrolled_exact_tau6 30 $B --docs "$MID" --tau 6 --backend gpu --unroll
run unrolled_exact_tau8 30 $B --docs "$MID" --tau 8 --backend gpu --unroll
run resident_random_tau6 30 $B --docs "$BIG" --tau 6 --method random --bits 16 --iterations 20 --backend gpu
if want sweep && [ "$(left)" -gt 200 ]; then
  echo "== tau sweep 0..8 of $MID fingerprints, one join at tau 8"
  t0=$SECONDS; timeout 90 "$ND" synth --docs "$MID" -q -o "$W/mid"; fig synth_mid "rc $? in $((SECONDS - t0)) s"
  run sweep_tau8_gpu 40 "$ND" sweep "$W/mid" --tau-max 8 --backend gpu -o "$W/swgpu"
  run sweep_tau8_cpu 100 "$ND" sweep "$W/mid" --tau-max 8 --backend cpu -o "$W/swcpu" &&
    { cmp -s "$W/swgpu/sweep.tsv" "$W/swcpu/sweep.tsv" && fig sweep_same equal || fig sweep_same "DIFFER or missing"; }
elif want sweep; then fig sweep "skipped: $(left) s left"; fi
run batched_exact_tau6 30 $B --docs "$MID" --tau 6 --backend gpu --batched
run cpu_exact_tau8 90 $B --docs "$MID" --tau 8 --backend cpu
date -u; echo "done in $SECONDS s"
