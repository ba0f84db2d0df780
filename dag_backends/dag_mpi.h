/* dag_mpi.h: the same program on many ranks over MPI (-DDAG_BACKEND_MPI).

   Included by dag.h's implementation, at its end, when DAG_BACKEND_MPI is
   defined; build with mpicc (or add MPI's flags) and run under mpirun.
   Built in but run without mpirun, the program is one rank and nothing
   changes.

   The rank layer. dag.h calls it only through its >>mpi seam. It uses of
   dag.h: the public API (dag_spawn_desc, dag_detach, dag_fulfill,
   dag_wait, dag_fetch_bytes), the platform (the allocator, threads, the
   clock, dag__err and dag_log), the calls the >>mpi seam declares for it
   (the main context, the running task, a task's failure, registered
   spans, refused spawns), and the few names tools/check_layers.py lists
   for it (a failure's words, the flag that runs a message task after a
   failure, the records it passes by pointer); that tool holds it to this.
   Its settings (dag_desc.simulate_ranks and DAG_SIMULATE_RANKS,
   rank_cache_limit, DAG_MPI_PROGRESS, DAG_MPI_MAX_RANKS) are dag.h's:
   listed at its top and resolved in its >>defaults.

   WHERE THINGS ARE
   ================
     records:   >>rank sets >>records >>state >>stats
     messages:  >>requests >>history >>watch >>progress >>message tasks
     decisions: >>owned spans >>collective spawns >>collective waits
                >>region ends
     set-up:    >>set-up

   THE MODEL (SPMD, owner computes; docs/mpi.md has the why)
   - Every rank runs the same program, and its main thread makes the same
     spawns in the same order: these are collective. Spawns inside task
     bodies, and from other threads, stay on their rank.
   - A span registered with dag_data_register_on(rank, ...) is owned by
     that rank. Plain pointer spans and other registered spans are the
     rank's own (every rank has its own copy).
   - A collective spawn runs on dag_scope(.rank = DAG_RANK(r)) if given,
     else on the owner of its first written owned span, else on every rank
     (each on its own memory, as the plain program would).
   - Every rank keeps, for each owned span, the set of ranks whose copy is
     current. It changes only with collective spawns, so every rank knows
     it without asking. A task that reads a span on a rank whose copy is
     stale gets it first: a send task on a rank with a current copy (the
     owner if it has one) and a receive task on the reader, both ordinary
     local tasks ordered by dag.h's dependencies, whose bodies post
     MPI_Isend / MPI_Irecv and detach (dag_detach); a progress thread
     fulfils them when MPI completes them. Tags come from a counter all
     ranks advance alike, so every message is matched by (source, tag).
   - A write leaves the only current copy where it ran (the owner's is now
     stale): the next task there reads it for free. At each collective end
     (a DAG_DATADEPS or DAG_SEQUENTIAL of the main thread, dag_wait_all,
     dag_shutdown) every owned span goes home to its owner, so the program
     sees its own data current there, as on one node.
   - The ranks hash their collective calls: spawns (names, where they run,
     argument kinds, sizes, which owned span by its number, which task a
     Fut takes), registrations, waits for tasks run on one rank, collective
     ends. At each collective end they compare, and every half second a
     watch compares them while the program runs (so a rank blocked before
     its end is freed too). On a difference every rank gets
     DAG_ERR_DIVERGED with a log line naming the first call that differs
     and what each rank did there. Else they agree on the end's outcome
     (dag__mpi_agree), so every rank returns the same. dag_shutdown is a
     collective call too, and a rank in it stays until every rank is
     (dag__mpi_shutdown), so a rank that ends fewer regions than the
     others is told, and tells them, not left waiting. A rank that exits
     without dag_shutdown ends the job (dag__mpi_at_exit).
   - No message is taken for another: tags carry the message's kind, a
     message of another size fails its receive, and a wait's outcome
     carries the sender's history.
   - A collective spawn that runs on one rank gives every rank a handle of
     this layer's. dag_wait and dag_fetch on it are collective too: the
     rank that ran it sends its status and result to the others. Its
     record goes when its DAG_DATADEPS ends if it is void or discarded,
     else when a fetch takes the result or at dag_release, as one node
     keeps results (the local task keeps its result for this layer's own
     reads: keep_results).

   A failed task's data is still sent, empty, then the failure's words:
   the receive fails with them, and with it the task's dependents on that
   rank, naming the root task, its rank and its message.

   - A Fut of such a task in a spawn that runs on other ranks sends them
     its result once: a receive task there whose result is the value.

   - Copies of other ranks' spans stay for later readers, up to
     dag_desc.rank_cache_limit bytes a rank: past it the rank drops its
     least recently used copies (one that alone is current goes home
     first). Every rank knows every rank's copies, so all decide alike.

   - Every rank knows every rank's decisions, so each counts every rank's
     tasks and traffic (dag_get_rank_stats) and the longest chain of
     collective tasks (dag_stats.rank_critical_path). With
     dag_desc.simulate_ranks = P (or DAG_SIMULATE_RANKS=P) one process,
     without MPI, makes the decisions of rank 0 of P: the same code, with
     no message posted and no task placed on one rank run. This is how a
     program's traffic on 1024 ranks is known before it runs there.

   Up to DAG_MPI_MAX_RANKS ranks (1024 unless defined before dag.h):
   each owned span keeps two sets of that many bits. */
#include <limits.h>
#include <mpi.h>

/* >>rank sets: bit r of word r / 64 */
typedef struct dag__mpi_ranks {
    uint64_t word[(DAG_MPI_MAX_RANKS + 63) / 64];
} dag__mpi_ranks;
static bool dag__mpi_has(const dag__mpi_ranks *s, int r) { return (s->word[r / 64] >> (r % 64)) & 1u; }
static void dag__mpi_add(dag__mpi_ranks *s, int r) { s->word[r / 64] |= UINT64_C(1) << (r % 64); }
static void dag__mpi_remove(dag__mpi_ranks *s, int r) { s->word[r / 64] &= ~(UINT64_C(1) << (r % 64)); }
static void dag__mpi_only(dag__mpi_ranks *s, int r) {   /* r alone */
    memset(s, 0, sizeof *s);
    dag__mpi_add(s, r);
}
static int dag__mpi_first(const dag__mpi_ranks *s) {   /* the lowest rank in s, or -1 */
    for (int w = 0; w < (DAG_MPI_MAX_RANKS + 63) / 64; w++)
        if (s->word[w]) return w * 64 + __builtin_ctzll(s->word[w]);
    return -1;
}
static bool dag__mpi_is_only(const dag__mpi_ranks *s, int r) {   /* s is {r} */
    dag__mpi_ranks one;
    dag__mpi_only(&one, r);
    return !memcmp(s, &one, sizeof one);
}

/* >>records */
typedef struct dag__mpi_span {   /* an owned span, by its dag_data slot */
    uint64_t id;                 /* its dag_data's id; 0: not owned */
    uint32_t number;             /* which span it is: its number (dag__mpi.numbered), alike on every rank */
    int owner;
    dag__mpi_ranks current;      /* ranks whose copy is current */
    dag__mpi_ranks held;         /* ranks but the owner that hold a copy, current or not */
    uint64_t last_use;           /* the collective call that last used it: the copy least recently used goes first */
    uint64_t written_at, read_at;   /* the depth of its last writer, and of its readers since (the critical path) */
    size_t bytes;
    void *memory;                /* the copy this layer allocated here, if any */
} dag__mpi_span;

typedef struct dag__mpi_task {   /* a collective spawn run on one rank */
    uint32_t stamp;              /* in its handles, so a slot used again is not taken for it; 0: a free slot */
    int rank;
    const dag_task_desc *desc;
    dag_task local;              /* on that rank: its local handle */
    size_t result_size;
    int keep;                    /* spawned with keep_results: a fetch leaves it, as on one node */
    int shared;                  /* its outcome went to every rank (a collective wait or fetch) */
    unsigned char *outcome;      /* elsewhere: the status (int32) then the result, once received */
    dag_task received;           /* elsewhere: the receive task of the outcome */
    dag__mpi_ranks value_at;     /* ranks with its result for a Fut: its own, and those it was sent to */
    uint64_t depth;              /* the longest chain of collective tasks that ends with it */
    uint32_t number;             /* its number (dag__mpi.numbered), alike on every rank: waits and Futs hash it */
    uint64_t history;            /* the history's hash at its first collective wait: its outcome carries the
                                    sender's, so an outcome meant for another wait is caught */
    dag_task value;              /* here, when it ran elsewhere: the task whose result is the received value */
} dag__mpi_task;

typedef struct dag__mpi_fleeting {   /* a void or discarded task, forgotten when the region it was spawned in ends */
    uint32_t index, stamp, depth;   /* its slot and stamp; the regions open on the main thread at its spawn */
} dag__mpi_fleeting;

typedef struct dag__mpi_value_kind {   /* never moved once made: tasks point at its desc */
    dag_task_desc desc;
    struct dag__mpi_value_kind *next;
} dag__mpi_value_kind;

typedef struct dag__mpi_request {
    MPI_Request request;
    dag_event event;
    void *free_after;            /* a buffer this layer owns: a send's, or the words of a failure received */
    dag__task *task;             /* a receive of data or of a value: its task. An empty message says the sender's
                                  input failed, and the words of that failure follow (DAG__MPI_WORDS) */
    int expect;                  /* such a receive: its bytes (a message of another size is from a diverged call) */
    int from, tag;               /* such a receive: where the words come from */
    void *span;                  /* a receive of a span: where its bytes go (rows of width, stride apart), which */
    size_t rows, width, stride;  /* after a failure's words come on their tag too (dag__mpi_completed) */
    int incoming;                /* any receive: cancelled when the ranks diverge */
    int cancelled;               /* MPI_Cancel was called on it */
    int status;                  /* what the event is fulfilled with (unless the message says worse) */
} dag__mpi_request;

/* What the log keeps of each collective call, and what its hash is made of
   (dag__mpi_note): what every rank must do alike, and what the log names
   when they did not. */
enum { DAG__MPI_CALL_SPAWN, DAG__MPI_CALL_REGISTER, DAG__MPI_CALL_WAIT, DAG__MPI_CALL_END, DAG__MPI_CALL_NUMBERS };
typedef struct dag__mpi_arg_note {
    uint8_t kind, mode;          /* DAG__ARG_*, dag_access */
    uint16_t owner;              /* an owned span's owner + 1; 0: not owned */
    uint32_t number;             /* an owned span's or a task run on one rank's (dag__mpi.numbered); a 2-D span's
                                    rows */
    uint64_t bytes;              /* a span's; a number of DAG__MPI_CALL_NUMBERS' */
} dag__mpi_arg_note;
typedef struct dag__mpi_call {
    uint64_t hash;               /* the history's, after this call */
    const char *name;            /* a spawn's or a wait's task; else what the call was ("ended a DAG_DATADEPS") */
    int32_t rank;                /* where a spawn runs (-1: on every rank); a span's owner; a waited task's rank */
    uint16_t what;               /* DAG__MPI_CALL_SPAWN, ... */
    uint16_t num_args;
    size_t first_arg;            /* its notes in log_args */
} dag__mpi_call;

/* >>state */
/* The ranks' check of a region's spawns, posted before the region drains
   (MPI_Iallreduce) and tested by the progress thread: when the ranks
   diverged, a rank may wait for a message no rank will send, so the check
   cannot wait until the region's tasks are done. */
enum { DAG__MPI_CHECK_NONE, DAG__MPI_CHECK_POSTED, DAG__MPI_CHECK_AGREED, DAG__MPI_CHECK_DIVERGED };

static struct {
    int active;                  /* more than one rank */
    int simulated;               /* dag_desc.simulate_ranks: rank 0 of `size` decides, nothing is sent, and
                                    no task placed on one rank runs */
    int rank, size;
    int tag_limit;
    MPI_Comm comm;               /* a duplicate of MPI_COMM_WORLD: no clash with the program's own messages */
    uint64_t messages;           /* collective counter: the next tag */
    dag_rank_stats *per_rank;    /* every rank's tasks and traffic, as every rank decides them */
    uint64_t critical_path;      /* the longest chain of collective tasks so far */
    size_t *held_bytes;          /* per rank: the bytes of others' spans it holds copies of */
    size_t cache_limit;          /* dag_desc.rank_cache_limit; 0 = none */
    uint64_t copies_dropped;     /* by this rank, to stay under the limit */
    /* The history of collective calls (spawns, collective waits, region
       ends): their count and running hash since set-up, and each call's
       hash and name since the ranks last agreed. Under history_lock: the
       progress thread reads it to answer the watch. */
    dag__mutex history_lock;
    uint64_t calls, hash;
    uint64_t log_base_hash;      /* the hash before the first call of the log */
    dag__mpi_call *log;
    size_t log_count, log_cap;
    dag__mpi_arg_note *log_args;
    size_t log_args_count, log_args_cap;
    uint32_t numbered;           /* owned spans and tasks run on one rank so far: each gets the next number, alike
                                    on every rank (what a spawn or a wait that names one hashes; slots may differ) */
    _Atomic uint64_t epoch;      /* the ranks started again (dag__mpi_start_again) this many times */
    /* the watch (dag__mpi_watch): every rank's history, checked while the program runs */
    MPI_Comm watch;
    uint64_t next_round_ns;      /* rank 0: when it next asks */
    int asking;                  /* rank 0: a round's answers are on their way */
    uint64_t judged;             /* rank 0: the epoch + 1 it last found diverged */
    MPI_Request *answer_requests;   /* rank 0: one per other rank */
    uint64_t *answers;           /* rank 0: 4 words per rank */
    MPI_Request word_request;    /* the others: the receive of rank 0's next word */
    uint64_t word[4];
    int watch_done;              /* rank 0 said stop (rank 0: it has said it) */
    dag__mpi_span *spans;        /* by dag_data slot index */
    size_t spans_cap;
    dag__mpi_task *tasks;        /* by slot (a handle's gen - 1) */
    size_t num_tasks, tasks_cap;
    uint32_t *free_tasks;        /* slots of forgotten tasks, used again first (room for tasks_cap) */
    size_t num_free, tasks_kept;
    dag__mpi_fleeting *fleeting;        /* a stack: inner regions' tasks above outer ones' */
    size_t num_fleeting, fleeting_cap;
    struct dag__mpi_value_kind *value_kinds;   /* mpi_receive_value for each kind of result needed */
    /* requests in flight, tested by the progress thread */
    dag__mutex lock;
    dag__cond wake;
    dag__mpi_request *requests;
    MPI_Request *request_array;
    int num_requests, requests_cap;
    int check;                   /* DAG__MPI_CHECK_*, under lock */
    MPI_Request check_requests[2];
    uint64_t check_mine[4], check_low[4], check_high[4];   /* (calls, hash, in dag_shutdown, numbered): this
                                                              rank's, the least, the most */
    dag__cond checked;           /* the check is done */
    _Atomic int diverged;        /* this region's ranks diverged: messages fail at once */
    _Atomic int stop;
    dag__thread thread;
} dag__mpi;
/* Idle workers complete messages too (DAG_MPI_PROGRESS, dag__mpi_poll): set
   last at set-up and cleared first at shut-down, while the workers spin,
   so outside dag__mpi (whose end clears it). Workers inside dag__mpi_poll. */
