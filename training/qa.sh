#!/usr/bin/env bash
# Checks of the Python side, without PyTorch: ruff (lint, import order), mypy, and the
# table and field-scoring tests (training/test_tables.py, test_fields.py). Exits non-zero on any finding.
#
#     training/qa.sh          # from anywhere; needs python3 with pip
#
# The tools (training/requirements-qa.txt) and numpy, pillow and chess at
# training/requirements.txt's pins go into training/.qa/ (ignored) on first use, again
# only when a pin or the Python version changes.
set -euo pipefail
cd "$(dirname "$0")/.."

py="${PYTHON:-python3}"
dir=training/.qa
deps=$(grep -E '^(numpy|pillow|chess)==' training/requirements.txt)
# shellcheck disable=SC2046,SC2086
want=$(echo $("$py" --version 2>&1) $(grep -v '^#' training/requirements-qa.txt) $deps)
if [ "$(cat "$dir/installed" 2>/dev/null)" != "$want" ]; then
  echo "qa: installing into $dir: $want"
  rm -rf "$dir"
  # shellcheck disable=SC2086
  PIP_ROOT_USER_ACTION=ignore "$py" -m pip install --quiet --disable-pip-version-check --target "$dir/lib" \
    -r training/requirements-qa.txt $deps
  printf '%s' "$want" >"$dir/installed"
fi
export PYTHONPATH="$PWD/$dir/lib${PYTHONPATH:+:$PYTHONPATH}"
export RUFF_CACHE_DIR="$dir/ruff-cache" MYPY_CACHE_DIR="$dir/mypy-cache"

status=0
echo "qa: ruff check training"
"$dir/lib/bin/ruff" check training || status=1
echo "qa: mypy training"
"$py" -m mypy --config-file training/pyproject.toml training || status=1
echo "qa: python -m unittest training.test_tables training.test_fields"
"$py" -m unittest training.test_tables training.test_fields || status=1
if [ "$status" = 0 ]; then echo "qa: all passed"; else echo "qa: FAILED"; fi
exit "$status"
