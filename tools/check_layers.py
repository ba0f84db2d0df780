#!/usr/bin/env python3
"""Checks the structure of the headers; make check-compile runs it.

  index    Every `>>name` section marker of a header is in that header's
           index, in file order. The index is the paragraph of the opening
           comment that starts with a line `label: >>name ...`; each label
           is a layer and names the sections after it (dag_device.h's
           `Parts:` is one layer). dag.h and dag_backends/dag_mpi.h must
           have one. A section named after a layer belongs to that layer
           (no `>>waits` in "scheduler" while a layer is called "waits").
  length   No function is longer than MAX_LINES lines, its first line to
           its closing brace.
  order    In a header with layers, a function refers only to private
           functions of its own layer or earlier ones, save the few in
           FORWARD (each needs a declaration ahead of its layer).
  names    A file uses no private name (dag__x, DAG__X) of another file
           beyond: dag.h's public part (the macros that expand in a user's
           file), the platform every layer stands on (the names of dag.h's
           PLATFORM sections: language, allocator, threads, hints,
           logging), the names of its own seam in dag.h (SEAMS) and the
           names MAY_USE lists for it. A listed name no longer used is a
           failure too, so the lists stay what each file really needs.
  options  Every build option (a public `#ifndef DAG_X` / `#define DAG_X`
           in any header) is listed under BUILD OPTIONS at the top of dag.h.

Usage: check_layers.py [repository root]. Prints each problem; exits 1
on any.
"""
import os
import re
import sys

MAX_LINES = 80

# The map of files and layers: every header, what it may use of other files'
# private names besides dag.h's public part and PLATFORM (see docs/design.md).
CORE = 'dag.h'
PLATFORM = ['language', 'customisation', 'build options', 'threads', 'hints', 'logging']
# a layer behind a seam: the dag.h section that declares what the core asks of
# it and what it may call in the core (both are its to use)
SEAMS = {'dag_backends/dag_device.h': 'device seam', 'dag_backends/dag_mpi.h': 'mpi seam'}
MAY_USE = {
    'dag.h': '',   # the core: its seams are its own declarations
    'dag_backends/dag_mpi.h':   # the rank layer: task records only by pointer, the words of a failure
        'DAG__MAX_PARAMS DAG__TF_ALWAYS_RUNS dag__task dag__context dag__cancel_asked dag__cause_new dag__cause_drop '
        'dag__cause_what',
    'dag_backends/dag_device.h':   # the device layer: task records, spans and their slots, the trace
        'DAG__CACHE_LINE DAG__MAX_PARAMS dag__args_of dag__backend_name dag__convert dag__data_slot '
        'dag__data_span dag__device_word dag__extra dag__extra_of dag__g dag__json_string dag__scope_has_cpu '
        'dag__span dag__span_eq dag__spans_overlap dag__task dag__task_name dag__trace_event dag__worker',
    # the backends: the device layer's table and loader
    'dag_backends/dag_opencl.h': 'DAG__COPY_TO_DEVICE DAG__DL_COUNT dag__device_ops dag__dl_bind dag__dl_symbol',
    'dag_backends/dag_level_zero.h': 'DAG__COPY_TO_DEVICE DAG__DL_COUNT dag__device_ops dag__dl_bind dag__dl_symbol',
    'dag_backends/dag_gpu_stream.h': 'DAG__COPY_PINNED DAG__COPY_TO_DEVICE DAG__MAX_PARAMS dag__device_ops',
    'dag_backends/dag_cuda.h':   # and dag_gpu_stream.h, which serves CUDA and HIP
        'DAG__GPU_BLOCK DAG__GPU_DEVICE_TO_HOST DAG__GPU_ERROR_INVALID_PITCH_VALUE '
        'DAG__GPU_ERROR_MEMORY_ALLOCATION DAG__GPU_ERROR_NOT_READY DAG__GPU_ERROR_PEER_ACCESS_ALREADY_ENABLED '
        'DAG__GPU_EVENT_DEFAULT DAG__GPU_EVENT_DISABLE_TIMING DAG__GPU_HOST_ALLOC_PORTABLE '
        'DAG__GPU_HOST_REGISTER_PORTABLE DAG__GPU_HOST_TO_DEVICE '
        'DAG__GPU_OPS DAG__GPU_STREAM_NON_BLOCKING dag__gpu dag__gpu_blocks dag__gpu_close_devices dag__gpu_enter '
        'dag__gpu_leave dag__gpu_open_devices',
    'dag_backends/dag_hip.h':
        'DAG__DL_COUNT dag__dl_bind dag__dl_symbol DAG__GPU_BLOCK DAG__GPU_CALLS DAG__GPU_OPS dag__gpu '
        'dag__gpu_blocks dag__gpu_close_devices dag__gpu_enter dag__gpu_enter_any dag__gpu_leave '
        'dag__gpu_open_devices dag__gpu_use',
    # the libraries: dag.h's public API only
    'dag_kernels.h': '', 'dag_blas.h': '', 'dag_array_kernels.h': '',
    # and of dag.h: the spans of its own objects, which only it lets go of (dag__data_owned)
    'dag_table.h':   # its operations read host memory: the tasks before them done, blocks open; and of dag_array.h:
        'dag__wait_spawned dag__data_owned dag__data_let_go '   # a view in tiles of its own, a kernel's spans typed
        'dag__operand dag__operand_end dag__any_tiling dag__typed_arg dag__mpi_agree_numbers',
    'dag_array.h': 'dag__array_lu_rows dag__data_owned dag__data_let_go dag__mpi_agree_numbers',   # and its own kernels (dag_array_kernels.h)
}
# Calls from a layer to a later one: the body's end closes its regions, a
# finished root task ends its region, a reserve thread gets a worker record,
# a thread that first spawns gets a context, a body run inside its
# spawn that detached becomes a task like others, and a spawn's public
# front (dag__spawn_front) hands the arguments it packed to the library.
FORWARD = {
    'dag.h': 'dag__end_body dag__finish_root dag__worker_init dag__worker_destroy dag__guest_attach '
             'dag__undeferred_detached dag__handle dag__spawn_packed dag__spawn_packed_now dag__fetch_as dag__wait_handle '
             'dag__inline_region',
}
INDEX_REQUIRED = {'dag.h', 'dag_backends/dag_mpi.h'}

