/* health.h: BOTS health (the Colombian health-care simulation of the Olden
   suite), what its versions share (health_dag.c, health_omp.c each define
   health_par): the villages, the patients and one step of a village.

       step(village):  step(child 1) ... step(child C)     tasks, one per child village
                       its hospital: patients inside,     in the body, meanwhile
                       in assessment, waiting
                       ──────────── wait ────────────
                       patients sent up by the children,  in the body
                       its own people falling sick

   A tree of villages LEVELS deep, CITIES children each, every village with a
   hospital; a patient whose assessment sends them up goes to the parent's
   hospital (a list under the parent's lock; the parent takes them in order
   of id after the wait, so the result does not depend on the schedule).
   The tasks of the top CUTOFF (2) levels are deferred, the lower ones run
   inline (BOTS's if() cut-off: OpenMP's if(0), dag.h's .run_inline). TIME
   steps, each from the top village. The inputs are BOTS's (its input files'
   numbers), and so is the check: the counts of patients at the end against
   those its input file states.

       health_dag [INPUT]      test, small (default), medium or large
                               (health_gomp, health_libomp alike) */
#ifndef HEALTH_H
#define HEALTH_H
#include "bots.h"
#include <stdint.h>
#include <threads.h>

typedef struct patient {
    int id;
    int32_t seed;
    int time, time_left, hosps_visited;
    struct patient *back, *forward;
} patient;

typedef struct hospital {
    int personnel, free_personnel;
    patient *waiting, *assess, *inside, *realloc;   /* realloc: sent up by the children */
    mtx_t realloc_lock;
} hospital;

typedef struct village {
    int id, level;
    struct village *parent, *next, *first_child;   /* next: the parent's next child */
    patient *population;
    hospital hosp;
    int32_t seed;
} village;

/* An input of BOTS and the counts it states at the end. */
typedef struct health_input {
    const char *name;
    int levels, cities, population_ratio, time, assess_time, convalescence_time, seed;
    float get_sick_p, convalescence_p, realloc_p;
    long population, hospitals, personnel, checkins, in_village, waiting, assess, inside;
} health_input;

static const health_input health_inputs[] = {
    {"test", 3, 18, 10, 365, 2, 12, 23, 0.002f, 0.100f, 0.150f, 7280, 343, 728, 5531, 7160, 80, 26, 14},
    {"small", 4, 18, 10, 365, 2, 12, 23, 0.002f, 0.100f, 0.150f, 131200, 6175, 13120, 96718, 128997, 1406, 525, 272},
    {"medium", 4, 36, 10, 365, 2, 12, 23, 0.002f, 0.100f, 0.150f, 988000, 47989, 98800, 721934, 971855, 10249, 3901,
     1995},
    {"large", 5, 24, 10, 365, 2, 12, 23, 0.002f, 0.100f, 0.150f, 7238720, 346201, 723872, 5267413, 7121156, 73923,
     28969, 14672},
};
static const health_input *health_in;   /* the input being run */

void health_par(village *top, int steps, int cutoff);

/* Park and Miller's minimal standard generator as BOTS has it (Numerical
   Recipes' ran0): the products wrap as BOTS's do on two's complement, done
   on unsigned numbers here. */
static float health_rand(int32_t *seed) {
    const int32_t ia = 16807, iq = 127773, ir = 2836, mask = 123459876;
    int32_t idum = *seed ^ mask, k = idum / iq;
    idum = ia * (idum - k * iq) - ir * k;
    idum ^= mask;
    if (idum < 0) idum += 2147483647;
    *seed = (int32_t)((uint32_t)idum * 2147483647u);
    return (float)(1.0 / 2147483647) * (float)idum;
}

/* patient lists, doubly linked; a new one goes to the end */
static void health_add(patient **list, patient *p) {
    p->forward = NULL;
    if (!*list) {
        *list = p;
        p->back = NULL;
        return;
    }
    patient *last = *list;
    while (last->forward) last = last->forward;
    last->forward = p;
    p->back = last;
}

static void health_remove(patient **list, patient *p) {
    if (p->back) p->back->forward = p->forward;
    else *list = p->forward;
    if (p->forward) p->forward->back = p->back;
}

static void health_put_in_hospital(hospital *h, patient *p) {
    p->hosps_visited++;
    if (h->free_personnel > 0) {
        h->free_personnel--;
        health_add(&h->assess, p);
        p->time_left = health_in->assess_time;
        p->time += p->time_left;
    } else {
        health_add(&h->waiting, p);
    }
}

/* the village and the ones below it, its patients numbered from *next_id */
static village *health_village(village *parent, village *next, int level, int32_t id, int *next_id) {
    if (level == 0) return NULL;
    village *v = (village *)bots_alloc(sizeof *v);
    memset(v, 0, sizeof *v);
    v->parent = parent, v->next = next, v->level = level, v->id = id;
    v->seed = (int32_t)((uint32_t)id * (uint32_t)(127773 + health_in->seed));
    int personnel = 1 << level;
    for (int i = 0; i < personnel * health_in->population_ratio; i++) {
        patient *p = (patient *)bots_alloc(sizeof *p);
        memset(p, 0, sizeof *p);
        p->id = (*next_id)++;
        p->seed = v->seed;
        health_rand(&v->seed);
        health_add(&v->population, p);
    }
    v->hosp.personnel = v->hosp.free_personnel = personnel;
    mtx_init(&v->hosp.realloc_lock, mtx_plain);
    village *child = NULL;
    for (int i = health_in->cities; i > 0; i--)
        child = health_village(v, child, level - 1, (int32_t)((uint32_t)id * (uint32_t)health_in->cities + (uint32_t)i),
                               next_id);
    v->first_child = child;
    return v;
}

