# How long the long tests take (seconds: the release stage of a `.ci/run` on this 2-core
# machine, 2026-12-04; every test of 11 s or more), given to ctest as each test's COST.
# ctest -j starts tests in descending cost, so the long client and interop tests start first
# and the short ones fill the second core around them, instead of one long test running alone
# at the end. A clean
# clone has no cost data of its own, so without these it runs them in declaration order.
# After a run, ctest's measured costs (build/<preset>/Testing/Temporary/CTestCostData.txt)
# take over. Refresh the numbers when a test's time changes much, from the per-test times
# in a CI run's build/ci-logs/ctest-release.log.
set(SEGLOG_TEST_COSTS
  clients.group_regex_new_topic_java=49 bench.compare_smoke=48 clients.console_consumer_group=48
  clients.api_versions_match_kafka=40 interop.mirrormaker_seglog_to_kafka=40
  clients.group_migration_java=37 clients.crash_durability=35 clients.transactions_java=35
  clients.tiered_storage_faults=34 interop.log_files_seglog_to_kafka=33 tests.example2_live=30
  interop.kafka_crash_recovery_matches=30 clients.group_rebalance_java=29
  interop.kafka_compaction_matches=28 clients.offsets_survive_restart=28
  clients.kafka_python_client=28 clients.group_cooperative_static_java=26
  clients.client_request_frames=25 clients.group_consumer_protocol_java=22
  clients.admin_tools_single_node=22 interop.kafka_judges_seglog_segments=20
  clients.producer_performance=20 clients.transactions_sendoffsets_java=19
  clients.garbage_beside_clients=18 clients.transactional_message_copier_crash=17
  clients.tiered_storage_kcat_java=16 interop.kafka_broker_writes_seglog_reads=16
  clients.streams_exactly_once_java=16 clients.tiered_storage_retention=16
  clients.confluent_kafka_client=15 clients.transactions_zombie_fencing_java=14
  clients.alter_replica_log_dirs_sigkill=13 clients.kafka_python_group_consumer=12
  clients.kafka_configs=12 clients.alter_replica_log_dirs_under_load=12
  clients.confluent_kafka_group_consumer=12 clients.group_regex_internal_topic_java=12
  clients.transactions_confluent_kafka=11 clients.get_offsets_and_delete_records=11)

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
