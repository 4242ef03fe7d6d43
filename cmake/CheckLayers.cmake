# CheckLayers.cmake: checks that a module's includes go one way between the folders of its src/, each
# folder a layer that may include only the layers listed before it. Run as a unit-labelled ctest test per
# module (BlueTuskTransportLayerCheck, BlueTuskRoutingLayerCheck):
#
#     cmake -DMODULE_DIR=<repo>/Routing -DLAYERS=router,ha,datasource \
#           -DPUBLIC_router=HostOrderPolicy.h,... -DPUBLIC_datasource=... -P cmake/CheckLayers.cmake
#
# or from a module's own script that sets MODULE_DIR, LAYERS and PUBLIC_<layer> and includes this one
# (Transport/cmake/CheckLayers.cmake). LAYERS is the ordered layer list (lowest first), comma or semicolon
# separated; PUBLIC_<layer> lists the public headers (file names in include/BlueTusk) of that layer: the
# public headers stay together for the users, so their layer is written down. A source outside the layer
# folders, a public header missing from the lists, or an include of a higher layer fails the check, each
# named with file and line.

cmake_minimum_required(VERSION 3.16)

if(NOT MODULE_DIR)
  message(FATAL_ERROR "CheckLayers: MODULE_DIR is not set")
endif()
if(NOT MODULE_NAME)
  get_filename_component(MODULE_NAME "${MODULE_DIR}" NAME)
endif()
string(REPLACE "," ";" layers "${LAYERS}")
if(NOT layers)
  message(FATAL_ERROR "CheckLayers: LAYERS is not set")
endif()
foreach(layer ${layers})
  string(REPLACE "," ";" public_${layer} "${PUBLIC_${layer}}")
endforeach()
string(REPLACE ";" " <- " direction "${layers}")
string(REPLACE ";" ", src/" folders "${layers}")

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

# layer_of_path(absolute-path out): the layer of a file of the module, "" for a file outside its src and
# include (another module, Poco, the system), "?" for a file of the module that belongs to no layer.
function(layer_of_path path out)
  set(result "")
  file(RELATIVE_PATH rel "${MODULE_DIR}" "${path}")
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
# (the including file's folder, then src, then include), or "" when it is not the module's.
function(resolve file name out)
  get_filename_component(dir "${file}" DIRECTORY)
  set(result "")
  foreach(base "${dir}" "${MODULE_DIR}/src" "${MODULE_DIR}/include")
    if(result STREQUAL "" AND EXISTS "${base}/${name}")
      get_filename_component(result "${base}/${name}" ABSOLUTE)
    endif()
  endforeach()
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

file(GLOB_RECURSE files "${MODULE_DIR}/src/*" "${MODULE_DIR}/include/*")
list(SORT files)
set(checked 0)
set(edges 0)
foreach(file ${files})
  if(NOT file MATCHES "\\.(h|cpp)$")
    continue()
  endif()
  file(RELATIVE_PATH rel "${MODULE_DIR}" "${file}")
  layer_of_path("${file}" own)
  if(own STREQUAL "?")
    list(APPEND problems "${rel}: belongs to no layer (put a source in src/${folders}, or list a public header with its layer)")
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
      continue()   # another module, Poco, the standard library
    endif()
    layer_of_path("${target}" theirs)
    if(theirs STREQUAL "" OR theirs STREQUAL "?")
      continue()   # reported with the file itself
    endif()
    math(EXPR edges "${edges} + 1")
    layer_rank(${theirs} their_rank)
    if(their_rank GREATER own_rank)
      list(APPEND problems "${rel}:${number}: ${own} includes \"${name}\" of ${theirs} (the includes go ${direction})")
    endif()
  endforeach()
endforeach()

if(checked EQUAL 0)
  message(FATAL_ERROR "CheckLayers: no ${MODULE_NAME} sources found under ${MODULE_DIR}")
endif()
if(problems)
  list(LENGTH problems count)
  string(REPLACE ";" "\n  " text "${problems}")
  message(FATAL_ERROR "CheckLayers: ${count} problem(s) in ${MODULE_NAME}'s layers:\n  ${text}")
endif()
message(STATUS "CheckLayers: ${checked} files, ${edges} includes within ${MODULE_NAME}, all one way (${direction})")