/* the hospital's work before the wait: patients inside, in assessment, waiting */
static void health_hospital(village *v) {
    hospital *h = &v->hosp;
    for (patient *p = h->inside, *next; p; p = next) {
        next = p->forward;
        if (--p->time_left == 0) {
            h->free_personnel++;
            health_remove(&h->inside, p);
            health_add(&v->population, p);
        }
    }
    for (patient *p = h->assess, *next; p; p = next) {
        next = p->forward;
        if (--p->time_left != 0) continue;
        h->free_personnel += 1;
        health_remove(&h->assess, p);
        if (health_rand(&p->seed) >= health_in->convalescence_p) {   /* home */
            health_add(&v->population, p);
        } else if (health_rand(&p->seed) > health_in->realloc_p || v->level == health_in->levels) {   /* stays */
            h->free_personnel -= 1;
            health_add(&h->inside, p);
            p->time_left = health_in->convalescence_time;
            p->time += p->time_left;
        } else {   /* up to the parent's hospital */
            mtx_lock(&v->parent->hosp.realloc_lock);
            health_add(&v->parent->hosp.realloc, p);
            mtx_unlock(&v->parent->hosp.realloc_lock);
        }
    }
    for (patient *p = h->waiting, *next; p; p = next) {
        next = p->forward;
        if (h->free_personnel > 0) {
            h->free_personnel--;
            p->time_left = health_in->assess_time;
            p->time += p->time_left;
            health_remove(&h->waiting, p);
            health_add(&h->assess, p);
        } else {
            p->time++;
        }
    }
}

/* after the wait: the patients sent up, in order of id, then the village's people */
static void health_after_children(village *v) {
    hospital *h = &v->hosp;
    while (h->realloc) {
        patient *first = h->realloc;
        for (patient *p = h->realloc; p; p = p->forward)
            if (p->id < first->id) first = p;
        health_remove(&h->realloc, first);
        health_put_in_hospital(h, first);
    }
    for (patient *p = v->population, *next; p; p = next) {
        next = p->forward;
        if (health_rand(&p->seed) < health_in->get_sick_p) {
            health_remove(&v->population, p);
            health_put_in_hospital(h, p);
        }
    }
}

/* counts at the end, added up over the villages */
typedef struct health_counts {
    long population, hospitals, personnel, checkins, in_village, waiting, assess, inside, time;
} health_counts;

static long health_count_list(const patient *p, health_counts *c) {
    long n = 0;
    for (; p; p = p->forward, n++) c->checkins += p->hosps_visited, c->time += p->time;
    return n;
}

static void health_count(const village *v, health_counts *c) {
    for (const village *k = v->first_child; k; k = k->next) health_count(k, c);
    c->hospitals++;
    c->personnel += v->hosp.personnel;
    c->in_village += health_count_list(v->population, c);
    c->waiting += health_count_list(v->hosp.waiting, c);
    c->assess += health_count_list(v->hosp.assess, c);
    c->inside += health_count_list(v->hosp.inside, c);
}

static void health_free(village *v) {
    for (village *k = v->first_child, *next; k; k = next) {
        next = k->next;
        health_free(k);
    }
    patient *lists[4] = {v->population, v->hosp.waiting, v->hosp.assess, v->hosp.inside};
    for (int i = 0; i < 4; i++)
        for (patient *p = lists[i], *next; p; p = next) {
            next = p->forward;
            free(p);
        }
    mtx_destroy(&v->hosp.realloc_lock);
    free(v);
}

static inline int health_main(int argc, char **argv) {
    const char *name = argc > 1 ? argv[1] : "small";
    for (size_t i = 0; i < sizeof health_inputs / sizeof health_inputs[0]; i++)
        if (strcmp(name, health_inputs[i].name) == 0) health_in = &health_inputs[i];
    if (!health_in) bots_usage(argv[0], "[test|small|medium|large]");
    int next_id = 0;
    village *top = health_village(NULL, NULL, health_in->levels, 0, &next_id);
    double t0 = bots_now();
    health_par(top, health_in->time, 2);
    double t = bots_now() - t0;
    health_counts c = {0};
    health_count(top, &c);
    c.population = c.in_village + c.waiting + c.assess + c.inside;
    const health_input *w = health_in;
    int ok = c.population == w->population && c.hospitals == w->hospitals && c.personnel == w->personnel &&
             c.checkins == w->checkins && c.in_village == w->in_village && c.waiting == w->waiting &&
             c.assess == w->assess && c.inside == w->inside;
    health_free(top);
    return bots_report(t, ok,
                       "input=%s patients=%ld checkins=%ld/%ld village=%ld/%ld waiting=%ld/%ld assess=%ld/%ld "
                       "inside=%ld/%ld avg_stay=%.6f",
                       name, c.population, c.checkins, w->checkins, c.in_village, w->in_village, c.waiting, w->waiting,
                       c.assess, w->assess, c.inside, w->inside, (double)c.time / (double)c.population);
}
#endif
