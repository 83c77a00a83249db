# Shared helpers for scripts/test, scripts/demo, scripts/fuzz, scripts/bench
# and scripts/validate. Sourced, not run.

Q2MAP_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

# Packages every script needs to build the library, the tools and the tests.
Q2MAP_BUILD_PACKAGES=(build-essential cmake ninja-build pkg-config zlib1g-dev libpng-dev libcjson-dev
    libcmocka-dev libsdl2-dev libepoxy-dev libegl-dev libegl-mesa0 libgl1-mesa-dri python3)
# Extra packages for the full test run: the viewer's window test (Xvfb,
# xdotool), the libFuzzer build (clang with its runtime and OpenMP) and
# Open MPI for qvis and qrad over several ranks (docs/distributed.md).
Q2MAP_TEST_PACKAGES=(xvfb xdotool clang libclang-rt-14-dev libomp-dev openmpi-bin libopenmpi-dev)

say() { printf '==> %s\n' "$*"; }

# Installs only the Debian packages that are missing, so a machine that has
# everything installs nothing and never touches the network.
ensure_packages() {
    local missing=() p
    for p in "$@"; do
        dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
    done
    if [ "${#missing[@]}" -eq 0 ]; then
        return 0
    fi
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "error: missing packages (${missing[*]}) and no apt-get; install them by hand" >&2
        return 1
    fi
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then
            sudo=(sudo)
        else
            echo "error: missing packages (${missing[*]}); run as root or install them" >&2
            return 1
        fi
    fi
    say "installing missing packages: ${missing[*]}"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# configure_build DIR [cmake args...]: configures (once) and builds with Ninja.
configure_build() {
    local dir="$1"; shift
    cmake -S "$Q2MAP_ROOT" -B "$dir" -G Ninja "$@" >/dev/null || return 1
    cmake --build "$dir"
}

# build_programs DIR: configures and builds only the programs (not the
# tests), so a demo is not held up by a test that does not compile.
build_programs() {
    local dir="$1"; shift
    cmake -S "$Q2MAP_ROOT" -B "$dir" -G Ninja "$@" >/dev/null || return 1
    local targets
    targets=$(ninja -C "$dir" -t targets all 2>/dev/null |
        sed -n 's/^\(qbsp\|qvis\|qrad\|qview\|bspinfo\|q2map\): .*/\1/p' | sort -u | tr '\n' ' ')
    [ -n "$targets" ] || return 0
    # shellcheck disable=SC2086
    cmake --build "$dir" --target $targets
}

# Programs that exist in a build's bin/ directory.
have_prog() { [ -x "$1/bin/$2" ]; }

# arm64_binfmt: makes the kernel run arm64 programs through qemu-aarch64, so
# that an arm64 `q2map compile` can start its arm64 qbsp, qvis and qrad.
# Debian's qemu-user-binfmt ships the entry; it is registered here (as
# root) where binfmt_misc is not mounted or the entry is not loaded, as in a
# container without systemd. Returns non-zero when arm64 programs still
# cannot be started directly.
arm64_binfmt() {
    local bm=/proc/sys/fs/binfmt_misc conf=/usr/lib/binfmt.d/qemu-aarch64.conf
    if [ ! -e "$bm/qemu-aarch64" ] && [ "$(id -u)" -eq 0 ]; then
        [ -e "$bm/register" ] || mount -t binfmt_misc binfmt_misc "$bm" 2>/dev/null || true
        if [ -e "$bm/register" ] && [ -f "$conf" ] && [ ! -e "$bm/qemu-aarch64" ]; then
            grep -v '^#' "$conf" | grep . >"$bm/register" 2>/dev/null || true
        fi
    fi
    [ -e "$bm/qemu-aarch64" ] && [ "$(cat "$bm/qemu-aarch64" | head -1)" = enabled ]
}
