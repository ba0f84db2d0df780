// test_cxx.cc: what dag.h promises a C++ program, beyond the C both languages share
// (test_behaviour.c, built as C++ too): blocks that end when an exception, a return or a goto
// leaves them, Val converted as a C++ call converts, and dag_setup after an implicit set-up.
//
// Build: c++ -std=c++17 -Wall -Wextra -Werror -I. -Itests tests/test_cxx.cc -pthread
// (the implementation in this file, as C++; make test-cxx builds it with g++ and clang++).
#define DAG_IMPLEMENTATION
#include "dag.h"
#include "test.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <cstdint>
#include <stdexcept>
#include <thread>
#include <vector>

static std::atomic<int> fills_finished{0};

DAG_TASK(void, slow_fill, (double *, p), (size_t, n)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    for (size_t i = 0; i < n; i++) p[i] = 1.0;
    fills_finished++;
}

// A local whose destructor notes whether the block's task had finished when the frame unwound past
// it: declared before the block, it is destroyed after the block's end.
struct finished_witness {
    int *seen;
    ~finished_witness() { *seen = fills_finished.load(); }
};

static void fill_then_throw(std::vector<double> &out, int *seen_at_unwind) {
    finished_witness w{seen_at_unwind};
    std::vector<double> v(1000);
    DAG_DATADEPS {
        dag_spawn(slow_fill, Out(v.data(), v.size()), Val(v.size()));
        throw std::runtime_error("validation failed");
    }
    out = v;
}

TEST(an_exception_leaving_a_block_waits_for_its_tasks_before_the_frame_unwinds) {
    fills_finished = 0;
    int seen = -1;
    std::vector<double> out;
    bool caught = false;
    try {
        fill_then_throw(out, &seen);
    } catch (const std::runtime_error &) {
        caught = true;
    }
    CHECK(caught);
    CHECK_EQ_INT(seen, 1);   // the task had finished before the frame's locals were destroyed
    CHECK_EQ_INT(dag_wait_all(), DAG_OK);   // and the region is closed: nothing unbalanced
}

static int fill_and_return_early(double *p, size_t n) {
    DAG_DATADEPS {
        dag_spawn(slow_fill, Out(p, n), Val(n));
        return 7;   // in C an error (DAG_ERR_UNBALANCED_REGION); in C++ the block's end runs
    }
    return 0;
}

TEST(a_return_out_of_a_block_ends_the_block_and_waits_for_its_tasks) {
    fills_finished = 0;
    std::vector<double> v(100, 0.0);
    CHECK_EQ_INT(fill_and_return_early(v.data(), v.size()), 7);
    CHECK_EQ_INT(fills_finished.load(), 1);
    CHECK(v[0] == 1.0 && v[99] == 1.0);
    CHECK_EQ_INT(dag_wait_all(), DAG_OK);
}

DAG_TASK(int, sum_or_throw, (const double *, p), (size_t, n)) {
    std::vector<double> local(n);
    int s = 0;
    DAG_DATADEPS {   // the guide's pattern for a body that may throw
        dag_spawn(slow_fill, Out(local.data(), n), Val(n));
        if (p[0] < 0) throw std::invalid_argument("negative");
    }
    for (size_t i = 0; i < n; i++) s += (int)local[i];
    return s;
}

TEST(a_body_that_throws_inside_its_block_fails_its_task_after_its_children_finish) {
    fills_finished = 0;
    double good = 1, bad = -1;
    int r = 0;
    CHECK_EQ_INT(dag_fetch(dag_spawn(sum_or_throw, In(&good, 1), Val((size_t)64)), &r), DAG_OK);
    CHECK_EQ_INT(r, 64);
    dag_task t = dag_spawn(sum_or_throw, In(&bad, 1), Val((size_t)64));
    CHECK_EQ_INT(dag_fetch(t, &r), DAG_ERR_TASK_FAILED);
    CHECK(std::strstr(dag_task_message(t), "negative") != nullptr);
    CHECK_EQ_INT(fills_finished.load(), 2);   // the failed body's child finished too, on live memory
    dag_release(t);
}

struct A { int a = 1; };
struct B { int b = 2; };
struct D : A, B { int d = 3; };
DAG_TASK(int, b_of, (const B *, p)) { return p ? p->b : -1; }
DAG_TASK(int, is_null, (const double *, p)) { return p == nullptr; }
typedef int (*int_fn)(int);   // a type with its name inside it: named first, as for a comma
DAG_TASK(int, call_it, (int_fn, f), (int, x)) { return f(x); }
static int add_one(int x) { return x + 1; }

TEST(val_converts_as_a_cxx_call_does_derived_to_base_null_and_functions) {
    D d;
    int r = 0;
    CHECK_EQ_INT(dag_fetch(dag_spawn(b_of, Val(&d)), &r), DAG_OK);   // the B part: another address
    CHECK_EQ_INT(r, 2);
    const D *cd = &d;
    CHECK_EQ_INT(dag_fetch(dag_spawn(b_of, Val(cd)), &r), DAG_OK);
    CHECK_EQ_INT(r, 2);
    dag_options o = {};
    o.run_inline = 1;   // the same spawn run inline (the packed path)
    CHECK_EQ_INT(dag_fetch(dag_spawn_with(&o, b_of, Val(&d)), &r), DAG_OK);
    CHECK_EQ_INT(r, 2);
    CHECK_EQ_INT(dag_fetch(dag_spawn(is_null, Val(NULL)), &r), DAG_OK);   // an integer in C++
    CHECK_EQ_INT(r, 1);
    CHECK_EQ_INT(dag_fetch(dag_spawn(is_null, Val(0)), &r), DAG_OK);
    CHECK_EQ_INT(r, 1);
    CHECK_EQ_INT(dag_fetch(dag_spawn(is_null, Val(nullptr)), &r), DAG_OK);
    CHECK_EQ_INT(r, 1);
    dag_task t = dag_spawn(is_null, Val(5));   // another number for a pointer: refused, as in C
    CHECK_EQ_INT(dag_wait(t), DAG_ERR_ARG_TYPE);
    dag_release(t);
    CHECK_EQ_INT(dag_fetch(dag_spawn(call_it, Val(add_one), Val(41)), &r), DAG_OK);   // no & needed
    CHECK_EQ_INT(r, 42);
    CHECK_EQ_INT(dag_fetch(dag_spawn(call_it, Val(&add_one), Val(1)), &r), DAG_OK);
    CHECK_EQ_INT(r, 2);
}