static _Atomic int dag__mpi_polling, dag__mpi_pollers;

/* >>stats */
int dag_rank(void) { return dag__mpi.active ? dag__mpi.rank : 0; }
/* counted where the sends are spawned: on the main thread, which reads them */
static void dag__mpi_stats(dag_stats *s) {
    if (!dag__mpi.active) return;
    s->rank_messages_sent = dag__mpi.per_rank[dag__mpi.rank].messages_sent;
    s->rank_bytes_sent = dag__mpi.per_rank[dag__mpi.rank].bytes_sent;
    s->rank_critical_path = dag__mpi.critical_path;
    s->rank_copies_dropped = dag__mpi.copies_dropped;
    s->rank_tasks_kept = dag__mpi.tasks_kept;
}
int dag_num_ranks(void) { return dag__mpi.active ? dag__mpi.size : 1; }
dag_rank_stats dag_get_rank_stats(int rank) {
    dag_rank_stats s;
    memset(&s, 0, sizeof s);
    if (rank < 0 || rank >= dag_num_ranks())
        dag__err(DAG_ERR_INVALID_ARGUMENT, "dag_get_rank_stats: rank %d, but the ranks are 0 to %d", rank,
                 dag_num_ranks() - 1);
    else if (dag__mpi.active)
        s = dag__mpi.per_rank[rank];
    return s;
}

/* >>requests: what is posted to MPI, tested by the progress thread */
/* What a request posted by a message task means: a send (its event, and
   the buffer to free after), and a receive. */
static dag__mpi_request dag__mpi_sending(dag_event event, void *free_after) {
    dag__mpi_request q;
    memset(&q, 0, sizeof q);
    q.event = event;
    q.free_after = free_after;
    return q;
}
/* task: a receive of data or a value, whose failure takes the sender's words */
static dag__mpi_request dag__mpi_receiving(dag_event event, dag__task *task, int bytes, int from, int tag, int status) {
    dag__mpi_request q = dag__mpi_sending(event, NULL);
    q.task = task;
    q.expect = bytes;
    q.from = from;
    q.tag = tag;
    q.incoming = 1;
    q.status = status;
    return q;
}

static void dag__mpi_track(MPI_Request request, dag__mpi_request q) {
    q.request = request;
    dag__mutex_lock(&dag__mpi.lock);
    bool diverged = atomic_load(&dag__mpi.diverged);
    if (diverged && !q.incoming) {   /* posted as the ranks were found diverged: let go, as dag__mpi_give_up does */
        MPI_Request_free(&request);
        dag__mutex_unlock(&dag__mpi.lock);
        if (q.event.id) dag_fulfill(q.event, DAG_ERR_DIVERGED);
        return;
    }
    if (diverged) MPI_Cancel(&request);
    q.cancelled = diverged;
    if (dag__mpi.num_requests == dag__mpi.requests_cap) {
        int cap = dag__mpi.requests_cap = dag__mpi.requests_cap ? 2 * dag__mpi.requests_cap : 64;
        dag__mpi.requests = (dag__mpi_request *)dag__xrealloc(dag__mpi.requests, (size_t)cap * sizeof *dag__mpi.requests);
        dag__mpi.request_array =
            (MPI_Request *)dag__xrealloc(dag__mpi.request_array, (size_t)cap * sizeof *dag__mpi.request_array);
    }
    dag__mpi.requests[dag__mpi.num_requests] = q;
    dag__mpi.request_array[dag__mpi.num_requests++] = request;
    dag__cond_signal(&dag__mpi.wake);
    dag__mutex_unlock(&dag__mpi.lock);
}

/* The ranks diverged (found by the check at a region's end or by the
   watch), with the lock held: the receives in flight are cancelled (they complete, cancelled, and their
   tasks fail with DAG_ERR_DIVERGED) and the sends are let go: their events
   are fulfilled with the error now and MPI frees them when (if ever) they
   complete; the region's end moves the ranks to a fresh communicator, so
   no later receive matches them. */
static int dag__mpi_give_up(dag__mpi_request *let_go) {
    int count = 0, kept = 0;
    atomic_store(&dag__mpi.diverged, 1);
    for (int i = 0; i < dag__mpi.num_requests; i++) {
        dag__mpi_request *q = &dag__mpi.requests[i];
        if (dag__mpi.request_array[i] == MPI_REQUEST_NULL) {   /* MPI freed it on an error (dag__mpi_test_some) */
            let_go[count] = *q;
            let_go[count++].status = DAG_ERR_DIVERGED;
            continue;
        }
        if (q->incoming) {
            if (!q->cancelled) MPI_Cancel(&dag__mpi.request_array[i]);
            q->cancelled = 1;
            dag__mpi.requests[kept] = *q;
            dag__mpi.request_array[kept++] = dag__mpi.request_array[i];
            continue;
        }
        MPI_Request_free(&dag__mpi.request_array[i]);
        let_go[count] = *q;
        let_go[count].status = DAG_ERR_DIVERGED;
        let_go[count++].free_after = NULL;   /* MPI may still read it: a leak, on this error */
    }
    dag__mpi.num_requests = kept;
    return count;
}

/* The check's outcome, with the lock held. */
static int dag__mpi_test_check(dag__mpi_request *let_go) {
    int done = 0, count = 0;
    MPI_Testall(2, dag__mpi.check_requests, &done, MPI_STATUSES_IGNORE);
    if (!done) return 0;
    bool agreed = !memcmp(dag__mpi.check_low, dag__mpi.check_high, sizeof dag__mpi.check_low);
    dag__mpi.check = agreed ? DAG__MPI_CHECK_AGREED : DAG__MPI_CHECK_DIVERGED;
    if (!agreed) count = dag__mpi_give_up(let_go);
    dag__cond_signal(&dag__mpi.checked);
    return count;
}

/* >>history: the collective calls, hashed and logged */
static uint64_t dag__mpi_mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001B3ull; }

/* the log's names of the collective calls that are not spawns or waits */
static const char dag__mpi_call_register[] = "registered";
static const char dag__mpi_call_datadeps[] = "ended a DAG_DATADEPS";
static const char dag__mpi_call_sequential[] = "ended a DAG_SEQUENTIAL";
static const char dag__mpi_call_wait_all[] = "called dag_wait_all";
static const char dag__mpi_call_shutdown[] = "called dag_shutdown";

/* Every rank makes its collective calls alike; each is hashed into the
   history, and kept in the log (what it was, a rank, its arguments) so
   that a divergence names what differs. What is hashed is what is logged. */
static void dag__mpi_note(int what, const char *name, int rank, const dag__mpi_arg_note *args, int num_args) {
    uint64_t h = dag__mpi_mix(0xcbf29ce484222325ull, (uint64_t)what);
    for (const char *c = name; *c; c++) h = dag__mpi_mix(h, (unsigned char)*c);
    h = dag__mpi_mix(h, (uint64_t)(int64_t)rank);
    h = dag__mpi_mix(h, (uint64_t)num_args);
    for (int i = 0; i < num_args; i++) {
        h = dag__mpi_mix(h, (uint64_t)args[i].kind << 24 | (uint64_t)args[i].mode << 16 | args[i].owner);
        h = dag__mpi_mix(h, args[i].number);
        h = dag__mpi_mix(h, args[i].bytes);
    }
    dag__mutex_lock(&dag__mpi.history_lock);
    dag__mpi.hash = dag__mpi_mix(dag__mpi.hash, h);
    dag__mpi.calls++;
    if (dag__mpi.log_count == dag__mpi.log_cap) {
        dag__mpi.log_cap = dag__mpi.log_cap ? 2 * dag__mpi.log_cap : 256;
        dag__mpi.log = (dag__mpi_call *)dag__xrealloc(dag__mpi.log, dag__mpi.log_cap * sizeof *dag__mpi.log);
    }
    while (dag__mpi.log_args_count + (size_t)num_args > dag__mpi.log_args_cap) {
        dag__mpi.log_args_cap = dag__mpi.log_args_cap ? 2 * dag__mpi.log_args_cap : 1024;
        dag__mpi.log_args =
            (dag__mpi_arg_note *)dag__xrealloc(dag__mpi.log_args, dag__mpi.log_args_cap * sizeof *dag__mpi.log_args);
    }
    dag__mpi_call *c = &dag__mpi.log[dag__mpi.log_count++];
    c->hash = dag__mpi.hash;
    c->name = name;
    c->rank = rank;
    c->what = (uint16_t)what;
    c->num_args = (uint16_t)num_args;
    c->first_arg = dag__mpi.log_args_count;
    if (num_args) memcpy(dag__mpi.log_args + c->first_arg, args, (size_t)num_args * sizeof *args);
    dag__mpi.log_args_count += (size_t)num_args;
    dag__mutex_unlock(&dag__mpi.history_lock);
}

/* A call of the log as words: "spawned 'mix'(InOut span 3 of rank 1, 296 B,
   In 296 B, Val) to run on rank 1". */
static void dag__mpi_describe(const dag__mpi_call *c, char *out, size_t size) {
    static const char *const modes[] = { "", "In", "Out", "InOut" };
    int used;
    if (c->what == DAG__MPI_CALL_SPAWN) used = snprintf(out, size, "spawned '%s'(", c->name);
    else if (c->what == DAG__MPI_CALL_WAIT)
        used = snprintf(out, size, "waited for a task run on one rank (task %u, '%s' on rank %d)",
                        (unsigned)dag__mpi.log_args[c->first_arg].number, c->name, (int)c->rank);
    else used = snprintf(out, size, "%s", c->name);
    if (c->what == DAG__MPI_CALL_NUMBERS) {   /* "copied part of an array (...): (0, 0, 1, 1, 0)" */
        for (int i = 0; i < c->num_args && used < (int)size; i++) {
            const dag__mpi_arg_note *a = &dag__mpi.log_args[c->first_arg + (size_t)i];
            used += snprintf(out + used, size - (size_t)used, a->mode ? "%s... (the rest hashed: %llx)" : "%s%lld",
                             i ? ", " : ": (", a->mode ? (unsigned long long)a->bytes : (unsigned long long)(long long)a->bytes);
        }
        if (used < (int)size) snprintf(out + used, size - (size_t)used, ")");
        return;
    }
    for (int i = 0; i < c->num_args && c->what != DAG__MPI_CALL_WAIT && used < (int)size; i++) {
        const dag__mpi_arg_note *a = &dag__mpi.log_args[c->first_arg + (size_t)i];
        const char *sep = c->what == DAG__MPI_CALL_SPAWN && i ? ", " : c->what == DAG__MPI_CALL_SPAWN ? "" : " ";
        const char *mode = modes[a->mode & 3];
        char *at = out + used;
        size_t room = size - (size_t)used;
        if (a->kind == DAG__ARG_DATA && a->owner)
            used += snprintf(at, room, "%s%s%sspan %u of rank %d, %llu B", sep, mode, *mode ? " " : "", (unsigned)a->number,
                             a->owner - 1, (unsigned long long)a->bytes);
        else if (a->kind == DAG__ARG_SPAN && a->number)
            used += snprintf(at, room, "%s%s %u x %llu B", sep, mode, (unsigned)a->number,
                             (unsigned long long)(a->bytes / a->number));
        else if (a->kind == DAG__ARG_SPAN || a->kind == DAG__ARG_DATA)
            used += snprintf(at, room, "%s%s %llu B", sep, mode, (unsigned long long)a->bytes);
        else if (a->kind == DAG__ARG_FUTURE && a->number)
            used += snprintf(at, room, "%sFut of task %u (run on one rank)", sep, (unsigned)a->number);
        else
            used += snprintf(at, room, "%s%s", sep, a->kind == DAG__ARG_FUTURE ? "Fut" : a->kind == DAG__ARG_LD ? "Ld" : "Val");
    }
    if (c->what == DAG__MPI_CALL_SPAWN && used < (int)size) {
        if (c->rank < 0) snprintf(out + used, size - (size_t)used, ") to run on every rank");
        else snprintf(out + used, size - (size_t)used, ") to run on rank %d", (int)c->rank);
    }
}

