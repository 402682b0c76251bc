# Stamps the version and the git commit into a generated header at configure time.
execute_process(COMMAND git rev-parse --short=12 HEAD
                WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
                OUTPUT_VARIABLE WF_GIT_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE
                ERROR_QUIET RESULT_VARIABLE wf_git_result)
if(DEFINED WF_GIT_COMMIT_OVERRIDE)
  # Builds from a copy without .git (the GPU machine) pass the commit in.
  set(WF_GIT_COMMIT "${WF_GIT_COMMIT_OVERRIDE}")
elseif(NOT wf_git_result EQUAL 0 OR WF_GIT_COMMIT STREQUAL "")
  set(WF_GIT_COMMIT "unknown")
else()
  execute_process(COMMAND git status --porcelain --untracked-files=no
                  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
                  OUTPUT_VARIABLE wf_git_dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT wf_git_dirty STREQUAL "")
    string(APPEND WF_GIT_COMMIT "-dirty")
  endif()
endif()
configure_file(${CMAKE_SOURCE_DIR}/cmake/version.hpp.in
               ${CMAKE_BINARY_DIR}/generated/wildfire/version.hpp @ONLY)
