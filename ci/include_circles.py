#!/usr/bin/env python3
"""ci/include_circles.py — circles in the include graph between modules (issue 21).

A module is X.c with its X.h. X uses Y when X.c or X.h includes Y.h (Y.c existing). A header with
no .c of its own — a module's private header (jobs_internal.h, testee_child.h, the SQLite store's
store_sqlite_internal.h) or a header-only interface — is followed through: what it includes
counts as included by the file that includes it, so a multi-file module's private header makes
no circle. Prints each circle (a strongly connected set of modules, sorted, joined by " <-> ")
and "N circles among M modules". Usage: include_circles.py [DIR...] (default: core conformance
fuzz), run from the checkout's root. Exits 0 (the caller decides which circles are allowed).
"""
import os
import re
import sys

INCLUDE = re.compile(r'^#include "([^"]+)"', re.M)


def main(roots):
    files = {}
    for root in roots:
        for d, dirs, names in os.walk(root):
            # the project's own sources only: not a testee's npm packages or .NET build output
            dirs[:] = sorted(x for x in dirs if x not in ('node_modules', 'bin', 'obj') and not x.startswith('.'))
            for n in names:
                if n.endswith(('.c', '.h')) and not n.endswith('_test.c'):
                    p = os.path.join(d, n)
                    with open(p, errors='replace') as f:
                        files[p] = INCLUDE.findall(f.read())

    def module_of(header):
        base = header[:-2]
        return base if base + '.c' in files else None

    def uses(path, seen):
        out = set()
        for inc in files.get(path, []):
            if inc not in files or inc in seen:
                continue
            seen.add(inc)
            m = module_of(inc)
            if m:
                out.add(m)
            else:
                out |= uses(inc, seen)
        return out

    graph = {}
    for p in files:
        if p.endswith('.c'):
            m = p[:-2]
            for own in (p, m + '.h'):
                graph.setdefault(m, set()).update(x for x in uses(own, {own}) if x != m)

    # Tarjan's strongly connected components, iteratively.
    index, low, on_stack, stack, circles, counter = {}, {}, set(), [], [], 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            v, children = work[-1]
            advanced = False
            for w in children:
                if w not in graph:
                    continue
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    advanced = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1:
                    circles.append(' <-> '.join(sorted(component)))
    for c in sorted(circles):
        print('circle: ' + c)
    print(f'{len(circles)} circles among {len(graph)} modules')


if __name__ == '__main__':
    main(sys.argv[1:] or ['core', 'conformance', 'fuzz'])