/* The ranks agreed on every call so far: the log starts afresh. */
static void dag__mpi_forget_history(void) {
    dag__mutex_lock(&dag__mpi.history_lock);
    dag__mpi.log_base_hash = dag__mpi.hash;
    dag__mpi.log_count = dag__mpi.log_args_count = 0;
    dag__mutex_unlock(&dag__mpi.history_lock);
}

/* The hash after this rank's first `calls` collective calls, if its log
   still holds it (older ones the ranks agreed on). history_lock held. */
static bool dag__mpi_hash_at(uint64_t calls, uint64_t *hash) {
    uint64_t base = dag__mpi.calls - dag__mpi.log_count;
    if (calls < base || calls > dag__mpi.calls) return false;
    *hash = calls == base ? dag__mpi.log_base_hash : dag__mpi.log[calls - base - 1].hash;
    return true;
}

/* >>watch: the check at a region's end frees no rank blocked before it
   (in a dag_wait of a task that needs a message the others, having spawned
   something else, never send). So every DAG__MPI_WATCH_NS rank 0's
   progress thread asks every rank for its hash after as many calls as rank
   0 has made (or all of its own, if fewer), and compares it with its own
   there. A difference is a divergence: rank 0 tells every rank, and each
   gives up its messages as at a region's end; the region's end then names
   the call. Equal prefixes cannot leave a rank waiting: the calls they
   share post the same messages on every rank. Point-to-point messages on a
   communicator of their own, so that a rank that stops watching has no
   collective call left pending; the epoch discards words from before the
   ranks last started again. */
#define DAG__MPI_WATCH_NS 500000000u
enum { DAG__MPI_ASK = 1, DAG__MPI_ANSWER, DAG__MPI_TOLD_DIVERGED, DAG__MPI_STOP };

static bool dag__mpi_watch_as_rank_0(bool stopping) {
    int others = dag__mpi.size - 1;
    bool diverged = false;
    if (dag__mpi.asking) {
        int done = 0;
        MPI_Testall(others, dag__mpi.answer_requests, &done, MPI_STATUSES_IGNORE);
        if (!done) return false;
        dag__mpi.asking = 0;
        dag__mutex_lock(&dag__mpi.history_lock);
        uint64_t epoch = dag__mpi.epoch, mine;
        for (int r = 1; r <= others; r++) {
            const uint64_t *a = &dag__mpi.answers[4 * r];   /* epoch, calls, hash, whether it had it */
            if (a[0] == epoch && a[3] && dag__mpi_hash_at(a[1], &mine) && mine != a[2]) diverged = true;
        }
        dag__mutex_unlock(&dag__mpi.history_lock);
        if (diverged && dag__mpi.judged != epoch + 1) {
            dag__mpi.judged = epoch + 1;
            uint64_t word[4] = { epoch, 0, 0, 0 };
            for (int r = 1; r <= others; r++) MPI_Send(word, 4, MPI_UINT64_T, r, DAG__MPI_TOLD_DIVERGED, dag__mpi.watch);
        } else {
            diverged = false;   /* told already */
        }
    }
    if (stopping) {   /* the others answer until told to stop */
        uint64_t word[4] = { 0, 0, 0, 0 };
        for (int r = 1; r <= others; r++) MPI_Send(word, 4, MPI_UINT64_T, r, DAG__MPI_STOP, dag__mpi.watch);
        dag__mpi.watch_done = 1;
        return diverged;
    }
    uint64_t now = dag__now_ns();
    if (now < dag__mpi.next_round_ns) return diverged;
    dag__mpi.next_round_ns = now + DAG__MPI_WATCH_NS;
    uint64_t ask[4] = { 0, 0, 0, 0 };
    dag__mutex_lock(&dag__mpi.history_lock);
    ask[0] = dag__mpi.epoch;
    ask[1] = dag__mpi.calls;
    dag__mutex_unlock(&dag__mpi.history_lock);
    for (int r = 1; r <= others; r++)   /* the answers' receives first: an answer never waits */
        MPI_Irecv(&dag__mpi.answers[4 * r], 4, MPI_UINT64_T, r, DAG__MPI_ANSWER, dag__mpi.watch,
                  &dag__mpi.answer_requests[r - 1]);
    for (int r = 1; r <= others; r++) MPI_Send(ask, 4, MPI_UINT64_T, r, DAG__MPI_ASK, dag__mpi.watch);
    dag__mpi.asking = 1;
    return diverged;
}

static bool dag__mpi_watch_as_other(void) {
    if (dag__mpi.watch_done) return false;
    int done = 0;
    MPI_Status status;
    MPI_Test(&dag__mpi.word_request, &done, &status);
    if (!done) return false;
    if (status.MPI_TAG == DAG__MPI_STOP) {
        dag__mpi.watch_done = 1;
        return false;
    }
    bool diverged = false;
    uint64_t answer[4] = { 0, 0, 0, 0 };
    dag__mutex_lock(&dag__mpi.history_lock);
    answer[0] = dag__mpi.epoch;
    if (status.MPI_TAG == DAG__MPI_ASK) {
        answer[1] = dag__mpi.word[1] < dag__mpi.calls ? dag__mpi.word[1] : dag__mpi.calls;
        answer[3] = dag__mpi_hash_at(answer[1], &answer[2]);
    } else {
        diverged = dag__mpi.word[0] == dag__mpi.epoch;   /* told, about this epoch */
    }
    dag__mutex_unlock(&dag__mpi.history_lock);
    if (status.MPI_TAG == DAG__MPI_ASK) MPI_Send(answer, 4, MPI_UINT64_T, 0, DAG__MPI_ANSWER, dag__mpi.watch);
    MPI_Irecv(dag__mpi.word, 4, MPI_UINT64_T, 0, MPI_ANY_TAG, dag__mpi.watch, &dag__mpi.word_request);
    return diverged;
}

/* >>progress: MPI completions become fulfilled events */
/* A receive whose sender's input failed fails with the words that came:
   its dependents here say what failed, where and why, as on one node. The
   failure was logged on its rank, so this one is not (dag_fulfill would log
   it as this task's); its status is set as dag_fulfill sets it. */
static void dag__mpi_fulfil(dag__mpi_request *finished, int count) {
    for (int k = 0; k < count; k++) {
        dag__mpi_request *f = &finished[k];
        dag_result status = (dag_result)f->status;
        bool words = f->incoming && f->task && (f->expect < 0 || f->free_after);   /* the sender's failure came */
        if (words && status == DAG_ERR_DEPENDENCY_FAILED && dag__task_cause(f->task)) {
            dag__task_fail(f->task, status, NULL);
            status = DAG_OK;
        }
        DAG_FREE(f->free_after);
        if (f->event.id) dag_fulfill(f->event, status);
    }
}

/* The words of a failure, "name\0what\0" (at most DAG__MPI_WORDS bytes),
   from its cause (dag.h's "name\0what"; NULL: only its status is known).
   The what names the rank it failed on, once: words that came from another
   rank name theirs already. Returns the bytes. */
#define DAG__MPI_WORDS 256
static int dag__mpi_words(const char *cause, int status, char *words) {
    const char *name = cause ? cause : "a task", *what = cause ? dag__cause_what(cause) : NULL;
    int n = snprintf(words, 64, "%s", name);
    n = n < 0 ? 0 : n > 63 ? 63 : n;
    char *rest = words + n + 1;
    int room = DAG__MPI_WORDS - n - 1, m;
    if (what && !strncmp(what, "on rank ", 8)) m = snprintf(rest, (size_t)room, "%s", what);
    else if (what) m = snprintf(rest, (size_t)room, "on rank %d %s", dag__mpi.rank, what);
    else m = snprintf(rest, (size_t)room, "on rank %d failed (%s)", dag__mpi.rank, dag_result_string(status));
    m = m < 0 ? 0 : m >= room ? room - 1 : m;
    return n + 1 + m + 1;
}
/* The words received: the receive task's cause. */
static void dag__mpi_take_words(dag__task *t, char *words, int bytes) {
    if (bytes < 1 || bytes > DAG__MPI_WORDS) return;
    words[bytes - 1] = 0;
    size_t n = strlen(words);
    const char *cause = dag__cause_new(words, (int)n + 1 < bytes ? words + n + 1 : "failed");
    dag__task_fail(t, DAG_OK, cause);
    dag__cause_drop(cause);
}

/* A message's tag: a number every rank advances alike per message, and in
   its low two bits its kind, so that after a divergence a message of one
   kind never lands in a receive of another. The words of a failure go on
   the tag of the message that came empty, with their own kind. */
enum { DAG__MPI_TAG_DATA, DAG__MPI_TAG_OUTCOME, DAG__MPI_TAG_VALUE, DAG__MPI_TAG_WORDS };
static int dag__mpi_next_tag(int kind) {
    return (int)(dag__mpi.messages++ % (uint64_t)(dag__mpi.tag_limit / 4)) * 4 + kind;
}
static int dag__mpi_words_tag(int tag) { return tag - tag % 4 + DAG__MPI_TAG_WORDS; }

static int dag__mpi_recv_span(void *p, size_t rows, size_t width, size_t stride, int from, int tag, MPI_Request *request);
/* A request MPI completed (rc: what MPI_Testany returned): what its task
   is told. A cancelled receive, or a message that did not fit or was of
   another size: the ranks diverged (a message meant for another call). An
   empty one: the sender's input failed, and its words follow: then this
   request becomes their receive, and true. */
static bool dag__mpi_completed(dag__mpi_request *f, MPI_Status *status, int rc) {
    if (!f->incoming) return false;
    int bytes = -1, cancelled = 0;
    MPI_Test_cancelled(status, &cancelled);
    if (!cancelled) MPI_Get_count(status, MPI_BYTE, &bytes);
    if (cancelled || rc != MPI_SUCCESS) {
        f->status = DAG_ERR_DIVERGED;
    } else if (f->expect < 0) {   /* the words came */
        dag__mpi_take_words(f->task, (char *)f->free_after, bytes);
        if (!f->status) f->status = DAG_ERR_DEPENDENCY_FAILED;
        if (f->span) {   /* a span's bytes follow on the same tag: this request becomes their receive */
            dag__mpi_recv_span(f->span, f->rows, f->width, f->stride, f->from, dag__mpi_words_tag(f->tag), &f->request);
            f->expect = (int)(f->rows * f->width);
            f->span = NULL;
            if (atomic_load(&dag__mpi.diverged)) MPI_Cancel(&f->request);
            f->cancelled = atomic_load(&dag__mpi.diverged);
            return true;
        }
    } else if (f->free_after) {   /* the bytes that followed a failure's words: the span holds the sender's */
        if (bytes != f->expect) f->status = DAG_ERR_DIVERGED;
    } else if (bytes == 0 && f->task) {
        f->free_after = dag__xmalloc(DAG__MPI_WORDS);
        f->expect = -1;
        MPI_Irecv(f->free_after, DAG__MPI_WORDS, MPI_BYTE, f->from, dag__mpi_words_tag(f->tag), dag__mpi.comm, &f->request);
        if (atomic_load(&dag__mpi.diverged)) MPI_Cancel(&f->request);
        f->cancelled = atomic_load(&dag__mpi.diverged);
        return true;
    } else if (bytes != f->expect) {
        f->status = DAG_ERR_DIVERGED;
    }
    return false;
}

/* With the lock held: request `index` leaves the list, the last in its place. */
static void dag__mpi_request_drop(int index) {
    int last = --dag__mpi.num_requests;
    dag__mpi.requests[index] = dag__mpi.requests[last];
    dag__mpi.request_array[index] = dag__mpi.request_array[last];
    dag__mpi.requests[index].request = dag__mpi.request_array[index];
}

/* With the lock held: up to `most` requests that MPI completed leave the
   list for `finished` (their events are fulfilled after the unlock). */
static int dag__mpi_test_some(dag__mpi_request *finished, int most) {
    int count = 0;
    while (count < most && dag__mpi.num_requests) {
        int index = MPI_UNDEFINED, flag = 0;
        MPI_Status status;
        int rc = MPI_Testany(dag__mpi.num_requests, dag__mpi.request_array, &index, &flag, &status);
        if (!flag || index == MPI_UNDEFINED) break;
        dag__mpi_request *q = &dag__mpi.requests[index];
        if (dag__mpi_completed(q, &status, rc)) {   /* it waits on, for the words of a failure */
            dag__mpi.request_array[index] = q->request;
            continue;
        }
        finished[count++] = *q;
        dag__mpi_request_drop(index);
        /* On an error (a message that did not fit: the ranks diverged) Open MPI frees every request
           in error, but names one: the others are MPI_REQUEST_NULL now, never to complete. */
        for (int i = 0; rc != MPI_SUCCESS && i < dag__mpi.num_requests && count < most;) {
            if (dag__mpi.request_array[i] != MPI_REQUEST_NULL) {
                i++;
                continue;
            }
            finished[count] = dag__mpi.requests[i];
            finished[count++].status = DAG_ERR_DIVERGED;
            dag__mpi_request_drop(i);
        }
    }
    return count;
}

