# wmbench's git revision for build_info.h: `git describe` of the checkout at SOURCE_DIR, "-dirty"
# when its tree had changes not committed, and "unknown" when SOURCE_DIR is not the top of a git
# checkout (a tarball unpacked inside another repository: `git describe` would climb to that
# repository and record its commit as wmbench's). Sets WMBENCH_GIT_REV.
#   include()d by CMakeLists.txt; or `cmake -DSOURCE_DIR=DIR -P git-rev.cmake` prints it (tests).
execute_process(COMMAND git rev-parse --show-toplevel
                WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE _wmb_git_top OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE _wmb_git_rc ERROR_QUIET)
set(WMBENCH_GIT_REV "unknown")
if(_wmb_git_rc EQUAL 0 AND _wmb_git_top)
  get_filename_component(_wmb_top_real "${_wmb_git_top}" REALPATH)
  get_filename_component(_wmb_src_real "${SOURCE_DIR}" REALPATH)
  if(_wmb_top_real STREQUAL _wmb_src_real)
    execute_process(COMMAND git describe --always --dirty=-dirty --abbrev=12
                    WORKING_DIRECTORY ${SOURCE_DIR}
                    OUTPUT_VARIABLE WMBENCH_GIT_REV OUTPUT_STRIP_TRAILING_WHITESPACE
                    ERROR_QUIET)
    if(NOT WMBENCH_GIT_REV)
      set(WMBENCH_GIT_REV "unknown")
    endif()
  endif()
endif()
if(CMAKE_SCRIPT_MODE_FILE)
  message("${WMBENCH_GIT_REV}")
endif()
