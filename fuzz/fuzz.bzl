"""turnstile_fuzz_test: one fuzz target source, every build of it (after rules_fuzzing's cc_fuzz_test).

From one `LLVMFuzzerTestOneInput` source, `turnstile_fuzz_test(name = "t", ...)` makes:

  :t        a cc_test replaying corpora/t/seeds and corpora/t/regressions with no fuzzing
            engine, so every `bazel test //...` (and --config=asan) replays every corpus;
  :t_bin    the fuzzing binary; the engine comes from the build configuration, never from
            editing BUILD files: --config=libfuzzer links libFuzzer, --config=afl links AFL++'s
            libFuzzer driver (persistent mode, __AFL_LOOP), --define=fuzz_engine=external links
            no main (OSS-Fuzz's $LIB_FUZZING_ENGINE comes as --linkopt), otherwise the replay main;
  :t_run    a launcher: `bazel run --config=libfuzzer //fuzz:t_run -- -max_total_time=60`
            fuzzes with a writable copy of the seeds and the target's dictionary (libFuzzer, or
            afl-fuzz with --config=afl; run_fuzzer.sh). Its own arguments are named
            (--bin=, --corpus=, --dict=), so a target without a dictionary shifts nothing.

Non-test targets are tagged "manual" so that //... builds only what every config can build.
"""

def turnstile_fuzz_test(name, srcs, deps = [], dict = None, size = "small", timeout = None):
    lib = name + "_lib"
    native.cc_library(
        name = lib,
        srcs = srcs,
        deps = deps,
        testonly = True,
        alwayslink = True,
    )
    corpus = "//corpora:" + name
    native.cc_test(
        name = name,
        size = size,
        timeout = timeout,
        deps = [":" + lib, "//fuzz:replay_main"],
        data = [corpus],
        args = [
            "corpora/%s/seeds" % name,
            "corpora/%s/regressions" % name,
        ],
    )
    native.cc_binary(
        name = name + "_bin",
        deps = [":" + lib] + select({
            "//fuzz:libfuzzer_engine": [],
            "//fuzz:afl_engine": ["//fuzz:afl_driver"],
            "//fuzz:external_engine": [],
            "//conditions:default": ["//fuzz:replay_main"],
        }),
        linkopts = select({
            "//fuzz:libfuzzer_engine": ["-fsanitize=fuzzer"],
            "//conditions:default": [],
        }),
        testonly = True,
        tags = ["manual"],
    )
    native.sh_binary(
        name = name + "_run",
        srcs = ["//fuzz:run_fuzzer.sh"],
        args = [
            "--bin=$(location :%s_bin)" % name,
            "--corpus=corpora/%s" % name,
        ] + (["--dict=$(location %s)" % dict] if dict else []) + ["--"],
        data = [":" + name + "_bin", corpus] + ([dict] if dict else []),
        testonly = True,
        tags = ["manual"],
    )
