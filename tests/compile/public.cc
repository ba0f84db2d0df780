// The public part of dag.h and dag_kernels.h from C++: declarations, handles,
// options, the argument constructors, dag_spawn itself, and a DAG_KERNEL
// (the CUDA and HIP backends compile kernels as C++).
#include "dag_kernels.h"   /* includes dag.h */
#include "dag_array.h"     /* its declarations too */
#include "dag_blas.h"

DAG_KERNEL(scale, ((double, a), (DAG_GLOBAL double *, y)),
    y[DAG_INDEX()] *= a;
)

/* Ld from C++: parameters carry their C type there too, so it converts into int and long */
DAG_TASK(void, note_ld, (const double *, t), (int, ld), (long, lld), (int *, out)) {
    (void)t;
    out[0] = ld;
    out[1] = (int)lld;
}

/* Val converts as C does: an enum as its underlying type, an int into a double */
enum { COUNT = 7 };
enum class Mode : unsigned char { FAST = 3 };
DAG_TASK(size_t, twice, (size_t, n)) { return 2 * n; }
DAG_TASK(double, half, (double, x)) { return x / 2; }
DAG_TASK(long long, widen, (long long, x)) { return x; }
DAG_TASK(void, poke, (double *, p)) { *p = 1; }

/* Without _Generic the same mistakes are refused at spawn: a span for a value, a span of another number
   type of the same size, a pointer to another type */
struct node { int value; };
DAG_TASK(double, sum_n, (const double *, x), (size_t, n)) { return n ? x[0] : 0; }
DAG_TASK(int, node_value, (node *, n)) { return n->value; }
static bool wrong_kinds_are_refused() {
    static double x[4] = {1, 2, 3, 4};
    static long long ix[4];
    static node nd = {5};
    int v = 0;
    bool ok = dag_wait(dag_spawn(sum_n, DAG_IN(x, 4), DAG_IN(x, 4))) == DAG_ERR_ARG_TYPE;
    ok = ok && dag_wait(dag_spawn(sum_n, DAG_IN(ix, 4), DAG_VAL(4))) == DAG_ERR_ARG_TYPE;
    ok = ok && dag_wait(dag_spawn(node_value, DAG_VAL(&x[0]))) == DAG_ERR_ARG_TYPE;
    ok = ok && dag_wait(dag_spawn(sum_n, DAG_IN(x, 4), DAG_VAL(4))) == DAG_OK;
    ok = ok && dag_fetch(dag_spawn(node_value, DAG_VAL(&nd)), &v) == DAG_OK && v == 5;
    return ok;
}

static bool vals_convert_as_in_c() {
    size_t n = 0;
    double h = 0, cell = 0;
    long long w = 0;
    bool ok = dag_fetch(dag_spawn(twice, DAG_VAL(COUNT)), &n) == DAG_OK && n == 14;
    ok = ok && dag_fetch(dag_spawn(half, DAG_VAL(3)), &h) == DAG_OK && h == 1.5;
    ok = ok && dag_fetch(dag_spawn(widen, DAG_VAL(Mode::FAST)), &w) == DAG_OK && w == 3;
    ok = ok && dag_fetch(dag_spawn(widen, DAG_VAL(-5)), &w) == DAG_OK && w == -5;
    ok = ok && dag_wait(dag_spawn(poke, DAG_VAL(1.5))) == DAG_ERR_ARG_TYPE;   /* a number for a pointer */
    ok = ok && dag_wait(dag_spawn(poke, DAG_VAL(&cell))) == DAG_OK && cell == 1;
    return ok;
}

/* An exception that leaves a body fails its task with the exception's words (pooled, inline, or in a
   child a body waits for); the runtime goes on as before */
#include <stdexcept>
#include <cstring>
DAG_TASK(int, boom, (int, x)) {
    if (x > 0) throw std::runtime_error("boom");
    return x;
}
DAG_TASK(int, waits_for_boom, (int, x)) {
    int r = 0;
    return dag_fetch(dag_spawn(boom, DAG_VAL(x)), &r) == DAG_ERR_TASK_FAILED ? -1 : r;
}
static bool exceptions_fail_their_tasks() {
    bool ok = true;
    for (int inline_ = 0; inline_ < 2; inline_++) {
        dag_options o = {};
        o.run_inline = inline_;
        int r = 7;
        dag_task t = dag_spawn_with(&o, boom, DAG_VAL(1));
        ok = ok && dag_fetch(t, &r) == DAG_ERR_TASK_FAILED && std::strstr(dag_task_message(t), "exception left the task: boom");
    }
    int r = 0;
    ok = ok && dag_fetch(dag_spawn(waits_for_boom, DAG_VAL(1)), &r) == DAG_OK && r == -1;
    return ok && dag_fetch(dag_spawn(boom, DAG_VAL(0)), &r) == DAG_OK && r == 0;
}

int main() {
    double x[4] = {1, 2, 3, 4};
    dag_arg a[2] = { DAG_IN(x, 4), DAG_VAL(2.0) };
    dag_options o = {};
    dag_scope one = {}, two = {}, device = {};
    one.thread = 1;
    two.thread = 2;
    device.opencl.one = 2;
    o.scope = dag_scope_union(dag_scope_union(one, two), device);
    dag_memory_info m = {};
    dag_trace_record r = {};
    (void)m;
    (void)r;
    dag_desc desc{};   /* the C++ form of dag_setup(&(dag_desc){ .num_threads = 2 }) */
    desc.num_threads = 2;
    dag_setup(desc);
    bool set_up = dag_num_threads() == 2;
    dag_wait(dag_spawn(DAG_LAUNCH(scale, 4), DAG_VAL(3.0), DAG_INOUT(x, 4)));
    double tile[40] = {};
    int got[2] = {0, 0};
    dag_data h = dag_register_tile(tile + 2, 3, 4, 12);
    int ld_ok = dag_wait(dag_spawn(note_ld, DAG_IN(tile + 1, 3, 4, 10), DAG_LD(tile + 1), DAG_LD(tile + 1), DAG_VAL(&got[0]))) ==
                    DAG_OK && got[0] == 10 && got[1] == 10;
    ld_ok = ld_ok && dag_wait(dag_spawn(note_ld, DAG_IN(h), DAG_LD(h), DAG_LD(h), DAG_VAL(&got[0]))) == DAG_OK && got[0] == 12;
    dag_data_unregister(h);
    bool vals_ok = vals_convert_as_in_c() && wrong_kinds_are_refused() && exceptions_fail_their_tasks();
    dag_shutdown();
    return (a[0].kind == 2 && a[1].size == sizeof(double) && o.scope.threads == 3 && o.scope.opencl.set == 2 &&
            scale__desc.kernel == &scale__cl && x[3] == 12.0 && ld_ok && vals_ok && set_up) ? 0 : 1;
}
