#!/usr/bin/env python3
"""Checks that no file reaches another layer's private names.

Private names are those with two underscores (dag__x, DAG__X). A file may
name its own, those of the layers below it that it is allowed to see, and
the public part of dag.h (everything before `#ifdef DAG_IMPLEMENTATION`,
where the macros that expand in a user's file live). The layers:

  dag.h (implementation)   the core: sees no device file; reaches the device
                           layer only through what its >>device seam declares
  dag_backends/dag_device.h  the device layer: sees the core, not a backend's
                           own names (only their dag__X_ops tables)
  dag_backends/dag_X.h     a backend: sees the core and the device layer, no
                           other backend (dag_gpu_stream.h serves CUDA and HIP,
                           which may use its names)
  dag_kernels.h, dag_blas.h, dag_array_kernels.h, dag_array.h, dag_table.h
                           libraries on the public API: dag.h's public part
                           and the libraries they include, nothing private

Usage: check_layers.py [repository root]. Prints each crossing; exits 1 if any.
"""
import os
import re
import sys

NAME = re.compile(r'\b(dag__\w+|DAG__\w+)\b')
DEFINITIONS = [
    re.compile(r'^\s*#\s*define\s+(\w+)', re.M),
    re.compile(r'^(?:static\s+|extern\s+|inline\s+|const\s+|DAG__\w+\s+)*[\w\s\*]*?\b(dag__\w+)\s*\(', re.M),
    re.compile(r'^(?:static\s+|extern\s+)[^;(=]*?\b(dag__\w+)\s*(?:\[[^\]]*\]\s*)*[=;]', re.M),
    re.compile(r'\}\s*(dag__\w+)\s*;'),
    re.compile(r'\btypedef\s+[^;{]*?\b(dag__\w+)\s*;'),
    re.compile(r'\b(?:struct|union|enum)\s+(dag__\w+)\s*\{'),
    re.compile(r'^\s+(DAG__\w+)\s*(?:=(?!=)[^,\n]*)?,', re.M),   # enum constants (not a == b,)
]


def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group(0).count('\n'), text, flags=re.S)
    text = re.sub(r'//[^\n]*', '', text)
    return re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)


def defined(text):
    names = set()
    for pattern in DEFINITIONS:
        names.update(n for n in pattern.findall(text) if NAME.fullmatch(n))
    return names


def main(root):
    def read(path):
        with open(os.path.join(root, path)) as f:
            return strip_comments(f.read())

    core_all = read('dag.h')
    cut = core_all.index('#ifdef DAG_IMPLEMENTATION')
    public, core = core_all[:cut], core_all[cut:]
    seam_start = core.index('#if DAG__DEVICE_BACKENDS(DAG__BACKEND_ON)')
    seam = core[seam_start:core.index('#else', seam_start)]
    device = read('dag_backends/dag_device.h')
    backends = sorted(f for f in os.listdir(os.path.join(root, 'dag_backends'))
                      if f.endswith('.h') and f != 'dag_device.h')
    libraries = ['dag_kernels.h', 'dag_blas.h', 'dag_array_kernels.h', 'dag_array.h', 'dag_table.h']

    own = {'dag.h (public part)': defined(public), 'dag.h': defined(core),
           'dag_backends/dag_device.h': defined(device)}
    texts = {'dag.h': core, 'dag_backends/dag_device.h': device}
    for b in backends:
        texts['dag_backends/' + b] = read('dag_backends/' + b)
        own['dag_backends/' + b] = defined(texts['dag_backends/' + b])
    for lib in libraries:
        texts[lib] = read(lib)
        own[lib] = defined(texts[lib])

    backend_files = ['dag_backends/' + b for b in backends]
    ops_tables = {n for f in backend_files for n in own[f] if n.endswith('_ops')}
    seam_names = defined(seam)
    public_names = own['dag.h (public part)']
    core_names = own['dag.h'] | public_names

    # what each file may see besides its own names
    allowed = {
        'dag.h': public_names | seam_names,
        'dag_backends/dag_device.h': core_names | ops_tables,
    }
    for f in backend_files:
        sees = core_names | own['dag_backends/dag_device.h']
        if f.endswith(('dag_cuda.h', 'dag_hip.h')):
            sees |= own['dag_backends/dag_gpu_stream.h']
        allowed[f] = sees
    seen_libraries = set()
    for lib in libraries:   # in include order: each sees those before it
        allowed[lib] = public_names | seen_libraries
        seen_libraries |= own[lib]

    everything = {}
    for f, names in own.items():
        for n in names:
            everything.setdefault(n, f)
    problems = 0
    for f, text in texts.items():
        for n in sorted(set(NAME.findall(text))):
            if n in own[f] or n in allowed[f] or n not in everything:
                continue
            owners = sorted(g for g, names in own.items() if n in names)
            print(f'{f}: uses {n}, private to {", ".join(owners)}')
            problems += 1
    print(f'layers: {problems} crossing{"" if problems == 1 else "s"}')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else '.'))
