# Libraries built from Debian's source archive for the cross builds
# (scripts/build-windows, scripts/build-arm64): fetch_source and build_cjson,
# into $DEPS (sources, build trees, logs) and $PREFIX (the static install),
# which the calling script sets. Sourced after lib/common.sh.

CJSON_VERSION=1.7.15
CJSON_TARBALL="cjson_${CJSON_VERSION}.orig.tar.gz"
CJSON_SHA256=5308fd4bd90cef7aa060558514de6a1a4a0819974a26e6ed13973c5f624c24b2
CJSON_DEBIAN="cjson_${CJSON_VERSION}-1+deb12u4.debian.tar.xz"
CJSON_DEBIAN_SHA256=afd19a970966cf534ff1e9ec077d710a5e7e78eb4ec9b499c8bdc32e55da12cb

# A release tarball from Debian's source archive: fetch_source PACKAGE
# VERSION TARBALL SHA256.
fetch_source() {
    local pkg=$1 ver=$2 tb="$DEPS/src/$3" sum=$4
    if [ ! -f "$tb" ]; then
        if ! grep -rqs '^Types:.*deb-src\|^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
            say "adding a deb-src entry for Debian's source packages"
            if [ -f /etc/apt/sources.list.d/debian.sources ]; then
                sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
                    >/etc/apt/sources.list.d/q2map-deb-src.sources
            else
                sed -n 's/^deb /deb-src /p' /etc/apt/sources.list >/etc/apt/sources.list.d/q2map-deb-src.list
            fi
            apt-get update -q
        fi
        # The security suite's .dsc may be missing (exit 100) while the
        # upstream tarball, the part built here, arrives.
        (cd "$DEPS/src" && apt-get source --download-only "$pkg=$ver*" >/dev/null 2>&1 ||
            apt-get source --download-only "$pkg" >/dev/null 2>&1 || true)
        [ -f "$tb" ] || { echo "error: $(basename "$tb") did not arrive from Debian's source archive" >&2; exit 1; }
    fi
    echo "$sum  $tb" | sha256sum -c --quiet - || { echo "error: $tb: checksum mismatch" >&2; exit 1; }
}

# cJSON for qrad's MAP.texinfo.json reader: static, with Debian's patches
# (the series in its debian/patches) over the release. build_cjson
# TOOLCHAIN_FILE LABEL [CMAKE_ARGS...]: the cross toolchain, a name for the
# log line, and what that toolchain file wants besides.
build_cjson() {
    local toolchain=$1 label=$2
    shift 2
    [ -f "$PREFIX/lib/libcjson.a" ] && [ -f "$PREFIX/.cjson-$CJSON_VERSION-deb12u4" ] && return 0
    fetch_source cjson "$CJSON_VERSION" "$CJSON_TARBALL" "$CJSON_SHA256"
    [ -f "$DEPS/src/$CJSON_DEBIAN" ] || { echo "error: $CJSON_DEBIAN did not arrive from Debian's source archive" >&2; exit 1; }
    echo "$CJSON_DEBIAN_SHA256  $DEPS/src/$CJSON_DEBIAN" | sha256sum -c --quiet - ||
        { echo "error: $CJSON_DEBIAN: checksum mismatch" >&2; exit 1; }
    say "building cJSON $CJSON_VERSION for $label"
    rm -rf "$DEPS/cjson"
    mkdir -p "$DEPS/cjson"
    tar xzf "$DEPS/src/$CJSON_TARBALL" -C "$DEPS/cjson" --strip-components=1
    tar xJf "$DEPS/src/$CJSON_DEBIAN" -C "$DEPS/cjson"
    local p
    while read -r p; do
        if [ -n "$p" ] && [ "${p#\#}" = "$p" ]; then
            patch -d "$DEPS/cjson" -p1 -s <"$DEPS/cjson/debian/patches/$p"
        fi
    done <"$DEPS/cjson/debian/patches/series"
    # ENABLE_CUSTOM_COMPILER_FLAGS off: its -Werror set is for its own CI.
    cmake -S "$DEPS/cjson" -B "$DEPS/cjson/build" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
        "$@" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$PREFIX" \
        -DBUILD_SHARED_LIBS=OFF -DENABLE_CJSON_TEST=OFF -DENABLE_CJSON_UTILS=OFF -DENABLE_TARGET_EXPORT=OFF \
        -DENABLE_CUSTOM_COMPILER_FLAGS=OFF -DENABLE_HIDDEN_SYMBOLS=ON >"$DEPS/cjson-configure.log"
    ninja -C "$DEPS/cjson/build" install >"$DEPS/cjson-build.log"
    touch "$PREFIX/.cjson-$CJSON_VERSION-deb12u4"
}

