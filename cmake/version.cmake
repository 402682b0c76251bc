# Stamps the version and the git commit into a generated header: at configure time, and again at
# every build by the target wildfire_version (wildfire_core depends on it), so that a build folder
# kept across commits (the GPU machine's) reports the commit it built, not the one it was
# configured at. Builds from a copy without .git pass the commit in (WF_GIT_COMMIT_OVERRIDE).
set(wf_version_header ${CMAKE_BINARY_DIR}/generated/wildfire/version.hpp)
set(wf_stamp_command ${CMAKE_COMMAND} -DWF_SOURCE_DIR=${CMAKE_SOURCE_DIR} -DWF_VERSION_HEADER=${wf_version_header}
                     -DPROJECT_VERSION=${PROJECT_VERSION})
if(DEFINED WF_GIT_COMMIT_OVERRIDE)
  list(APPEND wf_stamp_command -DWF_GIT_COMMIT_OVERRIDE=${WF_GIT_COMMIT_OVERRIDE})
endif()
list(APPEND wf_stamp_command -P ${CMAKE_SOURCE_DIR}/cmake/stamp_version.cmake)
execute_process(COMMAND ${wf_stamp_command} COMMAND_ERROR_IS_FATAL ANY)
add_custom_target(wildfire_version COMMAND ${wf_stamp_command} BYPRODUCTS ${wf_version_header} VERBATIM)
