#!/usr/bin/env bash
# Runs test binaries and adds up their closing lines ("N passed, N failed",
# then ", N skipped" and ", N not applicable" where there are some).
#   tests/run.sh LABEL [ENV=VALUE ...] -- binary [args] ; binary [args] ...
# A binary that crashes, hangs (timeout) or prints no closing line counts as
# one failure. With STRICT=1 in the environment (make test STRICT=1) a
# binary's skips count as failures too; tests that are not applicable to
# this build or run (tests/test.h says which) stay apart in either mode.
# Prints the label's own closing line last.
set -u
label=$1; shift
envs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
shift
passed=0; failed=0; skipped=0; not_applicable=0
cmd=()
run_one() {
    [ ${#cmd[@]} -eq 0 ] && return
    started=$(date +%s)
    out=$(env "${envs[@]}" timeout "${TEST_TIMEOUT:-600}" "${cmd[@]}" 2>&1); rc=$?
    took="$(( $(date +%s) - started )) s"
    line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
    if [ -n "$line" ]; then
        p=${line%% passed*}; f=${line#*passed, }; f=${f%% failed*}
        passed=$((passed + p)); failed=$((failed + f))
        s=0
        case $line in *skipped*) s=${line#*failed, }; s=${s%% skipped*};; esac
        case $line in *"not applicable"*) n=${line% not applicable*}; n=${n##* }; not_applicable=$((not_applicable + n));; esac
        if [ "${STRICT:-0}" = 1 ] && [ "$s" -gt 0 ]; then
            echo "FAIL (STRICT=1: a skip is a failure): ${cmd[*]}: $s skipped"
            failed=$((failed + s)); f=$((f + s)); s=0
        fi
        skipped=$((skipped + s))
    fi
    if [ $rc -ne 0 ] || [ -z "$line" ]; then
        [ -z "$line" ] || [ "$f" = 0 ] && failed=$((failed + 1))
        # the whole report of a failing run (a sanitizer's above all) goes to a log
        mkdir -p build/logs
        log=build/logs/$label-$(date +%s%N).log
        printf '%s\n' "$out" > "$log"
        printf '%s\n' "$out" | tail -n 40
        echo "[$label] ${cmd[*]}: exit $rc after $took (whole output: $log)"
    else
        printf '%s\n' "$out" | grep -E '^skipped: '   # what a skipped test needed, named in the summary
        echo "[$label] ${cmd[*]}: $line ($took)"
    fi
    cmd=()
}
for a in "$@"; do
    if [ "$a" = ";" ]; then run_one; else cmd+=("$a"); fi
done
run_one
summary="$label: $passed passed, $failed failed"
[ $skipped -gt 0 ] && summary="$summary, $skipped skipped"
[ $not_applicable -gt 0 ] && summary="$summary, $not_applicable not applicable"
echo "$summary"
[ $failed -eq 0 ]
