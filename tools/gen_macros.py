# Generates the repetitive preprocessor tables of dag.h (argument counting,
# the per-arity DAG_TASK / dag_spawn expansions, and DAG__MAP for
# dag_kernels.h). Run: python3 tools/gen_macros.py > /tmp/tables.h, then paste
# it over the ">>generated tables" block of dag.h.
#   python3 tools/gen_macros.py --check dag.h   exits 1 if dag.h's block differs
#                                               (make check-compile runs it)
import sys
N = 16
out = []
a = out.append
args = ", ".join(f"_{i}" for i in range(1, N + 3))
a("#define DAG__NARG(...) DAG__NARG_(__VA_ARGS__, " + ", ".join(str(i) for i in range(N + 2, 0, -1)) + ", 0)")
a("#define DAG__NARG_(" + args + ", n, ...) n")
# parameters of a task: types, struct fields, the call, the prototype
for k in range(0, N + 1):
    ps = ", ".join(f"p{i}" for i in range(k))
    if k == 0:
        a("#define DAG__PROTO_0() void")
        a("#define DAG__FIELDS_0() char dag__none;")
        a("#define DAG__CALL_0(a) ")
        a("#define DAG__PARAMS_0(s) {{0, 0, 0, 0, 0}}")
        continue
    a(f"#define DAG__PROTO_{k}({ps}) " + ", ".join(f"DAG__PT(p{i}) DAG__PN(p{i})" for i in range(k)))
    a(f"#define DAG__FIELDS_{k}({ps}) " + " ".join(f"DAG__PT(p{i}) a{i};" for i in range(k)))
    a(f"#define DAG__CALL_{k}(a) " + ", ".join(f"a->a{i}" for i in range(k)))
    a(f"#define DAG__PARAMS_{k}(s, {ps}) {{" + ", ".join(f"DAG__PARAM(s, a{i}, p{i})" for i in range(k)) + "}")
# DAG_TASK(ret, name, params...) by total argument count (2 + params)
for k in range(0, N + 1):
    ps = ", ".join(f"p{i}" for i in range(k))
    sig = "ret, name" + (", " + ps if k else "")
    a(f"#define DAG__TASK_{k + 2}({sig}) DAG__TASK_DEF(ret, name, {k}, (DAG__PROTO_{k}({ps})), (DAG__FIELDS_{k}({ps})), (DAG__CALL_{k}), (DAG__PARAMS_{k}(name##__args{(', ' + ps) if k else ''})))")
# dag_spawn(name, args...) by total argument count (1 + args)
for k in range(0, N + 2):
    if k == 0:
        continue
    if k == 1:
        a("#define DAG__SPAWN_1(opts, name) (DAG__CHECK_COUNT(name, 0), DAG__SPAWN_FRONT(&name##__desc, DAG__NULL, 0, (opts)))")
    else:
        a(f"#define DAG__SPAWN_{k}(opts, name, ...) (DAG__CHECK_COUNT(name, {k - 1}), DAG__SPAWN_FRONT(&name##__desc, DAG__ARGS_OF(name, __VA_ARGS__), {k - 1}, (opts)))")
# DAG__MAP(m, items...): m(item) for each item, comma separated
a("#define DAG__MAP(m, ...) DAG__CAT(DAG__MAP_, DAG__NARG(__VA_ARGS__))(m, __VA_ARGS__)")
for k in range(1, N + 1):
    ps = ", ".join(f"p{i}" for i in range(k))
    a(f"#define DAG__MAP_{k}(m, {ps}) " + ", ".join(f"m(p{i})" for i in range(k)))
# DAG__MAPI(m, c, items...): m(c, index, item) for each item, comma separated
a("#define DAG__MAPI(m, c, ...) DAG__CAT(DAG__MAPI_, DAG__NARG(__VA_ARGS__))(m, c, __VA_ARGS__)")
for k in range(1, N + 1):
    ps = ", ".join(f"p{i}" for i in range(k))
    a(f"#define DAG__MAPI_{k}(m, c, {ps}) " + ", ".join(f"m(c, {i}, p{i})" for i in range(k)))
if len(sys.argv) == 3 and sys.argv[1] == "--check":
    lines = open(sys.argv[2]).read().split("\n")
    start = next(i for i, l in enumerate(lines) if l.startswith("/* >>generated tables")) + 1
    block = lines[start:start + len(out)]
    for i, (want, got) in enumerate(zip(out, block)):
        if want != got:
            print(f"{sys.argv[2]}:{start + i + 1}: differs from tools/gen_macros.py:\n  has:  {got}\n  want: {want}")
            sys.exit(1)
    print(f"{sys.argv[2]}: the generated tables match tools/gen_macros.py ({len(out)} lines)")
else:
    print("\n".join(out))
