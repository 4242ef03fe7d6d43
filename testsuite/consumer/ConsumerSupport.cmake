# What RunConsumer.cmake and RunPackageConsumer.cmake share.

# run(what command...): runs the command, stops the script with its output when it fails, else sets
# output (its stdout) in the caller.
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${what} failed (${status}): ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${what}: ok")
  set(output "${out}" PARENT_SCOPE)
endfunction()

# prefix_path_env(out dir...): sets out to "CMAKE_PREFIX_PATH=<dirs>:<POCO_PREFIX_PATH>", ':'-separated, for
# `cmake -E env` before a configure: the consumer finds the given directories and the Poco BlueTusk was built
# against (the system's, or the build's CMAKE_PREFIX_PATH: scripts/poco-current's Poco 1.14.2). As a
# -DCMAKE_PREFIX_PATH=a;b argument the list would be split in two on its way through run(), and the consumer
# would find the system's Poco beside a BlueTusk built on another (a crash at the first call).
function(prefix_path_env out)
  set(dirs ${ARGN} ${POCO_PREFIX_PATH})
  string(REPLACE ";" ":" joined "${dirs}")
  set(${out} "CMAKE_PREFIX_PATH=${joined}" PARENT_SCOPE)
endfunction()

# expect_lines(what text line...): stops the script unless text holds every line (whole lines).
function(expect_lines what text)
  foreach(line ${ARGN})
    string(FIND "${text}" "${line}\n" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${what}: the output lacks the line \"${line}\":\n${text}")
    endif()
  endforeach()
endfunction()

# require_vars(script var...): stops the script when one of the variables is not set.
function(require_vars script)
  foreach(var ${ARGN})
    if(NOT DEFINED ${var})
      message(FATAL_ERROR "${script}: ${var} is not set")
    endif()
  endforeach()
endfunction()
