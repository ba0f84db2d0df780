#!/usr/bin/env bash
# Runs test binaries and adds up their closing lines ("N passed, N failed").
#   tests/run.sh LABEL [ENV=VALUE ...] -- binary [args] ; binary [args] ...
# A binary that crashes, hangs (timeout) or prints no closing line counts as
# one failure. Prints the label's own closing line last.
set -u
label=$1; shift
envs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
shift
passed=0; failed=0; skipped=0
cmd=()
run_one() {
    [ ${#cmd[@]} -eq 0 ] && return
    out=$(env "${envs[@]}" timeout "${TEST_TIMEOUT:-600}" "${cmd[@]}" 2>&1); rc=$?
    line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
    if [ -n "$line" ]; then
        p=${line%% passed*}; f=${line#*passed, }; f=${f%% failed*}
        passed=$((passed + p)); failed=$((failed + f))
        case $line in *skipped*) s=${line#*failed, }; skipped=$((skipped + ${s%% skipped*}));; esac
    fi
    if [ $rc -ne 0 ] || [ -z "$line" ]; then
        [ -z "$line" ] || [ "$f" = 0 ] && failed=$((failed + 1))
        # the whole report of a failing run (a sanitizer's above all) goes to a log
        mkdir -p build/logs
        log=build/logs/$label-$(date +%s%N).log
        printf '%s\n' "$out" > "$log"
        printf '%s\n' "$out" | tail -n 40
        echo "[$label] ${cmd[*]}: exit $rc (whole output: $log)"
    else
        printf '%s\n' "$out" | grep -E '^skipped: '   # what a skipped test needed, named in the summary
        echo "[$label] ${cmd[*]}: $line"
    fi
    cmd=()
}
for a in "$@"; do
    if [ "$a" = ";" ]; then run_one; else cmd+=("$a"); fi
done
run_one
if [ $skipped -gt 0 ]; then echo "$label: $passed passed, $failed failed, $skipped skipped"
else echo "$label: $passed passed, $failed failed"; fi
[ $failed -eq 0 ]