PRIVATE = re.compile(r'\b(dag__\w+|DAG__\w+)\b')
MARKER = re.compile(r'/\*\s*>>([^:.(\n*]*?)\s*(?=[:.(]|\*/|\n)')
LABEL = re.compile(r'\s*([A-Za-z][\w-]*(?: [\w-]+)*):\s+(>>.*)')


# ---- C, read as text: enough of it for this code's style ------------------
def strip(text):
    """Comments and string and character literals blanked, lines kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append('\n' * text.count('\n', i, j))
        elif text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
        elif text[i] in '"\'':
            j = i + 1
            while j < n and text[j] not in (text[i], '\n'):
                j += 2 if text[j] == '\\' else 1
            out.append(text[i] * 2)
            j += 1
        else:
            out.append(text[i])
            j = i + 1
        i = j
    return ''.join(out)


def split_preprocessor(code):
    """(code with directive lines blanked, [directive text])"""
    lines, directives, more = code.split('\n'), [], False
    for k, line in enumerate(lines):
        if more or re.match(r'\s*#', line):
            directives.append(line) if not more else directives.__setitem__(-1, directives[-1] + '\n' + line)
            more = line.endswith('\\')
            lines[k] = ''
    return '\n'.join(lines), directives


def matching(code, i, open_='{', close='}'):
    depth = 0
    for j in range(i, len(code)):
        depth += (code[j] == open_) - (code[j] == close)
        if depth == 0:
            return j
    return len(code)


def top_level(code):
    """[(head, body or None, start, end)]: each function definition (body)
    and each declaration (ending in ;) at file scope."""
    items, i, start = [], 0, 0
    while i < len(code):
        c = code[i]
        if c == ';':
            items.append((code[start:i], None, start, i))
            start = i + 1
        elif c == '}':   # the end of an extern "C" block
            start = i + 1
        elif c == '{':
            head = code[start:i]
            if re.fullmatch(r'\s*extern\s*""\s*', head):
                start = i + 1
            elif head.strip().endswith(')') and '=' not in head and \
                    not re.match(r'\s*(typedef|struct|union|enum)\b', head):
                end = matching(code, i)
                items.append((head, code[i + 1:end], start, end))
                i = start = end + 1
                continue
            else:   # a struct, an enum or an initializer: on to its ';'
                i = code.find(';', matching(code, i))
                items.append((code[start:i], None, start, i))
                start = i + 1
        i += 1
    return items


def function_name(head):
    head = head.strip()
    open_ = len(head) - 1 - matching(head[::-1], 0, ')', '(')   # the parameter list's '('
    name = re.search(r'(\w+)\s*$', head[:open_]).group(1)
    if name in ('DAG_TASK', 'DAG_KERNEL'):   # DAG_TASK(ret, name, ...) { body }
        name = head[open_ + 1:].split(',')[1].strip()
    return name


def split_top(s):
    parts, depth, cur = [], 0, ''
    for ch in s:
        depth += (ch in '([{') - (ch in ')]}')
        if ch == ',' and depth == 0:
            parts.append(cur)
            cur = ''
        else:
            cur += ch
    return parts + [cur]


def declared(decl):
    """The names one file-scope declaration declares."""
    names = set(re.findall(r'\b(?:struct|union|enum)\s+(\w+)\s*\{', decl))
    for body in re.findall(r'\benum\b[^{;]*\{([^}]*)\}', decl):
        names.update(m.group(1) for m in (re.match(r'\s*(\w+)', p) for p in split_top(body)) if m)
    for k, part in enumerate(split_top(decl)):
        depth = 0
        for j, ch in enumerate(part):   # the initializer goes
            depth += (ch in '([{') - (ch in ')]}')
            if ch == '=' and depth == 0:
                part = part[:j]
                break
        part = part[part.rfind('}') + 1:]   # after a struct's or enum's body
        if re.fullmatch(r'\s*(?:typedef\s+)?(?:struct|union|enum)\s+\w+\s*', part):
            continue
        part = re.sub(r'(\[[^\]]*\]\s*)+$', '', part.strip())
        m = (re.search(r'\(\s*\*\s*(\w+)\s*\)', part) or   # a function pointer
             (k == 0 and re.search(r'(\w+)\s*\((?:[^()]|\([^()]*\))*\)\s*$', part)) or   # a prototype
             re.search(r'(\w+)\s*$', part))
        if m:
            names.add(m.group(1))
    return names


class Source:
    """One file, or a part of one: its text, functions and definitions."""

    def __init__(self, path, text, first_line=1):
        self.path, self.text = path, text
        code, directives = split_preprocessor(strip(text))
        self.code = code
        self.defines = {m.group(1) for m in (re.match(r'\s*#\s*define\s+(\w+)', d) for d in directives) if m}
        self.functions, self.names = [], set(self.defines)
        for head, body, start, end in top_level(code):
            if body is None:
                self.names |= declared(head)
                continue
            name = function_name(head)
            first = code.count('\n', 0, start + len(head) - len(head.lstrip())) + first_line
            self.functions.append((name, first, code.count('\n', 0, end) + first_line, body))
            self.names.add(name)
        self.private = {n for n in self.names if PRIVATE.fullmatch(n)}
        self.markers = [(text.count('\n', 0, m.start()) + first_line, m.group(1)) for m in MARKER.finditer(text)]

    def section_of(self, line):
        """The marker a line falls under (None before the first)."""
        found = None
        for at, name in self.markers:
            if at > line:
                break
            found = name
        return found

    def section(self, name):
        """One section, read as a Source of its own."""
        lines = self.text.split('\n')
        at = [k for k, (line, n) in enumerate(self.markers) if n == name]
        if not at:
            sys.exit(f'check_layers.py: {self.path} has no section >>{name}')
        at = at[0]
        end = self.markers[at + 1][0] - 1 if at + 1 < len(self.markers) else len(lines)
        return Source(self.path, '\n'.join(lines[self.markers[at][0] - 1:end]))


def index_of(text):
    """The file's index, [(layer, [section, ...])], or None."""
    comment = text[text.find('/*'):text.find('*/')].split('\n')
    start = next((k for k, line in enumerate(comment) if LABEL.match(line)), None)
    if start is None:
        return None
    layers = []
    for line in comment[start:]:
        if not line.strip():
            break
        m = LABEL.match(line)
        if m:
            layers.append([m.group(1), m.group(2)])
        else:
            layers[-1][1] += ' ' + line.strip()
    return [(name, [' '.join(s.split()) for s in body.split('>>')[1:]]) for name, body in layers]


