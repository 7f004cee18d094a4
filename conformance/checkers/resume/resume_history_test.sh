#!/usr/bin/env bash
# resume_history_test.sh — runs resume_history_test.py (the universal resume rules on edited
# histories: what the SPEC allows passes, each breach draws its own rule).
set -eu
exec python3 conformance/checkers/resume/resume_history_test.py "$1"
