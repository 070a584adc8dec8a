# How long the long tests take (seconds, release tree, this 2-core machine; ctest's own
# CTestCostData.txt after full runs), given to ctest as each test's COST. ctest -j starts tests
# in descending cost, so the long client and interop tests start first and the short ones fill
# the second core around them, instead of one long test running alone at the end. A clean
# clone has no cost data of its own, so without these it runs them in declaration order.
# After a run, ctest's measured costs (build/<preset>/Testing/Temporary/CTestCostData.txt)
# take over. Refresh the numbers when a test's time changes much:
#   sort -k3 -rn build/release/Testing/Temporary/CTestCostData.txt | head -40
set(SEGLOG_TEST_COSTS
  bench.compare_smoke=59 interop.mirrormaker_seglog_to_kafka=43
  clients.group_migration_java=38 clients.crash_durability=35 clients.tiered_storage_faults=35
  interop.log_files_seglog_to_kafka=31 interop.kafka_crash_recovery_matches=30
  interop.kafka_compaction_matches=29 clients.group_rebalance_java=29
  clients.kafka_python_client=28 clients.group_cooperative_static_java=27
  clients.offsets_survive_restart=26 clients.group_consumer_protocol_java=24
  clients.console_consumer_group=23 clients.group_regex_new_topic_java=22
  clients.producer_performance=20 clients.garbage_beside_clients=18
  clients.transactional_message_copier_crash=18 clients.transactions_java=18
  clients.transactions_sendoffsets_java=17 interop.kafka_broker_writes_seglog_reads=17
  clients.streams_exactly_once_java=16 interop.kafka_judges_seglog_segments=16
  clients.tiered_storage_kcat_java=15 clients.confluent_kafka_client=15
  clients.tiered_storage_retention=15 clients.api_versions_match_kafka=14)

# Sets the COST of those of the tests above that this directory added (a test's properties
# can be set only where it was added).
function(seglog_apply_test_costs)
  foreach(entry ${SEGLOG_TEST_COSTS})
    string(REPLACE "=" ";" pair ${entry})
    list(GET pair 0 test)
    list(GET pair 1 seconds)
    if(TEST ${test})
      set_tests_properties(${test} PROPERTIES COST ${seconds})
    endif()
  endforeach()
endfunction()
