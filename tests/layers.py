#!/usr/bin/env python3
"""The layers' include arrows point down only: cmd -> ops -> analysis ->
store -> the files every layer shares (agent/*.c) -> the libraries.  main.c,
connect.c and output.c sit with the commands.  Prints each arrow that runs
up a layer and exits 1 when there is one (docs/architecture.md)."""
import glob
import os
import re
import sys

LEVEL = {'cmd': 5, 'ops': 4, 'analysis': 3, 'store': 2, '': 1}
WITH_COMMANDS = {'main.c': 6, 'connect.c': 5, 'output.c': 5}


def level(path):
    rel = os.path.relpath(path, 'agent')
    folder = os.path.dirname(rel)
    if folder == '' and os.path.basename(rel) in WITH_COMMANDS:
        return WITH_COMMANDS[os.path.basename(rel)]
    return LEVEL[folder]


def main():
    os.chdir(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)) + '/..')
    up = []
    for f in sorted(glob.glob('agent/**/*.[ch]', recursive=True)):
        for inc in re.findall(r'#include "([^"]+)"', open(f, encoding='utf-8').read()):
            if inc.startswith('nfsagent/'):
                continue
            target = os.path.join('agent', inc)
            if not os.path.exists(target):
                target = os.path.join(os.path.dirname(f), inc)
            if level(target) > level(f):
                up.append(f'{f} -> {inc}')
    for arrow in up:
        print(arrow)
    print(f'upward: {len(up)}')
    return 1 if up else 0


sys.exit(main())
