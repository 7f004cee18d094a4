"""Offline stand-in for @rules_cc//cc:defs.bzl.

Bazel 4.2.3 (Debian's bazel-bootstrap) loads these names from @rules_cc inside @bazel_tools and
would download the real repository to find them. Each one re-exports the native rule, which is
what the real rules_cc of that era did too.
"""

cc_binary = native.cc_binary
cc_library = native.cc_library
cc_test = native.cc_test
cc_toolchain = native.cc_toolchain
cc_toolchain_suite = native.cc_toolchain_suite
cc_proto_library = native.cc_proto_library
objc_library = native.objc_library
