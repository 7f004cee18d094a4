#!/usr/bin/env python3
"""ci/docs_paths_check.py ROOT — the testee kits' READMEs point only at files that are there.

ROOT holds conformance/: a checkout, or an install's share/turnstile (ci/release_test.sh checks the
archive's). In every README.md under ROOT/conformance/testees, each relative markdown link and each
`backticked/path` is resolved (conformance/... from ROOT, the rest from the README's directory)
and must exist, unless its paragraph (or table) says it is the repository's: a path only a
checkout has (ci/, core/, an adapter the release leaves out) may be named only where the text says
so ("repository" or "checkout"). Bazel labels (//...), URLs, names without a slash and
placeholders (<...>, *, $) are not paths. Prints each dangling reference; exit 1 if any.

ci/docs_paths_check.py --repository ROOT — every markdown file the checkout tracks (git ls-files)
points only at files that exist: each relative markdown link, each backticked `./` or `../` path
(from the file's directory) and each backticked path under a top-level folder (conformance/, ci/,
core/, ...: from ROOT, or from the file's directory). A `path:LINE` reference is checked as path.
Upstream libraries' paths (dotnet/src/..., @scope/package) are not this repository's and are not
checked. ci/docs_test.sh runs this mode."""
import os
import re
import subprocess
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


def repository(root):
    tops = CHECKOUT_ONLY + ("conformance/",)
    files = subprocess.run(["git", "-C", root, "ls-files", "*.md"], capture_output=True, text=True,
                           check=True).stdout.split()
    problems, checked = [], 0
    for shown in files:
        if "node_modules/" in shown:
            continue
        directory = os.path.dirname(os.path.join(root, shown))
        for number, line in enumerate(open(os.path.join(root, shown), encoding="utf-8"), 1):
            links = re.findall(r"\]\(([^)\s]+)\)", line)
            ticked = [t for t in re.findall(r"`([^`\s]+)`", line) if t.startswith(("./", "../") + tops)]
            for target in links + ticked:
                target = target.split("#")[0]
                if target in ticked:
                    target = re.sub(r":[0-9][0-9,-]*$", "", target)
                if (not target or "://" in target or target.startswith("mailto:")
                        or any(c in target for c in "<>*$(){}[]…")):
                    continue
                checked += 1
                here = os.path.normpath(os.path.join(directory, target))
                top = os.path.normpath(os.path.join(root, target))
                if not os.path.exists(here) and not (target.startswith(tops) and os.path.exists(top)):
                    problems.append("%s:%d: %s does not exist" % (shown, number, target))
    for problem in problems:
        print(problem)
    print("%d paths checked in %d markdown files of %s, %d dangling" % (checked, len(files), root, len(problems)))
    return 1 if problems or checked == 0 else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--repository":
        sys.exit(repository(sys.argv[2]))
    sys.exit(main())
