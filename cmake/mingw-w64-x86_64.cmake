# Cross-compiling q2map for Windows x64 with Debian's MinGW-w64 (the POSIX
# thread flavour, whose libgomp gives OpenMP): scripts/build-windows uses it.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(Q2MAP_MINGW_TRIPLE x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${Q2MAP_MINGW_TRIPLE}-gcc-posix)
set(CMAKE_CXX_COMPILER ${Q2MAP_MINGW_TRIPLE}-g++-posix)
set(CMAKE_RC_COMPILER ${Q2MAP_MINGW_TRIPLE}-windres)
# Debian's MinGW sysroot, then what scripts/build-windows installed (libpng,
# SDL2) under Q2MAP_WIN_PREFIX.
set(CMAKE_FIND_ROOT_PATH /usr/${Q2MAP_MINGW_TRIPLE} ${Q2MAP_WIN_PREFIX})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# Programs that run from an unpacked folder: libgcc, libgomp, winpthreads
# and the C libraries linked in.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
# OpenMP linked in too: CMake's FindOpenMP picks the import library.
execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libgomp.a OUTPUT_VARIABLE Q2MAP_LIBGOMP
                OUTPUT_STRIP_TRAILING_WHITESPACE)
set(OpenMP_gomp_LIBRARY ${Q2MAP_LIBGOMP} CACHE FILEPATH "static libgomp")
# pkg-config must look in the Windows prefix only, never at the host's .pc
# files. CMake reads this file again for each try_compile, where
# Q2MAP_WIN_PREFIX is passed on (below) but may be unset in older CMakes: the
# environment is the process's, so an unset prefix must not undo it.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES Q2MAP_WIN_PREFIX)
if(Q2MAP_WIN_PREFIX)
  set(ENV{PKG_CONFIG_LIBDIR} ${Q2MAP_WIN_PREFIX}/lib/pkgconfig)
elseif(NOT DEFINED ENV{PKG_CONFIG_LIBDIR})
  set(ENV{PKG_CONFIG_LIBDIR} /usr/${Q2MAP_MINGW_TRIPLE}/lib/pkgconfig)
endif()
set(ENV{PKG_CONFIG_PATH} "")
