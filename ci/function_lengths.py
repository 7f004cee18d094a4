#!/usr/bin/env python3
"""ci/function_lengths.py — product C functions longer than the charter's ~80 lines (issue 21).

Lists every function definition in the product's C files (core/, conformance/, fuzz/; not
*_test.c, not third_party/) whose body, from its first line to its closing brace in column 0,
is longer than --max lines (default 80), longest first: "LINES PATH:LINE NAME". With --allowed
FILE (lines "PATH NAME  # why", '#' comments), a listed function is argued and not counted, and
the script exits 1 when a function not listed is too long, or a listed one no longer is (a stale
argument). Without it, it only lists (exit 0). Run from the checkout's root.
"""
import argparse
import os
import re
import sys

DEFINITION = re.compile(r'^(?:static )?(?:inline )?(?:const )?[A-Za-z_][\w \*]*?\b(\w+)\(')


def long_functions(roots, limit):
    found = []
    for root in roots:
        for d, dirs, names in os.walk(root):
            # the project's own sources only: not a testee's npm packages or .NET build output
            dirs[:] = sorted(x for x in dirs if x not in ('node_modules', 'bin', 'obj') and not x.startswith('.'))
            for n in sorted(names):
                if not n.endswith('.c') or n.endswith('_test.c'):
                    continue
                path = os.path.join(d, n)
                with open(path, errors='replace') as f:
                    lines = f.read().split('\n')
                i = 0
                while i < len(lines):
                    m = DEFINITION.match(lines[i])
                    if m and not lines[i].rstrip().endswith(';'):
                        j = i
                        while j < len(lines) and '{' not in lines[j] and not lines[j].rstrip().endswith(';'):
                            j += 1
                        if j < len(lines) and '{' in lines[j]:
                            k = j
                            while k < len(lines) and lines[k] != '}':
                                k += 1
                            if k - i + 1 > limit:
                                found.append((k - i + 1, path, i + 1, m.group(1)))
                            i = k
                    i += 1
    return sorted(found, key=lambda f: (-f[0], f[1], f[2]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--max', type=int, default=80)
    parser.add_argument('--allowed')
    parser.add_argument('roots', nargs='*', default=['core', 'conformance', 'fuzz'])
    args = parser.parse_args()
    found = long_functions(args.roots, args.max)
    if not args.allowed:
        for length, path, line, name in found:
            print(f'{length:5d} {path}:{line} {name}')
        print(f'{len(found)} functions over {args.max} lines')
        return 0
    allowed = set()
    with open(args.allowed) as f:
        for raw in f:
            entry = raw.split('#', 1)[0].split()
            if entry:
                allowed.add((entry[0], entry[1]))
    failed = 0
    seen = set()
    for length, path, line, name in found:
        seen.add((path, name))
        if (path, name) not in allowed:
            print(f'FAIL: {path}:{line} {name} is {length} lines (over {args.max}): split it, or argue it in {args.allowed}',
                  file=sys.stderr)
            failed += 1
    for path, name in sorted(allowed - seen):
        print(f'FAIL: {args.allowed} argues for {path} {name}, which is no longer over {args.max} lines: drop the entry',
              file=sys.stderr)
        failed += 1
    print(f'{len(found)} functions over {args.max} lines, {len(allowed)} argued, {failed} failures')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
