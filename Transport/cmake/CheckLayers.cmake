# CheckLayers.cmake: checks that Transport's includes go one way between its three folders,
# protocol < connect < session: protocol includes nothing of connect or session, connect may include
# protocol, session may include both. Run as the ctest test BlueTuskTransportLayerCheck (label unit):
#
#     cmake -DTRANSPORT_DIR=<repo>/Transport -P Transport/cmake/CheckLayers.cmake
#
# The sources' folder gives their layer; the public headers (include/BlueTusk) stay together for the
# users, so their layer is listed below. A source outside the three folders, a public header missing from
# the lists, or an include of a higher layer fails the check, each named with file and line.

cmake_minimum_required(VERSION 3.16)

if(NOT TRANSPORT_DIR)
  get_filename_component(TRANSPORT_DIR "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
endif()

set(layers protocol connect session)

# The public headers by layer (file names in include/BlueTusk): the statement API and what Routing needs
# (doc/architecture.md, "Public surface"). Every other header lives in its layer's folder under src/.
set(public_protocol BinaryCopyReader.h NoticeHandler.h Notification.h Parameter.h QueryResult.h TypeOid.h ValueCodec.h)
set(public_connect OpenCancellation.h StartupGate.h)
set(public_session CommitOutcome.h CopyIn.h Pipeline.h PreparedStatement.h Session.h Transaction.h)

set(problems "")

function(layer_rank layer out)
  list(FIND layers "${layer}" rank)
  set(${out} ${rank} PARENT_SCOPE)
endfunction()

function(public_layer name out)
  set(found "")
  foreach(layer ${layers})
    if(name IN_LIST public_${layer})
      set(found ${layer})
    endif()
  endforeach()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

# layer_of_path(absolute-path out): the layer of a Transport file, "" for a file outside Transport's src
# and include (Foundation, Poco, the system), "?" for a Transport file that belongs to no layer.
function(layer_of_path path out)
  set(result "")
  file(RELATIVE_PATH rel "${TRANSPORT_DIR}" "${path}")
  if(rel MATCHES "^src/([^/]+)/")
    set(result "${CMAKE_MATCH_1}")
    if(NOT result IN_LIST layers)
      set(result "?")
    endif()
  elseif(rel MATCHES "^src/")
    set(result "?")
  elseif(rel MATCHES "^include/BlueTusk/(.+)$")
    public_layer("${CMAKE_MATCH_1}" result)
    if(result STREQUAL "")
      set(result "?")
    endif()
  endif()
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

# resolve(including-file included-name out): the included file's absolute path, as the compiler finds it
# (the including file's folder, then src, then include), or "" when it is not Transport's.
function(resolve file name out)
  get_filename_component(dir "${file}" DIRECTORY)
  set(result "")
  foreach(base "${dir}" "${TRANSPORT_DIR}/src" "${TRANSPORT_DIR}/include")
    if(result STREQUAL "" AND EXISTS "${base}/${name}")
      get_filename_component(result "${base}/${name}" ABSOLUTE)
    endif()
  endforeach()
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

file(GLOB_RECURSE files "${TRANSPORT_DIR}/src/*" "${TRANSPORT_DIR}/include/*")
list(SORT files)
set(checked 0)
set(edges 0)
foreach(file ${files})
  if(NOT file MATCHES "\\.(h|cpp)$")
    continue()
  endif()
  file(RELATIVE_PATH rel "${TRANSPORT_DIR}" "${file}")
  layer_of_path("${file}" own)
  if(own STREQUAL "?")
    list(APPEND problems "${rel}: belongs to no layer (put a source in src/protocol, src/connect or src/session, or list a public header in cmake/CheckLayers.cmake)")
    continue()
  endif()
  layer_rank(${own} own_rank)
  math(EXPR checked "${checked} + 1")
  file(STRINGS "${file}" lines)
  set(number 0)
  foreach(line IN LISTS lines)
    math(EXPR number "${number} + 1")
    if(NOT line MATCHES "^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"]+)[>\"]")
      continue()
    endif()
    set(name "${CMAKE_MATCH_1}")
    resolve("${file}" "${name}" target)
    if(target STREQUAL "")
      continue()   # Foundation, Poco, the standard library
    endif()
    layer_of_path("${target}" theirs)
    if(theirs STREQUAL "" OR theirs STREQUAL "?")
      continue()   # reported with the file itself
    endif()
    math(EXPR edges "${edges} + 1")
    layer_rank(${theirs} their_rank)
    if(their_rank GREATER own_rank)
      list(APPEND problems "${rel}:${number}: ${own} includes \"${name}\" of ${theirs} (the includes go protocol <- connect <- session)")
    endif()
  endforeach()
endforeach()

if(checked EQUAL 0)
  message(FATAL_ERROR "CheckLayers: no Transport sources found under ${TRANSPORT_DIR}")
endif()
if(problems)
  list(LENGTH problems count)
  string(REPLACE ";" "\n  " text "${problems}")
  message(FATAL_ERROR "CheckLayers: ${count} problem(s) in Transport's layers:\n  ${text}")
endif()
message(STATUS "CheckLayers: ${checked} files, ${edges} includes within Transport, all one way (protocol <- connect <- session)")
