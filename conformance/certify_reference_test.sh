#!/usr/bin/env bash
# certify_reference_test.sh — `turnstile certify --reference` over the whole suite, as a Bazel
# test: its JUnit report becomes the test's XML ($XML_OUTPUT_FILE), so CI shows every case.
set -eu
export TURNSTILE_SUITE=conformance/cases
exec "$1" certify --reference