/* Called by an idle worker as it spins before sleeping (dag.h's
   dag__spin_more, every 64 looks): it tests the requests in flight too, so
   a message is complete as soon as a spinning worker sees it rather than
   when the progress thread next looks (it backs off to 200 us while
   nothing completes). Workers spin only in the wait policy's window, so
   this burns no core the policy did not; the progress thread remains for
   when every worker sleeps. One thread tests at a time: a worker that
   finds the lock taken goes on spinning. DAG_MPI_PROGRESS=thread leaves
   it to the progress thread alone (bench/mpi_hop.c measures both). */
static void dag__mpi_poll(void) {
    if (!atomic_load_explicit(&dag__mpi_polling, memory_order_relaxed)) return;
    atomic_fetch_add(&dag__mpi_pollers, 1);   /* before the look: shut-down waits for it to leave */
    if (atomic_load(&dag__mpi_polling) && dag__mutex_trylock(&dag__mpi.lock)) {
        dag__mpi_request finished[16];
        int count = dag__mpi_test_some(finished, 16);
        dag__mutex_unlock(&dag__mpi.lock);
        dag__mpi_fulfil(finished, count);
    }
    atomic_fetch_sub(&dag__mpi_pollers, 1);
}

/* Tests what is in flight; sleeps on `wake` while nothing is, and backs
   off from 1 us to 200 us while requests are in flight but none completes,
   so an idle rank burns no core. */
static int dag__mpi_progress(void *unused) {
    (void)unused;
    int idle = 0, finished_cap = 0;
    dag__mpi_request *finished = NULL;   /* what completed (or was let go): its events are fulfilled unlocked */
    for (;;) {
        bool stopping = atomic_load(&dag__mpi.stop);
        if (stopping && dag__mpi.watch_done) break;
        bool told = dag__mpi.rank == 0 ? dag__mpi_watch_as_rank_0(stopping) : dag__mpi_watch_as_other();
        dag__mutex_lock(&dag__mpi.lock);
        if (finished_cap < dag__mpi.requests_cap) {   /* room for every request in flight */
            DAG_FREE(finished);
            finished_cap = dag__mpi.requests_cap;
            finished = (dag__mpi_request *)dag__xmalloc((size_t)finished_cap * sizeof *finished);
        }
        int count = told ? dag__mpi_give_up(finished) : 0;
        if (dag__mpi.num_requests == 0 && dag__mpi.check != DAG__MPI_CHECK_POSTED) {
            dag__mutex_unlock(&dag__mpi.lock);
            dag__mpi_fulfil(finished, count);
            /* idle: the watch's next round, or rank 0's word to stop, is at most this far off */
            uint64_t deadline = dag__now_ns() + (stopping ? 1000000u : 100000000u);
            struct timespec ts = { (time_t)(deadline / 1000000000u), (long)(deadline % 1000000000u) };
            dag__mutex_lock(&dag__mpi.lock);
            bool stop_came = !stopping && atomic_load(&dag__mpi.stop);   /* since the loop's top: look at once */
            if (!stop_came) dag__cond_timedwait(&dag__mpi.wake, &dag__mpi.lock, &ts);
            dag__mutex_unlock(&dag__mpi.lock);
            continue;
        }
        if (dag__mpi.check == DAG__MPI_CHECK_POSTED) count += dag__mpi_test_check(finished + count);
        count += dag__mpi_test_some(finished + count, finished_cap - count);
        dag__mutex_unlock(&dag__mpi.lock);
        dag__mpi_fulfil(finished, count);
        if (count) {
            idle = 0;
        } else if (++idle < 64) {
            dag__thread_yield();
        } else {   /* a new request signals `wake` and ends the pause */
            uint64_t deadline = dag__now_ns() + (idle < 1600 ? 1000u + (uint64_t)idle * 125u : 200000u);
            struct timespec ts = { (time_t)(deadline / 1000000000u), (long)(deadline % 1000000000u) };
            dag__mutex_lock(&dag__mpi.lock);
            dag__cond_timedwait(&dag__mpi.wake, &dag__mpi.lock, &ts);
            dag__mutex_unlock(&dag__mpi.lock);
        }
    }
    DAG_FREE(finished);
    return 0;
}

/* >>message tasks: the tasks that move data */
/* A span as MPI sees it: `rows` runs of `width` bytes, `stride` apart. */
static int dag__mpi_type(size_t rows, size_t width, size_t stride, MPI_Datatype *type, int *count) {
    if (rows > (size_t)INT_MAX || width > (size_t)INT_MAX || stride > (size_t)INT_MAX) return DAG_ERR_INVALID_ARGUMENT;
    if (rows == 1 || stride == width) {
        if (rows * width > (size_t)INT_MAX) return DAG_ERR_INVALID_ARGUMENT;
        *type = MPI_BYTE;
        *count = (int)(rows * width);
        return DAG_OK;
    }
    MPI_Type_vector((int)rows, (int)width, (int)stride, MPI_BYTE, type);
    MPI_Type_commit(type);
    *count = 1;
    return DAG_OK;
}
/* A receive of such a span posted (its type MPI keeps until it completes); an error when it does not fit
   one message. */
static int dag__mpi_recv_span(void *p, size_t rows, size_t width, size_t stride, int from, int tag, MPI_Request *request) {
    MPI_Datatype type;
    int count, e = dag__mpi_type(rows, width, stride, &type, &count);
    if (e) return e;
    MPI_Irecv(p, count, type, from, tag, dag__mpi.comm, request);
    if (type != MPI_BYTE) MPI_Type_free(&type);
    return DAG_OK;
}

/* The message tasks run even when what they wait for failed or was
   cancelled (DAG__TF_ALWAYS_RUNS): the other rank waits for the message.
   A send whose input failed sends an empty one, then the failure's words,
   and the receive then fails its task with them, so the failure reaches
   the dependents there, named as on its own rank. A span's send then sends
   its bytes as well, on the words' tag after them: the receiver's copy is
   the sender's, as every rank's records of the copies say (what a failed
   task wrote stays, as in one node's memory). */
static bool dag__mpi_input_failed(void) {
    dag__task *t = dag__body_task();
    return dag__task_cause(t) || dag__cancel_asked(t);
}

/* The ranks diverged in this region, or since the message task was
   spawned (`epoch`: a task of an outer region or of no region, still to
   run when the ranks started again): no message is posted, since no rank
   waits for it any more (tags count from 0 again). The task fails with
   DAG_ERR_DIVERGED, quietly: the end that finds the divergence names it
   once, rather than a line for each message. */
static unsigned dag__mpi_era(void) { return (unsigned)atomic_load(&dag__mpi.epoch); }
static bool dag__mpi_gave_up(unsigned epoch) {
    if (!atomic_load(&dag__mpi.diverged) && epoch == dag__mpi_era()) return false;
    dag__task_fail(dag__body_task(), DAG_ERR_DIVERGED, NULL);
    return true;
}

/* In a message task's body: instead of its data, an empty message and
   the words of the failure (cause; NULL: only the status is known). The
   task itself ends with `ends`. */
static void dag__mpi_send_failure(int to, int tag, const char *cause, int status, int ends) {
    static const char none = 0;
    MPI_Request request;
    MPI_Isend(&none, 0, MPI_BYTE, to, tag, dag__mpi.comm, &request);
    dag__mpi_track(request, dag__mpi_sending((dag_event){ 0 }, NULL));
    char *words = (char *)dag__xmalloc(DAG__MPI_WORDS);
    int bytes = dag__mpi_words(cause, status, words);
    MPI_Isend(words, bytes, MPI_BYTE, to, dag__mpi_words_tag(tag), dag__mpi.comm, &request);
    dag__mpi_request q = dag__mpi_sending(dag_detach(), words);
    q.status = ends;
    dag__mpi_track(request, q);
}

DAG_TASK(void, mpi_send, (const void *, p), (size_t, rows), (size_t, width), (size_t, stride), (int, to), (int, tag),
         (unsigned, epoch)) {
    MPI_Datatype type;
    int count;
    if (dag__mpi_gave_up(epoch)) return;
    if (dag__mpi_type(rows, width, stride, &type, &count)) {
        dag_fail(DAG_ERR_INVALID_ARGUMENT, "a span of %zu rows of %zu bytes is more than one MPI message takes", rows, width);
        return;
    }
    bool failed = dag__mpi_input_failed();
    if (failed)   /* the words first, then the bytes on their tag (the receive takes them in that order) */
        dag__mpi_send_failure(to, tag, dag__task_cause(dag__body_task()), DAG_ERR_CANCELLED, DAG_ERR_DEPENDENCY_FAILED);
    MPI_Request request;
    MPI_Isend(p, count, type, to, failed ? dag__mpi_words_tag(tag) : tag, dag__mpi.comm, &request);
    if (type != MPI_BYTE) MPI_Type_free(&type);   /* MPI keeps it until the send completes */
    dag__mpi_track(request, dag__mpi_sending(dag_detach(), NULL));
}

DAG_TASK(void, mpi_receive, (void *, p), (size_t, rows), (size_t, width), (size_t, stride), (int, from), (int, tag),
         (unsigned, epoch)) {
    if (dag__mpi_gave_up(epoch)) return;
    MPI_Request request;
    if (dag__mpi_recv_span(p, rows, width, stride, from, tag, &request)) {
        dag_fail(DAG_ERR_INVALID_ARGUMENT, "a span of %zu rows of %zu bytes is more than one MPI message takes", rows, width);
        return;
    }
    dag__mpi_request q = dag__mpi_receiving(dag_detach(), dag__body_task(), (int)(rows * width), from, tag,
                                            dag__mpi_input_failed() ? DAG_ERR_DEPENDENCY_FAILED : DAG_OK);
    q.span = p, q.rows = rows, q.width = width, q.stride = stride;
    dag__mpi_track(request, q);
}

/* A task's outcome to another rank (dag__mpi_wait lays it out): a copy
   the send owns, so that dag_release of the task right after cannot take it. */
DAG_TASK(void, mpi_send_outcome, (unsigned char *, buf), (size_t, bytes), (int, to), (int, tag), (unsigned, epoch)) {
    if (dag__mpi_gave_up(epoch)) {
        DAG_FREE(buf);
        return;
    }
    MPI_Request request;
    MPI_Isend(buf, (int)bytes, MPI_BYTE, to, tag, dag__mpi.comm, &request);
    dag__mpi_track(request, dag__mpi_sending(dag_detach(), buf));
}

/* A task's result alone to another rank, for a Fut there; when it failed,
   the failure instead (the receive then fails with its words). `held`: t's
   record was held when this was spawned (dag__result_hold), so the program
   may fetch or release t meanwhile: the value is read, not taken. */
DAG_TASK(void, mpi_send_value, (dag_task, t), (int, held), (size_t, result_size), (int, to), (int, tag), (unsigned, epoch)) {
    if (dag__mpi_gave_up(epoch)) {
        if (held) dag__result_unhold(t);
        return;
    }
    unsigned char *buf = (unsigned char *)dag__xmalloc(result_size);
    int status = dag__result_copy(t, held != 0, buf, result_size);
    if (status) {
        DAG_FREE(buf);
        const char *cause = dag__handle_cause(t);   /* NULL: its record has gone */
        if (held) dag__result_unhold(t);
        dag__mpi_send_failure(to, tag, cause, status, DAG_OK);
        dag__cause_drop(cause);
        return;
    }
    if (held) dag__result_unhold(t);
    MPI_Request request;
    MPI_Isend(buf, (int)result_size, MPI_BYTE, to, tag, dag__mpi.comm, &request);
    dag__mpi_track(request, dag__mpi_sending(dag_detach(), buf));
}

/* Its descriptor lays out the arguments; the task spawned is a copy
   (dag__mpi_value_desc) whose run is dag__mpi_receive_value_run and whose
   result is the producer's: the value is received into the task's own
   result, so a Fut of it on this rank is a Fut of the value. */
DAG_TASK(void, mpi_receive_value, (int, from), (int, tag), (size_t, bytes), (unsigned, epoch)) {
    (void)from, (void)tag, (void)bytes, (void)epoch;
}
static void dag__mpi_receive_value_run(void *args, void *result) {
    const mpi_receive_value__args *a = (const mpi_receive_value__args *)args;
    if (dag__mpi.simulated) {
        memset(result, 0, a->a2);
        return;
    }
    if (dag__mpi_gave_up(a->a3)) return;
    MPI_Request request;
    MPI_Irecv(result, (int)a->a2, MPI_BYTE, a->a0, a->a1, dag__mpi.comm, &request);
    dag__mpi_track(request, dag__mpi_receiving(dag_detach(), dag__body_task(), (int)a->a2, a->a0, a->a1, DAG_OK));
}
static const dag_task_desc *dag__mpi_value_desc(const dag_task_desc *producer) {
    dag__mpi_value_kind *k = dag__mpi.value_kinds;
    while (k && (k->desc.result_size != producer->result_size || k->desc.result_tag != producer->result_tag ||
                 k->desc.result_pointee != producer->result_pointee))
        k = k->next;
    if (k) return &k->desc;
    k = (dag__mpi_value_kind *)dag__xmalloc(sizeof *k);
    k->desc = mpi_receive_value__desc;
    k->desc.run = dag__mpi_receive_value_run;
    k->desc.result_size = producer->result_size;
    k->desc.result_tag = producer->result_tag;
    k->desc.result_pointee = producer->result_pointee;
    k->next = dag__mpi.value_kinds;
    dag__mpi.value_kinds = k;
    return &k->desc;
}