# ---- the checks -------------------------------------------------------------
def check_index(path, src, problems):
    index = index_of(src.text)
    if index is None:
        if src.markers or path in INDEX_REQUIRED:
            problems.append(f'{path}: {len(src.markers)} sections and no index')
        return None
    listed = [(layer, s) for layer, sections in index for s in sections]
    names = [s for _, s in listed]
    marked = [n for _, n in src.markers]
    for n in marked:
        if n not in names:
            problems.append(f'{path}: section >>{n} is not in the index')
    for n in names:
        if n not in marked:
            problems.append(f'{path}: the index lists >>{n}, which no section is')
    in_both = [n for n in marked if n in names]
    if in_both != [n for n in names if n in marked]:
        problems.append(f'{path}: the index is not in file order: {" ".join(in_both)}')
    layers = [layer for layer, _ in index]
    for layer, s in listed:
        for other in layers:
            if other != layer and (s == other or s.startswith(other + ' ')):
                problems.append(f'{path}: section >>{s} is named after layer "{other}" but listed under "{layer}"')
    return {s: layers.index(layer) for layer, s in listed}


def check_lengths(path, src, problems):
    for name, first, last, _ in src.functions:
        if last - first + 1 > MAX_LINES:
            problems.append(f'{path}:{first}: {name} is {last - first + 1} lines (at most {MAX_LINES})')


