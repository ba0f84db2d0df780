#!/usr/bin/env bash
# A test that cannot run here, as a closing line tests/run.sh and make test count.
#   tests/skip.sh STRICT "what is missing (and how to get it)"
# STRICT=1 (CI, after make deps) makes the skip a failure: there, a missing
# dependency is a broken set-up, not a machine without it.
if [ "$1" = 1 ]; then
    echo "FAIL (STRICT=1: a skip is a failure): $2"
    echo "0 passed, 1 failed"
    exit 1
fi
echo "skipped: $2"
echo "0 passed, 0 failed, 1 skipped"
