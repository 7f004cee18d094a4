#!/usr/bin/env python3
"""ci/docs_paths_check.py ROOT — the testee kits' READMEs point only at files that are there.

ROOT holds conformance/: a checkout, or an install's share/turnstile (ci/release_test.sh checks the
archive's). In every README.md under ROOT/conformance/testees, each relative markdown link and each
`backticked/path` is resolved (conformance/... from ROOT, the rest from the README's directory)
and must exist, unless its paragraph (or table) says it is the repository's: a path only a
checkout has (ci/, core/, an adapter the release leaves out) may be named only where the text says
so ("repository" or "checkout"). Bazel labels (//...), URLs, names without a slash and
placeholders (<...>, *, $) are not paths. Prints each dangling reference; exit 1 if any."""
import os
import re
import sys

CHECKOUT_ONLY = ("ci/", "core/", "fuzz/", "corpora/", "third_party/", ".github/", ".ci/", ".clusterfuzzlite/")


def main():
    root = sys.argv[1]
    base = os.path.join(root, "conformance", "testees")
    problems, checked = [], 0
    for directory, _, files in sorted(os.walk(base, followlinks=True)):
        if "node_modules" in directory.split(os.sep):
            continue
        for name in sorted(files):
            if name != "README.md":
                continue
            readme = os.path.join(directory, name)
            shown = os.path.relpath(readme, root)
            lines = open(readme, encoding="utf-8").read().split("\n")
            # each line's paragraph: the run of non-blank lines around it
            says_repository, start = [False] * len(lines), 0
            for end in range(len(lines) + 1):
                if end == len(lines) or not lines[end].strip():
                    flag = any(re.search(r"repositor|checkout", l, re.I) for l in lines[start:end])
                    for i in range(start, end):
                        says_repository[i] = flag
                    start = end + 1
            for number, line in enumerate(lines, 1):
                for target in re.findall(r"`([^`\s]+)`", line) + re.findall(r"\]\(([^)\s]+)\)", line):
                    target = target.split("#")[0]
                    if (not target or target.startswith("//") or "://" in target or "/" not in target
                            or any(c in target for c in "<>*$(){}")):
                        continue
                    checked += 1
                    if says_repository[number - 1]:
                        continue
                    if target.startswith(CHECKOUT_ONLY):
                        problems.append("%s:%d: names %s, which only a checkout has, without saying so" % (shown, number, target))
                        continue
                    start = root if target.startswith("conformance/") else directory
                    if not os.path.exists(os.path.normpath(os.path.join(start, target))):
                        problems.append("%s:%d: %s does not exist here" % (shown, number, target))
    for problem in problems:
        print(problem)
    print("%d paths checked in the kits' READMEs under %s, %d dangling" % (checked, base, len(problems)))
    return 1 if problems or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