DAG_TASK(void, mpi_receive_outcome, (unsigned char *, buf), (size_t, bytes), (int, from), (int, tag), (unsigned, epoch)) {
    if (dag__mpi_gave_up(epoch)) return;
    MPI_Request request;
    MPI_Irecv(buf, (int)bytes, MPI_BYTE, from, tag, dag__mpi.comm, &request);
    dag__mpi_track(request, dag__mpi_receiving(dag_detach(), NULL, (int)bytes, from, tag, DAG_OK));
}

/* Spawns on this rank alone, inside the collective one (dag__mpi_collective says no). */
static int dag__mpi_local_depth;
#define DAG__MPI_LOCAL(spawn) (dag__mpi_local_depth++, (spawn), dag__mpi_local_depth--)
/* This layer's own tasks (messages, copies dropped) run on any worker,
   whatever scope is in force: a region's device scope would leave them no
   processor. */
/* Message tasks only post a request (and detach): first among ready tasks,
   so that a rank waiting for the data is not kept waiting behind this
   rank's own work (a factorisation prioritises nearly every task). */
static const dag_options dag__mpi_on_cpu = { .scope = { .all_threads = 1 }, .priority = 1 << 28 };


/* A message every rank decides alike, counted for both ends (dag_get_rank_stats). */
static void dag__mpi_count(int from, int to, size_t bytes) {
    dag__mpi.per_rank[from].messages_sent++;
    dag__mpi.per_rank[from].bytes_sent += bytes;
    dag__mpi.per_rank[to].messages_received++;
    dag__mpi.per_rank[to].bytes_received += bytes;
}

/* >>owned spans */
/* A registered span as dag.h keeps it (dag__data_shape); zeros when h is
   not registered. */
typedef struct dag__mpi_shape { bool registered; void *ptr; size_t rows, width, stride; } dag__mpi_shape;
static dag__mpi_shape dag__mpi_shape_of(dag_data h) {
    dag__mpi_shape s = { false, NULL, 0, 0, 0 };
    s.registered = dag__data_shape(h, &s.ptr, &s.rows, &s.width, &s.stride);
    return s;
}
static size_t dag__mpi_bytes(dag_data h) {
    dag__mpi_shape s = dag__mpi_shape_of(h);
    return s.rows * s.width;
}

static dag__mpi_span *dag__mpi_span_of(dag_data h) {
    uint32_t index = (uint32_t)(h.id & 0xffffffffu);
    if (!index || index > dag__mpi.spans_cap) return NULL;
    dag__mpi_span *s = &dag__mpi.spans[index - 1];
    return s->id == h.id ? s : NULL;
}

/* A span unregistered (its tasks are done): its copies and their bytes go. */
static void dag__mpi_forget_span(dag__mpi_span *m) {
    for (int r = 0; r < dag__mpi.size; r++)
        if (dag__mpi_has(&m->held, r)) dag__mpi.held_bytes[r] -= m->bytes;
    DAG_FREE(m->memory);
    memset(m, 0, sizeof *m);
}

static void dag__mpi_registered(int rank, dag_data h) {
    if (!dag__mpi.active) return;
    uint32_t index = (uint32_t)(h.id & 0xffffffffu);
    if (index > dag__mpi.spans_cap) {
        size_t cap = dag__mpi.spans_cap ? dag__mpi.spans_cap : 64;
        while (cap < index) cap *= 2;
        dag__mpi.spans = (dag__mpi_span *)dag__xrealloc(dag__mpi.spans, cap * sizeof *dag__mpi.spans);
        memset(dag__mpi.spans + dag__mpi.spans_cap, 0, (cap - dag__mpi.spans_cap) * sizeof *dag__mpi.spans);
        dag__mpi.spans_cap = cap;
    }
    dag__mpi_span *s = &dag__mpi.spans[index - 1];
    dag__mpi_forget_span(s);   /* a slot used before: its copies went with the old handle */
    s->id = h.id;
    s->owner = rank;
    dag__mpi_only(&s->current, rank);
    s->bytes = dag__mpi_bytes(h);
    s->number = ++dag__mpi.numbered;   /* which span it is, on every rank alike: hashed by the spawns that pass it */
    dag__mpi_arg_note what = { DAG__ARG_DATA, 0, (uint16_t)(rank + 1), s->number, s->bytes };
    dag__mpi_note(DAG__MPI_CALL_REGISTER, dag__mpi_call_register, rank, &what, 1);
}

/* This rank's copy of a span another rank owns: allocated on first use,
   packed (its rows one after another, whatever the owner's stride). */
static void dag__mpi_have_memory(dag_data h, dag__mpi_span *m) {
    dag__mpi_shape s = dag__mpi_shape_of(h);
    if (!s.registered || s.ptr) return;
    m->memory = dag__xmalloc(s.rows * s.width);
    memset(m->memory, 0, s.rows * s.width);
    dag__data_place(h, m->memory);
}

/* Its copy on rank r dropped: a local task there frees it after the tasks
   that use it (the next copy there is new memory, so the tasks on the old
   one need no order with those on the new). */
DAG_TASK(void, mpi_drop, (void *, p)) { DAG_FREE(p); }

static void dag__mpi_move(dag_data h, dag__mpi_span *m, int to);

/* Every rank alike: rank r gives up its copy of m. A copy that alone is
   current goes home first, so no write is lost. */
static void dag__mpi_drop(dag__mpi_span *m, int r) {
    dag_data h = { m->id };
    if (dag__mpi_is_only(&m->current, r)) dag__mpi_move(h, m, m->owner);
    if (r == dag__mpi.rank && m->memory) {
        dag__mpi_spawn_flags = DAG__TF_ALWAYS_RUNS;
        DAG__MPI_LOCAL(dag_spawn_with(&dag__mpi_on_cpu, mpi_drop, InOut(h)));
        dag__mpi_spawn_flags = 0;
        dag__data_place(h, NULL);
        m->memory = NULL;
        dag__mpi.copies_dropped++;
    }
    dag__mpi_remove(&m->held, r);
    dag__mpi_remove(&m->current, r);
    dag__mpi.held_bytes[r] -= m->bytes;
}

/* Every rank alike: rank r is to hold a copy of m (a receive there, or a
   task run there). Past dag_desc.rank_cache_limit it first gives up its
   least recently used copies; the spawn's own spans (used at this call)
   stay, so a single spawn may go over. Every rank knows every rank's
   copies, so all reach the same decisions without asking. */
static void dag__mpi_hold(dag__mpi_span *m, int r) {
    if (r == m->owner || dag__mpi_has(&m->held, r)) return;
    while (dag__mpi.cache_limit && dag__mpi.held_bytes[r] + m->bytes > dag__mpi.cache_limit) {
        dag__mpi_span *oldest = NULL;
        for (size_t i = 0; i < dag__mpi.spans_cap; i++) {
            dag__mpi_span *v = &dag__mpi.spans[i];
            if (v->id && !dag__mpi_shape_of((dag_data){ v->id }).registered) dag__mpi_forget_span(v);   /* unregistered */
            if (v->id && dag__mpi_has(&v->held, r) && v->last_use < dag__mpi.calls &&
                (!oldest || v->last_use < oldest->last_use))
                oldest = v;
        }
        if (!oldest) break;
        dag__mpi_drop(oldest, r);
    }
    dag__mpi_add(&m->held, r);
    dag__mpi.held_bytes[r] += m->bytes;
}

/* Every rank calls this alike: `to` gets the current copy from a rank that has it. */
static void dag__mpi_move(dag_data h, dag__mpi_span *m, int to) {
    dag__mpi_hold(m, to);
    int from = dag__mpi_has(&m->current, m->owner) ? m->owner : dag__mpi_first(&m->current);
    int tag = dag__mpi_next_tag(DAG__MPI_TAG_DATA);
    dag__mpi_count(from, to, m->bytes);
    dag__mpi_spawn_flags = DAG__TF_ALWAYS_RUNS;
    if (dag__mpi.simulated) {   /* decided and counted: no message */
    } else if (dag__mpi.rank == from) {
        dag__mpi_shape s = dag__mpi_shape_of(h);
        DAG__MPI_LOCAL(dag_spawn_with(&dag__mpi_on_cpu, mpi_send, In(h), Val(s.rows), Val(s.width), Val(s.stride), Val(to),
                                      Val(tag), Val(dag__mpi_era())));
    } else if (dag__mpi.rank == to) {
        dag__mpi_have_memory(h, m);   /* packed: read its shape after */
        dag__mpi_shape s = dag__mpi_shape_of(h);
        DAG__MPI_LOCAL(dag_spawn_with(&dag__mpi_on_cpu, mpi_receive, Out(h), Val(s.rows), Val(s.width), Val(s.stride),
                                      Val(from), Val(tag), Val(dag__mpi_era())));
    }
    dag__mpi_spawn_flags = 0;
    dag__mpi_add(&m->current, to);
}

/* >>collective spawns */
static bool dag__mpi_collective(const dag__context *ctx) {
    return dag__mpi.active && dag__is_main(ctx) && !dag__mpi_local_depth;
}

/* A handle of this layer: no record, gen = its slot + 1, and in bits this
   bit, the slot's stamp and whether it has a result (bit 0). A failed
   spawn's handle has no record either, but its bits are the set-up count
   (dag__handle), far below this bit. */
#define DAG__MPI_HANDLE_BIT 0x80000000u
static uint32_t dag__mpi_stamps;   /* the last stamp given, across set-ups: a handle of an earlier one is stale */
static bool dag__mpi_handle(dag_task h) { return !h.ptr && (h.bits & DAG__MPI_HANDLE_BIT) && h.gen; }
static dag__mpi_task *dag__mpi_task_of(dag_task h) {
    if (!dag__mpi_handle(h) || h.gen > dag__mpi.num_tasks) return NULL;
    dag__mpi_task *e = &dag__mpi.tasks[h.gen - 1];
    return e->stamp == (h.bits & ~DAG__MPI_HANDLE_BIT) >> 1 ? e : NULL;
}

/* Where a collective spawn runs: dag_scope(.rank), else the owner of its
   first written owned span, else every rank (-1). */
static int dag__mpi_placement(const dag_arg *args, int n, const dag_options *opt) {
    if (opt->scope.rank) return opt->scope.rank - 1;
    for (int i = 0; i < n; i++) {
        dag__mpi_span *m = args[i].kind == DAG__ARG_DATA && (args[i].mode & DAG_ACCESS_OUT) ? dag__mpi_span_of(args[i].data)
                                                                                          : NULL;
        if (m) return m->owner;
    }
    return -1;
}

/* A layer's collective call whose numbers every rank must pass alike, though its tasks take them as
   values (a view's corner, an index list: dag_array.h's; unused by a program of dag.h alone). The log
   keeps the first ones; past them, one note (mode 1) of the rest hashed. */
DAG__UNUSED static void dag__mpi_agree_numbers(const char *what, const int64_t *v, int64_t n) {
    if (!dag__mpi.active || !dag__on_main() || dag__mpi_local_depth) return;
    dag__mpi_arg_note notes[DAG__MAX_PARAMS];
    memset(notes, 0, sizeof notes);
    int shown = n < DAG__MAX_PARAMS ? (int)n : DAG__MAX_PARAMS - 1;
    for (int i = 0; i < shown; i++) notes[i].kind = DAG__ARG_VALUE, notes[i].bytes = (uint64_t)v[i];
    if (shown < n) {
        uint64_t rest = dag__mpi_mix(0xcbf29ce484222325ull, (uint64_t)n);
        for (int64_t i = shown; i < n; i++) rest = dag__mpi_mix(rest, (uint64_t)v[i]);
        notes[shown].kind = DAG__ARG_VALUE, notes[shown].mode = 1, notes[shown].bytes = rest;
    }
    dag__mpi_note(DAG__MPI_CALL_NUMBERS, what, -1, notes, shown < n ? shown + 1 : shown);
}

/* What every rank must have spawned alike: the task, where it runs, its
   arguments' kinds and access, their sizes, which owned span each is (its
   registration's number) and which task run on one rank each Fut takes.
   Not addresses, which differ between ranks, nor values, which may. */
static void dag__mpi_note_spawn(const dag_task_desc *desc, const dag_arg *args, int n, int runs_on) {
    dag__mpi_arg_note notes[DAG__MAX_PARAMS];
    memset(notes, 0, sizeof notes);
    for (int i = 0; i < n; i++) {
        dag__mpi_arg_note *a = &notes[i];
        a->kind = args[i].kind;
        if (args[i].kind == DAG__ARG_SPAN) {
            a->mode = args[i].mode;
            a->bytes = (uint64_t)args[i].count * (args[i].cols ? args[i].cols : 1) * args[i].size;
            a->number = args[i].cols ? (uint32_t)args[i].count : 0;   /* a 2-D span's rows */
        } else if (args[i].kind == DAG__ARG_DATA) {
            dag__mpi_span *m = dag__mpi_span_of(args[i].data);
            a->mode = args[i].mode;
            a->owner = m ? (uint16_t)(m->owner + 1) : 0;
            a->number = m ? m->number : 0;
            a->bytes = m ? m->bytes : dag__mpi_bytes(args[i].data);
        } else if (args[i].kind == DAG__ARG_FUTURE && dag__mpi_task_of(args[i].task)) {
            a->number = dag__mpi_task_of(args[i].task)->number;
        }
    }
    dag__mpi_note(DAG__MPI_CALL_SPAWN, desc->name, runs_on, notes, n);
}

