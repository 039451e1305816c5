# ddl_add_test(NAME tst_x SOURCES a.cpp LIBS lib... [LABELS l...] [TIMEOUT s])
# One Qt Test executable per class or feature, registered with CTest, offscreen, asserts on.
function(ddl_add_test)
    cmake_parse_arguments(ARG "" "NAME;TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
    add_executable(${ARG_NAME} ${ARG_SOURCES})
    target_link_libraries(${ARG_NAME} PRIVATE ddl_common Qt6::Test ${ARG_LIBS})
    set_target_properties(${ARG_NAME} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
    add_test(NAME ${ARG_NAME} COMMAND ${ARG_NAME})
    if(NOT ARG_TIMEOUT)
        set(ARG_TIMEOUT 120)
    endif()
    set_tests_properties(${ARG_NAME} PROPERTIES
        ENVIRONMENT "QT_QPA_PLATFORM=offscreen;QT_FORCE_ASSERTS=1;DDL_BIN_DIR=${CMAKE_BINARY_DIR}/bin;DDL_SOURCE_DIR=${CMAKE_SOURCE_DIR}"
        TIMEOUT ${ARG_TIMEOUT}
        LABELS "${ARG_LABELS}")
endfunction()

# ddl_add_postgresql_variant(tst_x): runs tst_x a second time as tst_x_postgresql, its servers
# and stores on a real PostgreSQL cluster that the test starts (tests/support/pgcluster.h).
function(ddl_add_postgresql_variant name)
    add_test(NAME ${name}_postgresql COMMAND ${name})
    get_test_property(${name} TIMEOUT timeout)
    set_tests_properties(${name}_postgresql PROPERTIES
        ENVIRONMENT "QT_QPA_PLATFORM=offscreen;QT_FORCE_ASSERTS=1;DDL_BIN_DIR=${CMAKE_BINARY_DIR}/bin;DDL_SOURCE_DIR=${CMAKE_SOURCE_DIR};DDL_TEST_DATABASE=postgresql"
        TIMEOUT ${timeout}
        LABELS "postgresql")
endfunction()
