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