/* A slot for a new task (a forgotten one's first), with a new stamp. */
static dag__mpi_task *dag__mpi_new_task(void) {
    size_t index;
    if (dag__mpi.num_free) {
        index = dag__mpi.free_tasks[--dag__mpi.num_free];
    } else {
        if (dag__mpi.num_tasks == dag__mpi.tasks_cap) {
            size_t cap = dag__mpi.tasks_cap = dag__mpi.tasks_cap ? 2 * dag__mpi.tasks_cap : 256;
            dag__mpi.tasks = (dag__mpi_task *)dag__xrealloc(dag__mpi.tasks, cap * sizeof *dag__mpi.tasks);
            dag__mpi.free_tasks = (uint32_t *)dag__xrealloc(dag__mpi.free_tasks, cap * sizeof *dag__mpi.free_tasks);
        }
        index = dag__mpi.num_tasks++;
    }
    dag__mpi_task *e = &dag__mpi.tasks[index];
    memset(e, 0, sizeof *e);
    dag__mpi_stamps = (dag__mpi_stamps + 1) & (DAG__MPI_HANDLE_BIT - 1) >> 1;
    e->stamp = dag__mpi_stamps ? dag__mpi_stamps : (dag__mpi_stamps = 1);
    dag__mpi.tasks_kept++;
    return e;
}

/* Every rank alike: its handles are stale from here on, and its slot free. */
static void dag__mpi_forget_task(dag__mpi_task *e) {
    DAG_FREE(e->outcome);
    memset(e, 0, sizeof *e);
    dag__mpi.free_tasks[dag__mpi.num_free++] = (uint32_t)(e - dag__mpi.tasks);
    dag__mpi.tasks_kept--;
}

/* A void or discarded task is forgotten when the DAG_DATADEPS it was
   spawned in (or an outer one) ends: when fewer regions are open on the
   main thread than at its spawn; and at dag_wait_all, which ends every
   task, those spawned outside any region too. */
static void dag__mpi_forget_region_tasks(int end) {
    int64_t open = end == DAG__MPI_END_WAIT_ALL ? -1 : (int64_t)dag__main_open_regions();
    while (dag__mpi.num_fleeting && (int64_t)dag__mpi.fleeting[dag__mpi.num_fleeting - 1].depth > open) {
        dag__mpi_fleeting d = dag__mpi.fleeting[--dag__mpi.num_fleeting];
        if (dag__mpi.tasks[d.index].stamp == d.stamp) dag__mpi_forget_task(&dag__mpi.tasks[d.index]);   /* not released */
    }
}

/* dag_release of a task run on one rank: on that rank its local task's
   result goes; on every rank the record, so its handle is stale after.
   (A void task keeps nothing: the call is fine on a forgotten one.) */
static int dag__mpi_release(dag_task h) {
    dag__mpi_task *e = dag__mpi_task_of(h);
    if (!e) return h.bits & 1 ? DAG_ERR_STALE_HANDLE : DAG_OK;
    if (!dag__on_main())
        return dag__err(DAG_ERR_INVALID_ARGUMENT, "dag_release of a task run on one rank: only from the program's main "
                        "thread, on every rank alike");
    int s = DAG_OK;
    if (dag__mpi.rank == e->rank && !dag__mpi.simulated) s = dag_release(e->local);
    if (e->value.ptr) dag_release(e->value);
    dag__mpi_forget_task(e);
    return s;
}

/* A Fut of a task that ran on one rank, for a task run on `runs_on` (-1:
   every rank): the ranks among them without its value get it (a send
   there, a receive task here whose result it is), once. This rank's
   handle of the value. */
static dag_task dag__mpi_value_at(dag__mpi_task *e, int runs_on) {
    int first = runs_on < 0 ? 0 : runs_on, end = runs_on < 0 ? dag__mpi.size : runs_on + 1;
    for (int r = first; r < end; r++) {
        if (dag__mpi_has(&e->value_at, r)) continue;
        int tag = dag__mpi_next_tag(DAG__MPI_TAG_VALUE);
        dag__mpi_count(e->rank, r, e->result_size);
        if (dag__mpi.simulated) {   /* decided and counted: no message */
        } else if (dag__mpi.rank == e->rank) {
            int held = dag__result_hold(e->local);
            DAG__MPI_LOCAL(dag_spawn_with(&dag__mpi_on_cpu, mpi_send_value, Val(e->local), Val(held), Val(e->result_size), Val(r),
                                          Val(tag), Val(dag__mpi_era())));
        } else if (dag__mpi.rank == r) {
            dag_arg a[4] = { DAG_VAL(e->rank), DAG_VAL(tag), DAG_VAL(e->result_size), DAG_VAL(dag__mpi_era()) };
            DAG__MPI_LOCAL(e->value = dag_spawn_desc(dag__mpi_value_desc(e->desc), a, 4, &dag__mpi_on_cpu));
        }
        dag__mpi_add(&e->value_at, r);
    }
    if (!dag__mpi.simulated) return dag__mpi.rank == e->rank ? e->local : e->value;
    if (runs_on < 0 && !e->value.ptr) {   /* simulated, e did not run: a value of zeros for a task that runs here */
        dag_arg a[4] = { DAG_VAL(e->rank), DAG_VAL(0), DAG_VAL(e->result_size), DAG_VAL(dag__mpi_era()) };
        DAG__MPI_LOCAL(e->value = dag_spawn_desc(dag__mpi_value_desc(e->desc), a, 4, &dag__mpi_on_cpu));
    }
    return e->value;
}

/* The collective task spawned with these arguments ends a chain of how
   many collective tasks (1 + the longest it must follow: the last writer
   of what it reads or writes, the readers since of what it writes, the
   tasks whose Futs it takes). Message tasks are not counted. */
static uint64_t dag__mpi_depth(const dag_arg *args, int num_args) {
    uint64_t d = 0;
    for (int i = 0; i < num_args; i++) {
        dag__mpi_span *m = args[i].kind == DAG__ARG_DATA ? dag__mpi_span_of(args[i].data) : NULL;
        dag__mpi_task *e = args[i].kind == DAG__ARG_FUTURE ? dag__mpi_task_of(args[i].task) : NULL;
        if (m && m->written_at > d) d = m->written_at;
        if (m && (args[i].mode & DAG_ACCESS_OUT) && m->read_at > d) d = m->read_at;
        if (e && e->depth > d) d = e->depth;
    }
    d++;
    for (int i = 0; i < num_args; i++) {
        dag__mpi_span *m = args[i].kind == DAG__ARG_DATA ? dag__mpi_span_of(args[i].data) : NULL;
        if (m && (args[i].mode & DAG_ACCESS_OUT)) m->written_at = m->read_at = d;
        else if (m && d > m->read_at) m->read_at = d;
    }
    if (d > dag__mpi.critical_path) dag__mpi.critical_path = d;
    return d;
}

/* Every rank alike, for a collective spawn that runs on runs_on (-1: every
   rank): the owned spans it reads go where it runs (a copy there is kept
   to its limit), and those it writes are current there alone. here: it
   runs on this rank. */
static void dag__mpi_place_data(const dag_arg *args, int num_args, int runs_on, bool here) {
    int first = runs_on < 0 ? 0 : runs_on, end = runs_on < 0 ? dag__mpi.size : runs_on + 1;   /* the ranks that run it */
    for (int i = 0; i < num_args; i++) {   /* in use: no copy of these is dropped to make room for another */
        dag__mpi_span *m = args[i].kind == DAG__ARG_DATA ? dag__mpi_span_of(args[i].data) : NULL;
        if (m) m->last_use = dag__mpi.calls;
    }
    for (int i = 0; i < num_args; i++) {
        dag__mpi_span *m = args[i].kind == DAG__ARG_DATA ? dag__mpi_span_of(args[i].data) : NULL;
        if (!m) continue;
        for (int rank = first; rank < end; rank++) {
            if ((args[i].mode & DAG_ACCESS_IN) && !dag__mpi_has(&m->current, rank)) dag__mpi_move(args[i].data, m, rank);
            dag__mpi_hold(m, rank);
        }
        if (here) dag__mpi_have_memory(args[i].data, m);
    }
    for (int i = 0; i < num_args; i++) {
        dag__mpi_span *m = args[i].kind == DAG__ARG_DATA && (args[i].mode & DAG_ACCESS_OUT)
                               ? dag__mpi_span_of(args[i].data) : NULL;
        if (!m) continue;
        memset(&m->current, 0, sizeof m->current);   /* the writers' copies alone are current */
        for (int rank = first; rank < end; rank++) dag__mpi_add(&m->current, rank);
    }
    for (int rank = first; rank < end; rank++) dag__mpi.per_rank[rank].tasks++;
}

/* Every rank alike: the record of a collective spawn that runs on one
   rank (local: its task there, when this is that rank), and this layer's
   handle of it. */
static dag_task dag__mpi_one_rank(const dag_task_desc *desc, const dag_options *opt, int runs_on, dag_task local,
                                  uint64_t depth) {
    dag__mpi_task *e = dag__mpi_new_task();
    e->number = ++dag__mpi.numbered;
    e->rank = runs_on;
    e->local = local;
    e->result_size = desc->result_size;
    e->keep = opt->keep_results;
    e->desc = desc;
    dag__mpi_only(&e->value_at, runs_on);   /* its result is where it ran */
    e->depth = depth;
    uint32_t index = (uint32_t)(e - dag__mpi.tasks);
    if (!desc->result_size || opt->discard_results) {
        if (dag__mpi.num_fleeting == dag__mpi.fleeting_cap) {
            dag__mpi.fleeting_cap = dag__mpi.fleeting_cap ? 2 * dag__mpi.fleeting_cap : 256;
            dag__mpi.fleeting = (dag__mpi_fleeting *)dag__xrealloc(dag__mpi.fleeting, dag__mpi.fleeting_cap * sizeof *dag__mpi.fleeting);
        }
        dag__mpi_fleeting d = { index, e->stamp, dag__main_open_regions() };
        dag__mpi.fleeting[dag__mpi.num_fleeting++] = d;
    }
    dag_task h = { NULL, index + 1, DAG__MPI_HANDLE_BIT | e->stamp << 1 | (desc->result_size ? 1u : 0u) };
    return h;
}

static dag_task dag__mpi_spawn(const dag_task_desc *desc, const dag_arg *args, int num_args, const dag_options *opt) {
    dag_task local = { NULL, 0, 0 };
    if (!desc || num_args < 0 || num_args > DAG__MAX_PARAMS || (num_args && !args)) {
        DAG__MPI_LOCAL(local = dag_spawn_desc(desc, args, num_args, opt));   /* it says what is wrong */
        return local;
    }
    for (int i = 0; i < num_args; i++)
        if (args[i].kind == DAG__ARG_FUTURE && dag__mpi_handle(args[i].task) && !dag__mpi_task_of(args[i].task))
            return dag__main_refuse(DAG_ERR_STALE_HANDLE, "dag_spawn(%s): argument %d is a Fut of a task run on one rank "
                                    "whose result was released (dag_release, discard_results) or is of an earlier "
                                    "dag_setup", desc->name, i + 1);
    int runs_on = dag__mpi_placement(args, num_args, opt);   /* -1: every rank */
    dag__mpi_note_spawn(desc, args, num_args, runs_on);
    if (opt->scope.rank && (runs_on < 0 || runs_on >= dag__mpi.size))
        return dag__main_refuse(DAG_ERR_SCOPE, "dag_spawn(%s): the scope names rank %d, but the ranks are 0 to %d",
                                desc->name, runs_on, dag__mpi.size - 1);
    uint64_t depth = dag__mpi_depth(args, num_args);
    dag_arg here_args[DAG__MAX_PARAMS];   /* the arguments as this rank runs them: Futs of tasks run elsewhere */
    for (int i = 0; i < num_args; i++) {
        here_args[i] = args[i];
        dag__mpi_task *e = args[i].kind == DAG__ARG_FUTURE ? dag__mpi_task_of(args[i].task) : NULL;
        if (e) here_args[i].task = dag__mpi_value_at(e, runs_on);
    }
    /* runs here: a simulation runs only what every rank runs (its own memory; no task placed on one rank) */
    bool here = runs_on < 0 || (runs_on == dag__mpi.rank && !dag__mpi.simulated);
    dag__mpi_place_data(here_args, num_args, runs_on, here);
    if (here) {
        dag_options local_opt = *opt;
        local_opt.scope.rank = 0;
        if (runs_on >= 0) local_opt.keep_results = 1;   /* read by this layer as often as it needs; a fetch
                                                          of the collective handle spends it on every rank */
        DAG__MPI_LOCAL(local = dag_spawn_desc(desc, here_args, num_args, &local_opt));
    }
    return runs_on < 0 ? local : dag__mpi_one_rank(desc, opt, runs_on, local, depth);
}

/* >>collective waits: of a task run on one rank, its outcome to every rank */
/* A task's outcome, as the rank that ran it sends it: its status (int32),
   its result, that rank's history at the wait (so a rank whose history
   differs, having waited for another task, is not told a wrong value),
   and the words of its failure (dag__mpi_words). */
