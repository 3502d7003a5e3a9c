# CTest helpers for projects that use cutwin.
#
#   cutwin_add_conformance_test(NAME DIR [BACKEND sim|gpu|both])
#
# registers a test that runs the conformance cases in DIR (one folder per case, the
# format of docs/conformance.md) with the `cutwin` command and fails if any case fails.
function(cutwin_add_conformance_test name dir)
  cmake_parse_arguments(ARG "" "BACKEND" "" ${ARGN})
  if(NOT ARG_BACKEND)
    set(ARG_BACKEND sim)
  endif()
  add_test(NAME ${name} COMMAND cutwin::cli conformance ${dir} --backend ${ARG_BACKEND})
endfunction()
