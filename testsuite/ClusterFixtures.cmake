# The clusters as ctest fixtures: every server-backed suite requires the fixture of its cluster, so ctest starts
# the cluster before the first suite that needs it and stops it after the last (scripts/fixture), whether one
# runs "ctest -L integration", one suite with -R, or scripts/test. Suites of the fast tier (label unit) need
# no fixture. Included by testsuite/CMakeLists.txt after the suites are added.
#
#   fixture          setup/cleanup tests                         required by the suites labelled
#   local-cluster    BlueTuskFixtureLocalStart/Stop              integration (scripts/cluster, scripts/kdc)
#   patroni-ha       BlueTuskFixturePatroniHAStart/Stop          ha           (scripts/patroni, afresh)
#   patroni-frozen   BlueTuskFixturePatroniFrozenStart/Stop      ha-frozen    (scripts/patroni, afresh)
#   patroni-topology BlueTuskFixturePatroniTopologyStart/Stop    ha-topology  (scripts/patroni, afresh)
#   paf              BlueTuskFixturePAFStart/Stop                paf          (scripts/pg-auto-failover, afresh)
#   pgbouncer        BlueTuskFixturePgBouncerStart/Stop          pooler       (scripts/pgbouncer, over local-cluster)
# A fixture's tests carry its suites' label too (and "fixture"), so a label filter that leaves the suites out
# (scripts/test's "-LE 'ha|paf|unit'") leaves their cluster alone.
# The three Patroni fixtures share one cluster (one port): each setup depends on the previous one's cleanup, so
# "ctest -L 'ha'" runs them one after the other, each suite on a cluster of its own.

set(bluetusk_fixture_tool ${PROJECT_SOURCE_DIR}/scripts/fixture)

# bluetusk_fixture(NAME FIXTURE KIND LABEL [AFTER previous-cleanup-test])
function(bluetusk_fixture name fixture kind label)
  add_test(NAME BlueTuskFixture${name}Start COMMAND ${bluetusk_fixture_tool} ${kind} setup)
  add_test(NAME BlueTuskFixture${name}Stop COMMAND ${bluetusk_fixture_tool} ${kind} cleanup)
  set_tests_properties(BlueTuskFixture${name}Start PROPERTIES FIXTURES_SETUP ${fixture} LABELS "${label};fixture" TIMEOUT 600)
  set_tests_properties(BlueTuskFixture${name}Stop PROPERTIES FIXTURES_CLEANUP ${fixture} LABELS "${label};fixture" TIMEOUT 300)
  if(ARGC GREATER 4)
    set_tests_properties(BlueTuskFixture${name}Start PROPERTIES DEPENDS ${ARGV5})
  endif()
  get_directory_property(suites TESTS)
  foreach(suite ${suites})
    get_test_property(${suite} LABELS suite_labels)
    if(suite_labels AND label IN_LIST suite_labels AND NOT "fixture" IN_LIST suite_labels)
      set_property(TEST ${suite} APPEND PROPERTY FIXTURES_REQUIRED ${fixture})
    endif()
  endforeach()
endfunction()

bluetusk_fixture(Local local-cluster local integration)
bluetusk_fixture(PatroniHA patroni-ha patroni ha)
bluetusk_fixture(PatroniFrozen patroni-frozen patroni ha-frozen AFTER BlueTuskFixturePatroniHAStop)
bluetusk_fixture(PatroniTopology patroni-topology patroni ha-topology AFTER BlueTuskFixturePatroniFrozenStop)
bluetusk_fixture(PAF paf paf paf)
# A PgBouncer in front of each node of the local cluster: the pooler suites carry "integration;pooler", so they
# need both fixtures, and the PgBouncers start after the cluster.
bluetusk_fixture(PgBouncer pgbouncer pgbouncer pooler)
set_tests_properties(BlueTuskFixturePgBouncerStart BlueTuskFixturePgBouncerStop PROPERTIES FIXTURES_REQUIRED local-cluster)