static size_t dag__mpi_outcome_bytes(const dag__mpi_task *e) {
    return sizeof(int32_t) + e->result_size + sizeof(uint64_t) + DAG__MPI_WORDS;
}
static int32_t dag__mpi_outcome_status(const dag__mpi_task *e) {
    int32_t status;
    uint64_t history;
    memcpy(&status, e->outcome, sizeof status);
    memcpy(&history, e->outcome + sizeof status + e->result_size, sizeof history);
    return history != e->history ? DAG_ERR_DIVERGED : status;
}
static void dag__mpi_outcome_of(dag__mpi_task *e, unsigned char *outcome) {
    int32_t status = e->result_size ? (int32_t)dag_fetch_bytes(e->local, outcome + sizeof status, e->result_size)
                                    : (int32_t)dag_wait(e->local);
    unsigned char *words = outcome + sizeof status + e->result_size + sizeof e->history;
    memcpy(outcome, &status, sizeof status);
    memcpy(words - sizeof e->history, &e->history, sizeof e->history);
    memset(words, 0, DAG__MPI_WORDS);
    if (status) {
        const char *cause = dag__handle_cause(e->local);
        dag__mpi_words(cause, status, (char *)words);
        dag__cause_drop(cause);
    }
}

static int dag__mpi_outcome(dag_task h, void *out, size_t size);

/* dag_wait and dag_fetch of a task that ran on one rank. A fetch that gets
   the value spends the handle on every rank (unless keep_results), as on
   one node. */
static int dag__mpi_wait(dag_task h, void *out, size_t size) {
    int s = dag__mpi_outcome(h, out, size);
    dag__mpi_task *e = s == DAG_OK && out ? dag__mpi_task_of(h) : NULL;
    if (e && !e->keep) dag__mpi_release(h);
    return s;
}

/* Its outcome: collective, the first time every rank asks, the rank that
   ran it sends its outcome to the others; later calls read what came. */
static int dag__mpi_outcome(dag_task h, void *out, size_t size) {
    dag__mpi_task *e = dag__mpi_task_of(h);
    if (!e && (h.bits & 1))
        return dag__err(DAG_ERR_STALE_HANDLE, "dag_wait / dag_fetch: a task run on one rank whose result was released "
                        "(dag_release, discard_results), or of an earlier dag_setup");
    if (!e)   /* void, and its region has ended: it keeps nothing, as on one node */
        return out ? dag__err(DAG_ERR_FETCH_SIZE, "dag_fetch: %zu bytes asked of a task with no result", size) : DAG_OK;
    if (out && size != e->result_size)
        return dag__err(DAG_ERR_FETCH_SIZE, "dag_fetch: %zu bytes asked of a %zu-byte result", size, e->result_size);
    if (!dag__on_main())
        return dag__err(DAG_ERR_INVALID_ARGUMENT, "dag_wait / dag_fetch of a task that ran on one rank: only from the "
                        "program's main thread, on every rank alike");
    bool ran_here = dag__mpi.rank == e->rank && !dag__mpi.simulated;
    if (!e->shared) {
        e->shared = 1;
        dag__mpi_arg_note which = { DAG__ARG_FUTURE, 0, 0, e->number, 0 };
        dag__mpi_note(DAG__MPI_CALL_WAIT, e->desc->name, e->rank, &which, 1);
        e->history = dag__mpi.hash;   /* the main thread alone changes it */
        size_t bytes = dag__mpi_outcome_bytes(e);
        unsigned char *outcome = NULL;
        if (ran_here) {   /* this rank waits for it anyway: then its outcome goes to the others */
            outcome = (unsigned char *)dag__xmalloc(bytes);
            dag__mpi_outcome_of(e, outcome);
        }
        for (int r = 0; r < dag__mpi.size; r++) {
            if (r == e->rank) continue;
            int tag = dag__mpi_next_tag(DAG__MPI_TAG_OUTCOME);
            dag__mpi_count(e->rank, r, bytes);
            if (dag__mpi.simulated) {   /* decided and counted: no message */
            } else if (ran_here) {
                unsigned char *copy = (unsigned char *)dag__xmalloc(bytes);
                memcpy(copy, outcome, bytes);
                DAG__MPI_LOCAL(dag_spawn_with(&dag__mpi_on_cpu, mpi_send_outcome, Val(copy), Val(bytes), Val(r), Val(tag),
                                              Val(dag__mpi_era())));
            } else if (dag__mpi.rank == r) {
                e->outcome = (unsigned char *)dag__xmalloc(bytes);
                DAG__MPI_LOCAL(e->received = dag_spawn_with(&dag__mpi_on_cpu, mpi_receive_outcome, Out(e->outcome, bytes), Val(bytes),
                                                       Val(e->rank), Val(tag), Val(dag__mpi_era())));
            }
        }
        DAG_FREE(outcome);
    }
    if (ran_here) return out ? dag_fetch_bytes(e->local, out, size) : dag_wait(e->local);
    if (dag__mpi.simulated) {   /* it did not run: its result reads as zeros */
        if (out) memset(out, 0, size);
        return DAG_OK;
    }
    int s = dag_wait(e->received);
    if (s) return s;
    int32_t status = dag__mpi_outcome_status(e);
    if (!status && out) memcpy(out, e->outcome + sizeof status, size);
    return status;
}

static bool dag__mpi_here(dag_task h, dag_task *here, int *status, char *message, size_t size) {
    dag__mpi_task *e = dag__mpi_task_of(h);
    *status = e || !(h.bits & 1) ? 0 : DAG_ERR_STALE_HANDLE;   /* a void one keeps nothing past its region */
    if (message && size) message[0] = 0;
    if (!e || dag__mpi.simulated) return false;   /* simulated: it did not run, and nothing failed */
    if (dag__mpi.rank == e->rank) {
        *here = e->local;
        return true;
    }
    const char *words = "";
    if (e->shared && dag_ready(e->received)) {   /* its outcome came, or its receive failed */
        int32_t s = (int32_t)dag_task_result(e->received);
        if (!s) s = dag__mpi_outcome_status(e);
        if (s && s != DAG_ERR_DIVERGED) words = (const char *)e->outcome + sizeof s + e->result_size + sizeof e->history;
        *status = s;
    }
    if (*status && message && *words)   /* its words: "name\0on rank 1 failed: ..." */
        snprintf(message, size, "%stask '%s' %s", *status == DAG_ERR_DEPENDENCY_FAILED ? "dependency failed: " : "", words,
                 words + strlen(words) + 1);
    else if (*status && message)
        snprintf(message, size, "task '%s' (run on rank %d): %s", e->desc->name, e->rank, dag_result_string(*status));
    return false;
}

static bool dag__mpi_ready(dag_task h) {
    dag__mpi_task *e = dag__mpi_task_of(h);
    if (!e || dag__mpi.simulated) return true;
    if (dag__mpi.rank == e->rank) return dag_ready(e->local);
    return e->shared && dag_ready(e->received);
}

/* >>region ends: data home, then the ranks agree */
/* The ranks compare their calls while the region drains (dag__mpi_test_check). */
static void dag__mpi_post_check(bool shutting_down) {
    dag__mutex_lock(&dag__mpi.lock);
    dag__mpi.check_mine[0] = dag__mpi.calls;
    dag__mpi.check_mine[1] = dag__mpi.hash;
    dag__mpi.check_mine[2] = shutting_down;
    dag__mpi.check_mine[3] = dag__mpi.numbered;
    MPI_Iallreduce(dag__mpi.check_mine, dag__mpi.check_low, 4, MPI_UINT64_T, MPI_MIN, dag__mpi.comm,
                   &dag__mpi.check_requests[0]);
    MPI_Iallreduce(dag__mpi.check_mine, dag__mpi.check_high, 4, MPI_UINT64_T, MPI_MAX, dag__mpi.comm,
                   &dag__mpi.check_requests[1]);
    dag__mpi.check = DAG__MPI_CHECK_POSTED;
    dag__cond_signal(&dag__mpi.wake);
    dag__mutex_unlock(&dag__mpi.lock);
}

/* The points after which the docs say data is current (dag.h's
   DAG__MPI_END_*): collective calls of their own. */
static const char *const dag__mpi_end_names[] = { dag__mpi_call_datadeps, dag__mpi_call_sequential,
                                                  dag__mpi_call_wait_all, dag__mpi_call_wait_all,
                                                  dag__mpi_call_shutdown };

/* Before such an end drains: every owned span whose owner's copy is stale
   goes home, inside it, so that on return each owner's data is current
   there, as on one node, and the only copy that counts; then the check is
   posted. */
static void dag__mpi_region_ending(const dag__context *ctx, int end) {
    if (!dag__mpi.active || !dag__is_main(ctx)) return;
    dag__mpi_note(DAG__MPI_CALL_END, dag__mpi_end_names[end], -1, NULL, 0);
    for (size_t i = 0; i < dag__mpi.spans_cap; i++) {
        dag__mpi_span *m = &dag__mpi.spans[i];
        if (!m->id) continue;
        if (!dag__mpi_shape_of((dag_data){ m->id }).registered) {   /* unregistered meanwhile: its tasks are done */
            if (!dag__mpi_has(&m->current, m->owner) && dag__mpi.rank == m->owner)   /* said once, by its owner */
                dag_log(DAG_LOG_ERROR, DAG_ERR_INVALID_ARGUMENT, "dag_data_unregister of a span of rank %d came before "
                        "the collective end that would bring its last write (on another rank) home: that write is "
                        "lost; unregister after a region's end or dag_wait_all", m->owner);
            dag__mpi_forget_span(m);
            continue;
        }
        if (!dag__mpi_has(&m->current, m->owner)) dag__mpi_move((dag_data){ m->id }, m, m->owner);
        /* and the owner's copy alone counts from here on: the program may write its own memory
           before the next region, as on one node, and another rank's copy would not see that */
        dag__mpi_only(&m->current, m->owner);
    }
    if (!dag__mpi.simulated) dag__mpi_post_check(end == DAG__MPI_END_SHUTDOWN);   /* one process: nothing to compare */
}

/* Waits for the check posted when the region began to end: whether the ranks agreed. */
static bool dag__mpi_check_agreed(void) {
    dag__mutex_lock(&dag__mpi.lock);
    while (dag__mpi.check == DAG__MPI_CHECK_POSTED) dag__cond_wait(&dag__mpi.checked, &dag__mpi.lock);
    bool agreed = dag__mpi.check != DAG__MPI_CHECK_DIVERGED;
    dag__mpi.check = DAG__MPI_CHECK_NONE;
    dag__mutex_unlock(&dag__mpi.lock);
    return agreed;
}

/* After a divergence every rank starts again alike: a fresh communicator
   (messages let go on the old one can match nothing), tags from 0, each
   owned span current on its owner alone (what each owner's copy holds),
   the history and the count of numbered things the most any rank had, and a
   new epoch (the watch's words about the old one are void). */
static void dag__mpi_start_again(void) {
    MPI_Comm fresh;
    MPI_Comm_dup(MPI_COMM_WORLD, &fresh);
    MPI_Comm_set_errhandler(fresh, MPI_ERRORS_RETURN);   /* a message too long for its receive fails that receive */
    MPI_Comm_free(&dag__mpi.comm);
    dag__mpi.comm = fresh;
    dag__mpi.messages = 0;
    for (size_t i = 0; i < dag__mpi.spans_cap; i++)
        if (dag__mpi.spans[i].id) dag__mpi_only(&dag__mpi.spans[i].current, dag__mpi.spans[i].owner);
    dag__mutex_lock(&dag__mpi.history_lock);
    dag__mpi.hash = dag__mpi.check_high[1];
    dag__mpi.calls = dag__mpi.check_high[0];
    dag__mpi.numbered = (uint32_t)dag__mpi.check_high[3];   /* what is numbered from here on is numbered alike */
    dag__mpi.epoch++;
    dag__mutex_unlock(&dag__mpi.history_lock);
    dag__mpi_forget_history();
    atomic_store(&dag__mpi.diverged, 0);
}

/* The check found the ranks diverged: every rank finds the first call
   since they last agreed that differs, by a bisection (every rank alike),
   and logs what each rank did there. */
static void dag__mpi_name_divergence(void) {
    size_t count = dag__mpi.log_count;   /* the main thread alone adds to the log */
    uint64_t base = dag__mpi.calls - count, fewest = dag__mpi.check_low[0] - base;
    size_t lo = 0, hi = (size_t)fewest;   /* the first difference lies in [lo, hi] */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t v = dag__mpi.log[mid].hash, vmin, vmax;
        MPI_Allreduce(&v, &vmin, 1, MPI_UINT64_T, MPI_MIN, dag__mpi.comm);
        MPI_Allreduce(&v, &vmax, 1, MPI_UINT64_T, MPI_MAX, dag__mpi.comm);
        if (vmin != vmax) hi = mid;
        else lo = mid + 1;
    }
    char what[256], *all = (char *)dag__xmalloc((size_t)dag__mpi.size * sizeof what);
    if (lo < count) dag__mpi_describe(&dag__mpi.log[lo], what, sizeof what);
    else snprintf(what, sizeof what, "made no more collective calls");
    MPI_Allgather(what, (int)sizeof what, MPI_CHAR, all, (int)sizeof what, MPI_CHAR, dag__mpi.comm);
    /* the ranks that did alike together, as runs: "ranks 0-6,8 spawned 'a', rank 7 called dag_shutdown" */
    char line[2048], *told = (char *)dag__xmalloc((size_t)dag__mpi.size);
    memset(told, 0, (size_t)dag__mpi.size);
    int used = snprintf(line, sizeof line, "the ranks diverged at collective call %llu (registrations of owned spans, "
                        "spawns, waits for tasks run on one rank, ends of regions, dag_wait_all and dag_shutdown, "
                        "counted from dag_setup):", (unsigned long long)(base + lo + 1));
