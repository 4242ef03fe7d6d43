# CheckLayers.cmake: checks that Transport's includes go one way between its three folders,
# protocol < connect < session: protocol includes nothing of connect or session, connect may include
# protocol, session may include both. Run as the ctest test BlueTuskTransportLayerCheck (label unit):
#
#     cmake -DTRANSPORT_DIR=<repo>/Transport -P Transport/cmake/CheckLayers.cmake
#
# The sources' folder gives their layer; the public headers (include/BlueTusk) stay together for the
# users, so their layer is listed below. A source outside the three folders, a public header missing from
# the lists, or an include of a higher layer fails the check, each named with file and line. The check
# itself is the shared cmake/CheckLayers.cmake; this file gives it Transport's layers.

cmake_minimum_required(VERSION 3.16)

if(NOT TRANSPORT_DIR)
  get_filename_component(TRANSPORT_DIR "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
endif()

set(layers protocol connect session)

# The public headers by layer (file names in include/BlueTusk): the statement API and what Routing needs
# (doc/architecture.md, "Public surface"). Every other header lives in its layer's folder under src/.
set(public_protocol BinaryCopyReader.h Notification.h Parameter.h QueryResult.h ResultRows.h TypeOid.h ValueCodec.h)
set(public_connect OpenCancellation.h StartupGate.h)
set(public_session CommitOutcome.h CopyIn.h Pipeline.h PreparedStatement.h Session.h SessionControl.h Transaction.h)

set(MODULE_DIR "${TRANSPORT_DIR}")
set(LAYERS ${layers})
foreach(layer ${layers})
  set(PUBLIC_${layer} ${public_${layer}})
endforeach()
set(MODULE_NAME Transport)
include("${CMAKE_CURRENT_LIST_DIR}/../../cmake/CheckLayers.cmake")
