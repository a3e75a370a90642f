#!/usr/bin/env bash
# Behaviour check for refactors: runs two scoresheet binaries over the same inputs and
# diffs everything they write (PGN, JSON, eval figures, cells, fix messages).
#
#   tools/compare_outputs.sh OLD_BIN NEW_BIN [HCS_PAGES_DIR]
#
# Inputs: samples/, and the first 40 pages of HCS_PAGES_DIR (default
# ../shared/data/hcs/pages) read alone, as pairs and with a review budget; HCS
# validation eval; `cells` of one sample; `fix` with one legal and four refused
# corrections. Exit 0 when the outputs are identical (the output folders' own names
# in messages aside).
set -euo pipefail
cd "$(dirname "$0")/.."
old=$(realpath "$1"); new=$(realpath "$2"); hcs=${3:-../shared/data/hcs/pages}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/pages"
if [ -d "$hcs" ]; then
  for f in $(ls "$hcs" | head -40); do ln -s "$(realpath "$hcs/$f")" "$work/pages/$f"; done
fi
run() {
  local b=$1 o=$2
  mkdir -p "$o"
  "$b" read samples -o "$o/samples" -q 2>"$o/samples.err" || true
  if [ -n "$(ls "$work/pages")" ]; then
    "$b" read "$work/pages" -o "$o/hcs" -q 2>"$o/hcs.err" || true
    "$b" read "$work/pages" --pairs -o "$o/pairs" -q 2>"$o/pairs.err" || true
    "$b" eval "$hcs" --labels "$hcs/../labels.tsv" --split val -q >"$o/eval.txt" 2>&1 || true
  fi
  "$b" read samples --review-budget 7 -o "$o/budget" -q 2>"$o/budget.err" || true
  "$b" cells samples/hcs_053_1.jpg -o "$o/cells" >/dev/null 2>&1 || true
  cp -r "$o/samples" "$o/fixed"
  for a in "hcs_142_0.json --cell 3w Nc3" "synth_pl_2.json --ply 4 Sf6" "synth_pl_2.json --cell 0w e4" \
           "synth_pl_2.json --cell 2w Ke2" "synth_pl_2.json --ply 999 e4"; do
    set -- $a
    "$b" fix "$o/fixed/$1" "${@:2}" --by t 2>>"$o/fix.err" || true
  done
  sed -i 's/"at": "[^"]*"/"at": "T"/' "$o"/fixed/*.json
  sed -i -e 's/, [0-9.]* s$//' -e "s#$o##g" "$o"/*.err
}
run "$old" "$work/old"
run "$new" "$work/new"
if diff -r "$work/old" "$work/new"; then echo "compare_outputs: identical"; else echo "compare_outputs: outputs differ"; exit 1; fi
