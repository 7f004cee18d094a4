#!/usr/bin/env bash
# resume_history_test.sh TURNSTILE [SCRIPT] — runs resume_history_test.py (the universal resume rules
# on edited histories: what the SPEC allows passes, each breach draws its own rule), or another
# script of this directory that works the same way (resume_branch_test.py: the branch rules).
set -eu
exec python3 "conformance/checkers/resume/${2:-resume_history_test.py}" "$1"
