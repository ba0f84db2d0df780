#!/usr/bin/env bash
# A rank that leaves its program without dag_shutdown ends the job, saying
# why, never a hang (docs/mpi.md). Runs test_mpi_faults --leave on 2, 3 and
# 4 ranks: one rank calls exit(3), or returns from main, right before the
# others' dag_shutdown (seed 0) or at a random call of a random program
# while the others go on (seeds 1 and up). Each job must end within
# LIMIT seconds, fail, and print dag.h's reason.
#   tests/mpi_leave.sh ./build/mpi/test_mpi_faults "mpirun --allow-run-as-root --oversubscribe" [SEEDS]
set -u
binary=$1
mpirun=$2
seeds=${3:-3}
limit=${LEAVE_LIMIT:-60}
passed=0; failed=0
for np in 2 3 4; do
    for how in exit return; do
        for seed in $(seq 0 "$seeds"); do
            [ "$seed" = 0 ] || seed=$((seed * 7919 + np))
            start=$(date +%s)
            out=$(timeout "$limit" $mpirun -np "$np" "$binary" --leave "$how" "$seed" 2>&1); rc=$?
            took=$(( $(date +%s) - start ))
            if [ $rc -ne 0 ] && [ $rc -ne 124 ] && printf '%s' "$out" | grep -q "without dag_shutdown"; then
                passed=$((passed + 1))
                echo "ok   $np ranks, $how, seed $seed: the job ended (exit $rc) in ${took} s"
            else
                failed=$((failed + 1))
                printf '%s\n' "$out" | tail -n 20
                echo "FAIL $np ranks, $how, seed $seed: exit $rc after ${took} s (124: it hung)"
            fi
        done
    done
done
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
