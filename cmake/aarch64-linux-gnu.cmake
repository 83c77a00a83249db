# Cross-compiling q2map's command-line programs for Linux arm64 (aarch64)
# with Debian's gcc-aarch64-linux-gnu: scripts/build-arm64 uses it. zlib and
# libpng are Debian's own arm64 packages (multiarch, zlib1g-dev:arm64 and
# libpng-dev:arm64, in /usr/lib/aarch64-linux-gnu).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(Q2MAP_ARM64_TRIPLE aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${Q2MAP_ARM64_TRIPLE}-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE ${Q2MAP_ARM64_TRIPLE})
# The cross toolchain's sysroot, then the multiarch folders under /; the
# host's own libraries are never picked: /usr/lib/x86_64-linux-gnu is not
# searched with the arm64 library architecture.
set(CMAKE_FIND_ROOT_PATH /usr/${Q2MAP_ARM64_TRIPLE} /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# Static programs: they run under qemu-aarch64 (and binfmt_misc, so that
# `q2map compile` starts its stages) with no arm64 loader or libraries on
# the machine, and from an unpacked release folder on any arm64 Linux.
# (CMake's Linux platform file resets the library suffixes after this file,
# so scripts/build-arm64 names libz.a and libpng16.a itself.)
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libgomp.a OUTPUT_VARIABLE Q2MAP_LIBGOMP
                OUTPUT_STRIP_TRAILING_WHITESPACE)
set(OpenMP_gomp_LIBRARY ${Q2MAP_LIBGOMP} CACHE FILEPATH "static libgomp")
# pkg-config sees the arm64 .pc files only (no arm64 SDL2 there: no qview),
# and those of the libraries scripts/build-arm64 builds static under
# Q2MAP_ARM64_PREFIX (cJSON: Debian has no libcjson.a).
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES Q2MAP_ARM64_PREFIX)
if(Q2MAP_ARM64_PREFIX)
  set(ENV{PKG_CONFIG_LIBDIR} ${Q2MAP_ARM64_PREFIX}/lib/pkgconfig:/usr/lib/${Q2MAP_ARM64_TRIPLE}/pkgconfig)
  list(APPEND CMAKE_FIND_ROOT_PATH ${Q2MAP_ARM64_PREFIX})
else()
  set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/${Q2MAP_ARM64_TRIPLE}/pkgconfig)
endif()
set(ENV{PKG_CONFIG_PATH} "")
# Programs run on the build machine (tests, try_run) go through qemu.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)
