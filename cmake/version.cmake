# Writes OUT (a header) with the release version and, in a git checkout, the
# git description; run at every build, it rewrites the file only when the
# text changes, so an unchanged tree rebuilds nothing.
set(desc "")
if(EXISTS "${SRC}/.git")
  execute_process(COMMAND git -C "${SRC}" describe --always --dirty --tags
                  OUTPUT_VARIABLE desc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    set(desc "")
  endif()
endif()
set(text "#define Q2MAP_VERSION_STRING \"${VERSION}\"\n#define Q2MAP_GIT_DESCRIBE \"${desc}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
else()
  set(old "")
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
