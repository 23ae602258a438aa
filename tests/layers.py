#!/usr/bin/env python3
"""The layers' include arrows point down only: cmd -> ops -> analysis ->
store -> the files every layer shares (agent/*.c) -> the libraries.  main.c,
connect.c and output.c sit with the commands.  Prints each arrow that runs
up a layer and exits 1 when there is one (docs/architecture.md).

The command line's declarations (cmd/cmd.h: how a command ended, the
options, the commands) stay with the commands too: a file below them
(store/, analysis/, ops/, a shared agent/*.[ch]) that names one fails as
well, whichever header brought it, so that no shared header carries them
down again."""
import glob
import os
import re
import sys

LEVEL = {'cmd': 5, 'ops': 4, 'analysis': 3, 'store': 2, '': 1}
WITH_COMMANDS = {'main.c': 6, 'connect.c': 5, 'output.c': 5}
# What cmd/cmd.h declares for the commands alone.
CLI_WORDS = re.compile(r'\b(na_outcome|na_usage_error|na_command(_spec)?|na_conn_option|'
                       r'na_parse_(local_)?options|NA_OPT_\w+|NA_CONNECT_\w+|'
                       r'NA_HOST_CHOICE_LONGOPTS|na_host_choice_(option|check)|'
                       r'na_parse_recheck|na_central_url|cmd_\w+(?=\s*\()|getopt\w*|'
                       r'struct\s+option)\b')
# Comments and literals, in one pass so that "//" in a string stays put.
NOT_CODE = re.compile(r'/\*.*?\*/|//[^\n]*|"(\\.|[^"\\\n])*"|\'(\\.|[^\'\\\n])*\'', re.S)


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
        text = open(f, encoding='utf-8').read()
        for inc in re.findall(r'#include "([^"]+)"', text):
            if inc.startswith('nfsagent/'):
                continue
            target = os.path.join('agent', inc)
            if not os.path.exists(target):
                target = os.path.join(os.path.dirname(f), inc)
            if level(target) > level(f):
                up.append(f'{f} -> {inc}')
        if level(f) < LEVEL['cmd']:
            for word in sorted({m.group(0) for m in CLI_WORDS.finditer(NOT_CODE.sub(' ', text))}):
                up.append(f'{f}: {word} is the command line\'s (cmd/cmd.h)')
    for arrow in up:
        print(arrow)
    print(f'upward: {len(up)}')
    return 1 if up else 0


sys.exit(main())
