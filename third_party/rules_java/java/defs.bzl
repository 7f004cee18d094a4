"""Offline stand-in for @rules_java//java:defs.bzl: re-exports the native Java rules that
Bazel 4.2.3's @bazel_tools loads from it (turnstile builds no Java)."""

java_binary = native.java_binary
java_import = native.java_import
java_library = native.java_library
java_proto_library = native.java_proto_library
java_runtime = native.java_runtime
java_toolchain = native.java_toolchain
