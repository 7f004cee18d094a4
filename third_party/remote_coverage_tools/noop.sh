#!/bin/sh
# Deliberately does nothing: see BUILD.bazel.
exit 0