def check_order(path, src, layer_of, problems):
    """A function refers to no private function of a later layer beyond FORWARD."""
    if not layer_of or len(set(layer_of.values())) < 2:
        return
    defined_at = {name: layer_of[src.section_of(first)] for name, first, _, _ in src.functions
                  if PRIVATE.fullmatch(name) and src.section_of(first) in layer_of}
    allowed, used = set(FORWARD.get(path, '').split()), set()
    for name, first, _, body in src.functions:
        if src.section_of(first) not in layer_of:
            continue   # the index check reports its section
        here = layer_of[src.section_of(first)]
        for callee in sorted(set(PRIVATE.findall(body)) & defined_at.keys()):
            if defined_at[callee] <= here:
                continue
            used.add(callee)
            if callee not in allowed:
                problems.append(f'{path}:{first}: {name} refers to {callee} of a later layer '
                                f'(move one of them, or add {callee} to FORWARD)')
    for callee in sorted(allowed - used):
        problems.append(f'{path}: FORWARD lists {callee}, which no earlier layer refers to any more')


def check_names(sources, whole, public, problems):
    platform = set().union(*(whole.section(s).private for s in PLATFORM))
    owners = {}
    for path, src in sources.items():
        for n in src.private:
            owners.setdefault(n, []).append(path)
    for path, src in sources.items():
        seam = whole.section(SEAMS[path]).private if path in SEAMS else set()
        listed = set(MAY_USE[path].split())
        used = set(PRIVATE.findall(strip(src.text))) - src.private - public.private
        for n in sorted(used):
            if n in owners and n not in platform | seam | listed:
                problems.append(f'{path}: uses {n}, private to {", ".join(owners[n])} (use a call of a seam, '
                                f'or add it to MAY_USE)')
        for n in sorted(listed - used):
            problems.append(f'{path}: MAY_USE lists {n}, which it no longer uses')


def check_options(root, core, problems):
    top = core.text[:core.text.find('*/')]
    options = top[top.find('BUILD OPTIONS'):]
    options = options[:re.search(r'\n\s*[A-Z][A-Z ]+\n\s*===', options).start()]
    for path in headers(root):
        text = read(root, path)
        for m in re.finditer(r'#\s*ifndef\s+(DAG_[A-Z0-9]\w*)\s*\n\s*#\s*define\s+\1\b', text):
            if not m.group(1).endswith('_INCLUDED') and not re.search(r'\b' + m.group(1) + r'\b', options):
                problems.append(f'{path}: build option {m.group(1)} is not listed under BUILD OPTIONS in dag.h')


def read(root, path):
    with open(os.path.join(root, path)) as f:
        return f.read()


def headers(root):
    return [CORE] + ['dag_backends/' + f for f in sorted(os.listdir(os.path.join(root, 'dag_backends')))
                     if f.endswith('.h')] + ['dag_kernels.h', 'dag_blas.h', 'dag_array_kernels.h', 'dag_array.h',
                                                'dag_table.h']


def check_benches(root, problems):
    """Benchmarks are users too: dag.h's public API only, so a change
    inside a layer cannot break them unseen."""
    folder = os.path.join(root, 'bench')
    for dirpath, _, files in os.walk(folder):
        for f in sorted(files):
            if not f.endswith(('.c', '.h', '.cc')):
                continue
            path = os.path.relpath(os.path.join(dirpath, f), root)
            used = sorted(set(PRIVATE.findall(strip(read(root, path)))))
            if used:
                problems.append(f'{path}: a benchmark uses private names: {", ".join(used)}')


def main(root):
    problems = []
    text = read(root, CORE)
    cut = text.index('#ifdef DAG_IMPLEMENTATION')
    whole = Source(CORE, text)
    public = Source(CORE, text[:cut])
    sources = {CORE: Source(CORE, text[cut:])}   # the implementation
    for path in headers(root)[1:]:
        sources[path] = Source(path, read(root, path))
    missing = set(sources) ^ set(MAY_USE)
    if missing:
        problems.append(f'MAY_USE and the headers differ: {", ".join(sorted(missing))}')
    for path, src in sources.items():
        layer_of = check_index(path, whole if path == CORE else src, problems)
        check_lengths(path, whole if path == CORE else src, problems)
        check_order(path, whole if path == CORE else src, layer_of, problems)
    if not missing:
        check_names(sources, whole, public, problems)
    check_options(root, whole, problems)
    check_benches(root, problems)
    for p in problems:
        print(p)
    print(f'structure: {len(problems)} problem{"" if len(problems) == 1 else "s"}')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else '.'))
