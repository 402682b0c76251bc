# Writes the version header (cmake -P; variables WF_SOURCE_DIR, WF_VERSION_HEADER, PROJECT_VERSION
# and, for builds from a copy without .git, WF_GIT_COMMIT_OVERRIDE). configure_file leaves the
# header untouched when its text is the same, so an unchanged commit rebuilds nothing.
execute_process(COMMAND git rev-parse --short=12 HEAD
                WORKING_DIRECTORY ${WF_SOURCE_DIR}
                OUTPUT_VARIABLE WF_GIT_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE
                ERROR_QUIET RESULT_VARIABLE wf_git_result)
if(DEFINED WF_GIT_COMMIT_OVERRIDE)
  set(WF_GIT_COMMIT "${WF_GIT_COMMIT_OVERRIDE}")
elseif(NOT wf_git_result EQUAL 0 OR WF_GIT_COMMIT STREQUAL "")
  set(WF_GIT_COMMIT "unknown")
else()
  execute_process(COMMAND git status --porcelain --untracked-files=no
                  WORKING_DIRECTORY ${WF_SOURCE_DIR}
                  OUTPUT_VARIABLE wf_git_dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT wf_git_dirty STREQUAL "")
    string(APPEND WF_GIT_COMMIT "-dirty")
  endif()
endif()
configure_file(${WF_SOURCE_DIR}/cmake/version.hpp.in ${WF_VERSION_HEADER} @ONLY)