#define DAG__MPI_SAME(r, s) (!strcmp(all + (size_t)(r) * sizeof what, all + (size_t)(s) * sizeof what))
    for (int r = 0; r < dag__mpi.size; r++) {
        if (told[r]) continue;
        int alike = 0;
        for (int s = r; s < dag__mpi.size; s++) alike += DAG__MPI_SAME(r, s);
        used += snprintf(line + used, sizeof line - (size_t)used, "%s rank%s ", r ? "," : "", alike > 1 ? "s" : "");
        for (int s = r, first = 1; s < dag__mpi.size && used < (int)sizeof line; s++) {
            if (!DAG__MPI_SAME(r, s)) continue;
            int e = s;
            while (e + 1 < dag__mpi.size && DAG__MPI_SAME(r, e + 1)) e++;
            memset(told + s, 1, (size_t)(e - s + 1));
            used += e > s ? snprintf(line + used, sizeof line - (size_t)used, "%s%d-%d", first ? "" : ",", s, e)
                          : snprintf(line + used, sizeof line - (size_t)used, "%s%d", first ? "" : ",", s);
            first = 0;
            s = e;
        }
        if (used < (int)sizeof line) used += snprintf(line + used, sizeof line - (size_t)used, " %s", all + r * sizeof what);
        if (used >= (int)sizeof line) break;   /* cut short: the rest is in the other ranks' logs alike */
    }
#undef DAG__MPI_SAME
    DAG_FREE(told);
    DAG_FREE(all);
    dag_log(DAG_LOG_ERROR, DAG_ERR_DIVERGED, "%s", line);
}

/* The ranks' outcome of a collective end, one on every rank, so that an
   SPMD program (dag_array.h too) takes the same branch everywhere after
   it: the failure of a task's own on the lowest rank that has one, else a
   dependency failed (its words came from the rank that failed), else OK. */
static int dag__mpi_agree(int err) {
    uint64_t kind = err == DAG_OK ? 2 : err == DAG_ERR_DEPENDENCY_FAILED ? 1 : 0;
    uint64_t mine = kind << 42 | (uint64_t)dag__mpi.rank << 32 | (uint32_t)err, least = mine;
    MPI_Allreduce(&mine, &least, 1, MPI_UINT64_T, MPI_MIN, dag__mpi.comm);
    return (int)(uint32_t)least;
}

static int dag__mpi_region_ended(const dag__context *ctx, int end, int err) {
    if (!dag__mpi.active || !dag__is_main(ctx)) return err;
    dag__mpi_forget_region_tasks(end);
    if (dag__mpi_check_agreed()) {   /* every rank made the same calls: every rank comes here */
        dag__mpi_forget_history();
        return dag__mpi.simulated ? err : dag__mpi_agree(err);
    }
    dag__mpi_name_divergence();
    dag__mpi_start_again();   /* so the next region compares its own calls */
    return DAG_ERR_DIVERGED;
}

/* >>set-up */
/* At the process's exit. A rank that leaves its program (exit, or a
   return from main) while dag.h runs, without dag_shutdown, would leave
   the others waiting for its messages and collective calls for ever (and
   MPI_Finalize here would wait for them): it ends the job instead, saying
   why. Else MPI ends here if dag.h started it. */
static int dag__mpi_started_mpi;   /* outside dag__mpi: it outlives dag_shutdown */
static void dag__mpi_at_exit(void) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (dag__mpi.active && !dag__mpi.simulated && dag_is_setup() && !finalized) {
        dag_log(DAG_LOG_ERROR, DAG_ERR_DIVERGED, "rank %d of %d ended its program (exit, or a return from main) without "
                "dag_shutdown, so the other ranks would wait for it for ever: the job ends here (MPI_Abort)",
                dag__mpi.rank, dag__mpi.size);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (dag__mpi_started_mpi && !finalized) MPI_Finalize();
}

/* What dag__mpi_begin made, and every copy and record since. */
static void dag__mpi_end(void) {
    for (size_t i = 0; i < dag__mpi.spans_cap; i++) DAG_FREE(dag__mpi.spans[i].memory);
    for (size_t i = 0; i < dag__mpi.num_tasks; i++) DAG_FREE(dag__mpi.tasks[i].outcome);
    while (dag__mpi.value_kinds) {
        dag__mpi_value_kind *next = dag__mpi.value_kinds->next;
        DAG_FREE(dag__mpi.value_kinds);
        dag__mpi.value_kinds = next;
    }
    DAG_FREE(dag__mpi.spans);
    DAG_FREE(dag__mpi.tasks);
    DAG_FREE(dag__mpi.free_tasks);
    DAG_FREE(dag__mpi.fleeting);
    DAG_FREE(dag__mpi.log);
    DAG_FREE(dag__mpi.log_args);
    DAG_FREE(dag__mpi.requests);
    DAG_FREE(dag__mpi.request_array);
    DAG_FREE(dag__mpi.per_rank);
    DAG_FREE(dag__mpi.held_bytes);
    dag__cond_destroy(&dag__mpi.checked);
    dag__cond_destroy(&dag__mpi.wake);
    dag__mutex_destroy(&dag__mpi.lock);
    dag__mutex_destroy(&dag__mpi.history_lock);
    memset(&dag__mpi, 0, sizeof dag__mpi);
}

/* What a run on `size` ranks and a simulation of them share: the
   decisions' state and the counters. */
static void dag__mpi_begin(int size, int rank, size_t cache_limit) {
    dag__mpi.size = size;
    dag__mpi.rank = rank;
    dag__mpi.tag_limit = INT_MAX;
    dag__mpi.messages = dag__mpi.copies_dropped = dag__mpi.critical_path = 0;
    dag__mpi.per_rank = (dag_rank_stats *)dag__xmalloc((size_t)size * sizeof *dag__mpi.per_rank);
    memset(dag__mpi.per_rank, 0, (size_t)size * sizeof *dag__mpi.per_rank);
    dag__mpi.held_bytes = (size_t *)dag__xmalloc((size_t)size * sizeof *dag__mpi.held_bytes);
    memset(dag__mpi.held_bytes, 0, (size_t)size * sizeof *dag__mpi.held_bytes);
    dag__mpi.cache_limit = cache_limit;
    dag__mpi.calls = dag__mpi.hash = dag__mpi.log_base_hash = dag__mpi.judged = 0;
    atomic_store(&dag__mpi.epoch, 0);
    dag__mpi.log_count = dag__mpi.log_args_count = 0;
    dag__mpi.numbered = 0;
    dag__mutex_init(&dag__mpi.history_lock);
    dag__mutex_init(&dag__mpi.lock);
    dag__cond_init(&dag__mpi.wake);
    dag__cond_init(&dag__mpi.checked);
    dag__mpi.check = DAG__MPI_CHECK_NONE;
    atomic_store(&dag__mpi.diverged, 0);
    atomic_store(&dag__mpi.stop, 0);
    dag__mpi.active = 1;
}

/* dag_setup's settings, resolved in its >>defaults: dag_desc.simulate_ranks
   (or DAG_SIMULATE_RANKS), rank_cache_limit, and DAG_MPI_PROGRESS=thread. */
static int dag__mpi_setup(int simulate, size_t cache_limit, bool progress_thread_alone) {
    dag__mpi.active = dag__mpi.simulated = 0;
    if (simulate < 0 || simulate > DAG_MPI_MAX_RANKS)
        return dag__err(DAG_ERR_INVALID_ARGUMENT, "dag_setup: simulate_ranks %d is not from 1 to DAG_MPI_MAX_RANKS (%d); "
                        "it runs as one rank", simulate, DAG_MPI_MAX_RANKS);
    if (simulate == 1) return DAG_OK;
    if (simulate > 1) {   /* no MPI: rank 0 of `simulate` decides, and nothing is sent */
        dag__mpi.simulated = 1;
        dag__mpi_begin(simulate, 0, cache_limit);
        return DAG_OK;
    }
    int ready = 0, level = 0;
    MPI_Initialized(&ready);
    if (!ready) {   /* MPI starts once a process: if here, it ends at exit */
        MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &level);
        dag__mpi_started_mpi = 1;
    } else {
        MPI_Query_thread(&level);
    }
    static int registered;
    if (!registered) atexit(dag__mpi_at_exit);
    registered = 1;
    int size = 1, rank = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (size <= 1) return DAG_OK;
    if (level < MPI_THREAD_MULTIPLE)
        return dag__err(DAG_ERR_THREAD, "dag_setup: this MPI gives thread level %d; dag.h needs MPI_THREAD_MULTIPLE (%d) "
                        "for its progress thread, so it runs as one rank", level, MPI_THREAD_MULTIPLE);
    if (size > DAG_MPI_MAX_RANKS)
        return dag__err(DAG_ERR_INVALID_ARGUMENT, "dag_setup: %d ranks, but this build takes DAG_MPI_MAX_RANKS = %d "
                        "(define it larger before including dag.h), so it runs as one rank", size, DAG_MPI_MAX_RANKS);
    dag__mpi_begin(size, rank, cache_limit);
    dag__mpi.active = 0;   /* until the progress thread runs */
    MPI_Comm_dup(MPI_COMM_WORLD, &dag__mpi.comm);
    MPI_Comm_set_errhandler(dag__mpi.comm, MPI_ERRORS_RETURN);   /* a message too long for its receive fails that receive */
    int *ub = NULL, found = 0;
    MPI_Comm_get_attr(dag__mpi.comm, MPI_TAG_UB, &ub, &found);
    dag__mpi.tag_limit = found && ub && *ub > 0 ? *ub : 32767;
    MPI_Comm_dup(MPI_COMM_WORLD, &dag__mpi.watch);
    dag__mpi.asking = dag__mpi.watch_done = 0;
    dag__mpi.next_round_ns = dag__now_ns() + DAG__MPI_WATCH_NS;
    if (dag__mpi.rank == 0) {
        dag__mpi.answers = (uint64_t *)dag__xmalloc(4 * (size_t)dag__mpi.size * sizeof *dag__mpi.answers);
        dag__mpi.answer_requests = (MPI_Request *)dag__xmalloc((size_t)dag__mpi.size * sizeof *dag__mpi.answer_requests);
    } else {
        MPI_Irecv(dag__mpi.word, 4, MPI_UINT64_T, 0, MPI_ANY_TAG, dag__mpi.watch, &dag__mpi.word_request);
    }
    if (dag__thread_create(&dag__mpi.thread, dag__mpi_progress, NULL) != 0) {
        if (dag__mpi.rank != 0) {
            MPI_Cancel(&dag__mpi.word_request);
            MPI_Wait(&dag__mpi.word_request, MPI_STATUS_IGNORE);
        }
        DAG_FREE(dag__mpi.answers);
        DAG_FREE(dag__mpi.answer_requests);
        MPI_Comm_free(&dag__mpi.watch);
        MPI_Comm_free(&dag__mpi.comm);
        dag__mpi_end();
        return dag__err(DAG_ERR_THREAD, "dag_setup: could not start the MPI progress thread; it runs as one rank");
    }
    dag__mpi.active = 1;
    atomic_store(&dag__mpi_polling, !progress_thread_alone);
    return DAG_OK;
}

/* After every context has drained: nothing is in flight. A rank leaves
   only with the others: while some rank still runs its program (ending
   regions this rank never will), this one stays and answers each of its
   region ends' checks as if it called dag_shutdown again, so the ranks
   make the same collective calls (the check, the naming of the
   divergence, a fresh communicator) and each such region, and this
   dag_shutdown, returns DAG_ERR_DIVERGED. The watch keeps running
   meanwhile, so a rank blocked in a wait for this one is freed. Then
   dag_shutdown is the collective end a region's is: every rank returns
   the ranks' outcome (dag__mpi_agree) of its `err`, or of the divergence
   it met. */
static int dag__mpi_shutdown(int err) {
    if (!dag__mpi.active) return err;
    if (dag__mpi.simulated) {
        dag__mpi_end();
        return err;
    }
    atomic_store(&dag__mpi_polling, 0);   /* the workers still spin: none may look from here on */
    while (atomic_load(&dag__mpi_pollers)) dag__thread_yield();
    int result = err;
    while (!dag__mpi_check_agreed()) {   /* the first check was posted as the program's data went home */
        result = DAG_ERR_DIVERGED;
        dag__mpi_name_divergence();
        if (dag__mpi.check_low[2]) break;   /* every rank is in dag_shutdown */
        dag__mpi_start_again();
        dag__mpi_note(DAG__MPI_CALL_END, dag__mpi_call_shutdown, -1, NULL, 0);
        dag__mpi_post_check(true);
    }
    /* a collective end: a task failed on one rank fails it everywhere. Every rank comes here once: a
       rank that met a divergence and one whose last check agreed leave the loop above alike */
    result = dag__mpi_agree(result);
    atomic_store(&dag__mpi.stop, 1);
    dag__mutex_lock(&dag__mpi.lock);
    dag__cond_signal(&dag__mpi.wake);
    dag__mutex_unlock(&dag__mpi.lock);
    dag__thread_join(dag__mpi.thread);
    MPI_Barrier(dag__mpi.comm);   /* no rank leaves while another may still send to it */
    MPI_Comm_free(&dag__mpi.comm);
    MPI_Comm_free(&dag__mpi.watch);   /* rank 0 said stop, and the others heard it: nothing pending */
    DAG_FREE(dag__mpi.answers);
    DAG_FREE(dag__mpi.answer_requests);
    dag__mpi_end();
    return result;
}
