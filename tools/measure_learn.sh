#!/usr/bin/env bash
# Measures `scoresheet learn` on collections with known truth, with a simulated
# reviewer (tools/simulate_review.py):
#   hcs:   HCS training games (not the selection games) read and reviewed; `learn`
#          from the first N reviewed sheets; then the HCS selection games (never
#          trained on) read by `eval` with the base and the learned reader.
#   forms: generator pages in held-out form families and validation hands
#          (`training.forms --families held-out --fonts val`), every other page read and
#          reviewed, `learn` from them, the others read by `eval` with both readers.
# Usage (from the repository root; heavy: run under `flock /work/heavy.lock`):
#   tools/measure_learn.sh [hcs|forms|all]
# Environment: BIN (default target/release/scoresheet), WORK (default
# /work/scratch/learn/measure), HCS (default ../shared/data/hcs), NS (default
# "5 10 35"), REVIEWED (HCS pages read and reviewed, default 35), SELECT (HCS
# selection pages read, default all 21), STEPS (default: learn's own), PYLIB (PYTHONPATH for the generator,
# default training/.qa/lib), FORMS_PER_FAMILY (default 6), FORMS_SEED (default 71), LEARN_ARGS (more `learn`
# flags, e.g. "--replay-share 0"), TAG (suffix of the run's model and eval names).
set -euo pipefail
BIN=$(realpath "${BIN:-target/release/scoresheet}")
WORK=${WORK:-/work/scratch/learn/measure}
HCS=$(realpath "${HCS:-../shared/data/hcs}")
NS=${NS:-"5 10 35"}
PYLIB=${PYLIB:-training/.qa/lib}
what=${1:-all}
steps=()
[[ -n "${STEPS:-}" ]] && steps=(--steps "$STEPS")
read -r -a extra <<< "${LEARN_ARGS:-}"
tag=${TAG:-}
mkdir -p "$WORK"

summary() { # eval --json -> one line
  python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
s=d.get("summary",d)
keys=["sheets","cells","cell_accuracy","plies","ply_accuracy","exact_games","flagged","silent_errors","calibration_error"]
print(" ".join(f"{k}={s[k]:.4f}" if isinstance(s.get(k),float) else f"{k}={s.get(k)}" for k in keys if k in s))' "$1"
}

learn_and_eval() { # name reviewed_dir rest_images... (eval args after --)
  local name=$1 reviewed=$2; shift 2
  local n
  for n in $NS; do
    local dir="$WORK/$name/rev$n" model="$WORK/$name/model$n$tag"
    rm -rf "$dir" "$model"; mkdir -p "$dir"
    local count=0
    for f in $(ls "$reviewed"/*.json | sort); do
      grep -q '"moves"' "$f" || continue
      cp "$f" "${f%.json}.pgn" "$dir/" 2>/dev/null || cp "$f" "$dir/"
      count=$((count + 1)); [[ $count -ge $n ]] && break
    done
    echo "== $name: learn from $count reviewed sheets"
    local t0=$SECONDS
    if "$BIN" learn "$dir" -o "$model" -q "${steps[@]}" "${extra[@]}" 2>&1 | tee "$WORK/$name/learn$n$tag.txt"; then :; fi
    echo "   learn took $((SECONDS - t0)) s"
    if [[ -f "$model/cellreader-learned.json" ]]; then
      "$BIN" eval "$@" --model "$model/cellreader-learned.json" -q --json > "$WORK/$name/eval_new$n$tag.json"
      echo "   rest, learned reader: $(summary "$WORK/$name/eval_new$n$tag.json")"
    else
      echo "   no reader written"
    fi
  done
}

if [[ $what == hcs || $what == all ]]; then
  mkdir -p "$WORK/hcs/reviewed_pages" "$WORK/hcs/select_pages"
  python3 - "$HCS" "$WORK/hcs" <<'PY'
import json, os, sys
from pathlib import Path
hcs, work = Path(sys.argv[1]), Path(sys.argv[2])
split = json.loads(Path("training/split.json").read_text())
train = sorted(split["hcs_train_games"])
select = set(train[::7])
labelled = {l.split("\t")[0] for l in (hcs / "labels.tsv").read_text().splitlines()[1:]}
for page in sorted((hcs / "pages").glob("*.jpg")):
    game = page.stem[:3]
    if game not in train or page.stem not in labelled:
        continue
    dest = work / ("select_pages" if game in select else "reviewed_pages") / page.name
    if not dest.exists() and not dest.is_symlink():
        os.symlink(page, dest)
PY
  if [[ ! -d "$WORK/hcs/reviewed" ]]; then
    # The first 35 training pages (by name) are the reviewed collection.
    mkdir -p "$WORK/hcs/reviewed_35"
    for p in $(ls "$WORK/hcs/reviewed_pages" | sort | head -"${REVIEWED:-35}"); do ln -sf "$WORK/hcs/reviewed_pages/$p" "$WORK/hcs/reviewed_35/$p"; done
    "$BIN" read "$WORK/hcs/reviewed_35" -o "$WORK/hcs/reviewed" -q
    python3 tools/simulate_review.py "$WORK/hcs/reviewed" --labels "$HCS/labels.tsv" --scoresheet "$BIN" | tail -1
  fi
  if [[ -n "${SELECT:-}" ]]; then
    mkdir -p "$WORK/hcs/select_some"
    for p in $(ls "$WORK/hcs/select_pages" | sort | head -"$SELECT"); do ln -sf "$WORK/hcs/select_pages/$p" "$WORK/hcs/select_some/$p"; done
    select_dir="$WORK/hcs/select_some"
  else
    select_dir="$WORK/hcs/select_pages"
  fi
  "$BIN" eval "$select_dir" --labels "$HCS/labels.tsv" -q --json > "$WORK/hcs/eval_base.json"
  echo "== hcs selection games, base reader: $(summary "$WORK/hcs/eval_base.json")"
  learn_and_eval hcs "$WORK/hcs/reviewed" "$select_dir" --labels "$HCS/labels.tsv"
fi

if [[ $what == forms || $what == all ]]; then
  F="$WORK/forms"
  if [[ ! -d "$F/pages" ]]; then
    PYTHONPATH="$PYLIB" python3 -m training.forms --out "$F/pages" --families held-out \
      --per-family "${FORMS_PER_FAMILY:-6}" --fonts val --seed "${FORMS_SEED:-71}" > /dev/null
  fi
  mkdir -p "$F/first" "$F/second"
  mapfile -t pages < <(ls "$F/pages" | grep -E '\.png$' | sort)
  for i in "${!pages[@]}"; do
    p=${pages[$i]}; stem=${p%.png}
    # A continuation sheet is not read alone; truth is the cell labels (and the game).
    [[ $stem == *continuation* ]] && continue
    [[ -f "$F/pages/$stem.tsv" || -f "$F/pages/$stem.pgn" ]] || continue
    d=$([[ $((i % 2)) -eq 0 ]] && echo first || echo second)
    for ext in png tsv pgn; do
      [[ -f "$F/pages/$stem.$ext" ]] && ln -sf "$F/pages/$stem.$ext" "$F/$d/$stem.$ext"
    done
  done
  if [[ ! -d "$F/reviewed" ]]; then
    "$BIN" read "$F/first" -o "$F/reviewed" -q
    python3 tools/simulate_review.py "$F/reviewed" --scoresheet "$BIN" | tail -1
  fi
  "$BIN" eval "$F/second" -q --json > "$F/eval_base.json"
  echo "== forms, the pages not reviewed, base reader: $(summary "$F/eval_base.json")"
  learn_and_eval forms "$F/reviewed" "$F/second"
fi