DAG_TASK(size_t, add, (size_t, a), (size_t, b)) { return a + b; }
struct big { double v[5]; };   // more than 16 bytes: a Val of it points at it
DAG_TASK(double, big_sum, (big, b)) { return b.v[0] + b.v[4]; }

TEST(vals_written_into_a_dag_arg_are_plain_arguments) {
    dag_arg args[2];
    for (size_t i = 0; i < 2; i++) args[i] = Val(i + 20);   // copied in: the loop's i may change
    size_t r = 0;
    CHECK_EQ_INT(dag_fetch(dag_spawn_args(add, args, 2), &r), DAG_OK);
    CHECK_EQ_INT(r, 41);
    big b = {{1, 2, 3, 4, 5}};
    dag_arg one = Val(b);   // the lvalue lives on: the argument may point at it
    double s = 0;
    CHECK_EQ_INT(dag_fetch(dag_spawn_args(big_sum, &one, 1), &s), DAG_OK);
    CHECK(s == 6.0);
    CHECK_EQ_INT(dag_fetch(dag_spawn(big_sum, Val((big{{2, 0, 0, 0, 3}}))), &s), DAG_OK);
    CHECK(s == 5.0);
}

static std::atomic<int> errors_logged{0}, invalid_logged{0};
static void count_logger(dag_log_level level, int item, const char *message, void *user) {
    (void)message;
    (void)user;
    if (level == DAG_LOG_ERROR) errors_logged++;
    if (item == DAG_ERR_INVALID_ARGUMENT) invalid_logged++;
}

// As a C++ global's constructor does: a call into dag.h before dag_setup sets up with the defaults.
// TBB's parallel_for stops its other chunks when one throws; the guide's way in dag.h: catch in the
// body, dag_cancel_siblings(), rethrow. The chunks not started never run; the block fails with the
// exception's words.
static std::atomic<int> chunks_ran{0};
DAG_TASK(void, chunk_or_throw, (int, i)) {
    if (dag_cancelled()) return;
    try {
        chunks_ran++;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        if (i == 3) throw std::runtime_error("chunk 3 failed");
    } catch (...) {
        dag_cancel_siblings();
        throw;
    }
}
TEST(a_chunk_that_throws_and_cancels_its_siblings_stops_the_rest_of_the_loop) {
    chunks_ran = 0;
    DAG_DATADEPS {
        for (int i = 0; i < 300; i++) dag_spawn(chunk_or_throw, Val(i));
    }
    dag_result r = dag_last_region_result();
    CHECK(r == DAG_ERR_TASK_FAILED || r == DAG_ERR_CANCELLED);
    std::printf("     %d of 300 chunks ran\n", chunks_ran.load());
    CHECK(chunks_ran.load() < 150);
}

TEST(dag_setup_after_an_implicit_set_up_says_its_desc_was_not_applied) {
    int r = 0;
    CHECK_EQ_INT(dag_fetch(dag_spawn(b_of, Val((const B *)nullptr)), &r), DAG_OK);   // sets up
    CHECK_EQ_INT(r, -1);
    CHECK(dag_is_setup());
    dag_desc desc = {};
    desc.num_threads = 1;
    desc.logger.func = count_logger;
    CHECK_EQ_INT(dag_setup(desc), DAG_ERR_INVALID_ARGUMENT);   // not applied, and said so
    CHECK_EQ_INT(dag_setup(nullptr), DAG_OK);   // nothing asked: nothing to say
    CHECK_EQ_INT(dag_shutdown(), DAG_OK);
    CHECK_EQ_INT(dag_setup(desc), DAG_OK);   // after a shutdown it applies
    CHECK_EQ_INT(dag_num_threads(), 1);
    CHECK_EQ_INT(dag_shutdown(), DAG_OK);
}

int main() {
    RUN(dag_setup_after_an_implicit_set_up_says_its_desc_was_not_applied);
    dag_desc desc = {};
    desc.num_threads = 2;
    desc.logger.func = count_logger;   // the refusals below are expected: counted, not printed
    if (dag_setup(desc) != DAG_OK) {
        std::fprintf(stderr, "FAIL: dag_setup\n");
        return 1;
    }
    RUN(an_exception_leaving_a_block_waits_for_its_tasks_before_the_frame_unwinds);
    RUN(a_return_out_of_a_block_ends_the_block_and_waits_for_its_tasks);
    RUN(a_body_that_throws_inside_its_block_fails_its_task_after_its_children_finish);
    RUN(val_converts_as_a_cxx_call_does_derived_to_base_null_and_functions);
    RUN(vals_written_into_a_dag_arg_are_plain_arguments);
    RUN(a_chunk_that_throws_and_cancels_its_siblings_stops_the_rest_of_the_loop);
    dag_shutdown();   // (its result is the failures above, which the tests expected)
    return test_summary();
}
