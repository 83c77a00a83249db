# Sourced by the integration tests (not a test itself: ctest runs only
# tests/integration/*.sh). Shell options stay with each script: some stop
# at the first failure (set -e, fail), others check every case and report
# all failures (set -u, bad, then exit $fail).

# Exits unless each named variable is set and non-empty: ctest sets
# Q2MAP_BIN, Q2MAP_SRC, Q2MAP_DATA and Q2MAP_TMP; a script run by hand
# without them would otherwise write to or read from the wrong place.
q2m_need() {
    local v
    for v in "$@"; do
        [ -n "${!v:-}" ] || { echo "FAIL: $v is not set (run the test through ctest)" >&2; exit 1; }
    done
}

# An empty scratch directory at $Q2MAP_TMP (left from an earlier run
# otherwise: stale outputs could make a check pass).
q2m_scratch() {
    rm -rf "$Q2MAP_TMP"
    mkdir -p "$Q2MAP_TMP"
}

# The usual start of a test of the built programs on test data: checks
# the variables, sets BIN (absolute), DATA and TMP, empties TMP and clears
# the failure flag for bad().
q2m_begin() {
    q2m_need Q2MAP_BIN Q2MAP_DATA Q2MAP_TMP
    BIN=$(cd "$Q2MAP_BIN" && pwd) DATA=$Q2MAP_DATA TMP=$Q2MAP_TMP
    q2m_scratch
    fail=0
}

# Stop at the first failure.
fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# Record a failure and go on; the script ends with exit $fail.
bad() {
    echo "FAIL: $*"
    fail=1
}
