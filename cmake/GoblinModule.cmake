# goblin_module(NAME DEPS dep1 dep2 ... [TEST_DEPS ...] [EXCLUDE file.cpp ...])
#
# Builds every *.cpp in the calling directory (except *_test.cpp and fuzz_*.cpp) into the static
# library goblin_NAME, every *_test.cpp into the test binary NAME_tests (registered with CTest),
# and, with GOBLIN_FUZZ=ON, every fuzz_X.cpp into a libFuzzer binary fuzz_X whose short run is a
# CTest test seeded from the fixtures. Tests run with GOBLIN_FIXTURES and GOBLIN_DATA_DIR set.
function(goblin_module NAME)
  cmake_parse_arguments(M "" "" "DEPS;TEST_DEPS;EXCLUDE" ${ARGN})
  file(GLOB ALL_SRC CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/*.cpp")
  set(LIB_SRC "")
  set(TEST_SRC "")
  set(FUZZ_SRC "")
  foreach(f ${ALL_SRC})
    get_filename_component(base ${f} NAME)
    if(base IN_LIST M_EXCLUDE)
      continue()
    endif()
    if(base MATCHES "_test\\.cpp$")
      list(APPEND TEST_SRC ${f})
    elseif(base MATCHES "^fuzz_.*\\.cpp$")
      list(APPEND FUZZ_SRC ${f})
    else()
      list(APPEND LIB_SRC ${f})
    endif()
  endforeach()

  add_library(goblin_${NAME} STATIC ${LIB_SRC})
  target_include_directories(goblin_${NAME} PUBLIC ${CMAKE_SOURCE_DIR}/src)
  target_link_libraries(goblin_${NAME} PUBLIC ${M_DEPS})
  target_compile_definitions(goblin_${NAME} PRIVATE GOBLIN_VERSION="${PROJECT_VERSION}")

  if(GOBLIN_TESTS AND TEST_SRC AND NOT GOBLIN_FUZZ)
    add_executable(${NAME}_tests ${TEST_SRC})
    target_link_libraries(${NAME}_tests PRIVATE goblin_${NAME} ${M_TEST_DEPS} GTest::gtest GTest::gtest_main GTest::gmock)
    target_compile_definitions(${NAME}_tests PRIVATE
      GOBLIN_FIXTURES="${GOBLIN_FIXTURES}" GOBLIN_DATA_DIR="${GOBLIN_DATA_DIR}"
      GOBLIN_SOURCE_DIR="${CMAKE_SOURCE_DIR}" GOBLIN_BINARY_DIR="${CMAKE_BINARY_DIR}")
    gtest_discover_tests(${NAME}_tests DISCOVERY_TIMEOUT 60
      PROPERTIES ENVIRONMENT "GOBLIN_FIXTURES=${GOBLIN_FIXTURES}" LABELS unit)
    # The test binary finds goblin's run-time files (the hook, tools/) as build/goblin does: through
    # this file beside it, naming the source tree (core/locate.h).
    file(CONFIGURE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/goblin-runtime-root CONTENT "${CMAKE_SOURCE_DIR}\n")
  endif()

  if(GOBLIN_FUZZ)
    foreach(f ${FUZZ_SRC})
      get_filename_component(fname ${f} NAME_WE)
      add_executable(${fname} ${f})
      if(NOT TARGET fuzzers)
        add_custom_target(fuzzers)  # `cmake --build B --target fuzzers` builds every fuzz target only
      endif()
      add_dependencies(fuzzers ${fname})
      target_link_libraries(${fname} PRIVATE goblin_${NAME} ${M_TEST_DEPS})
      target_link_options(${fname} PRIVATE -fsanitize=fuzzer)
      # Seed corpus: the folders named in the target's first line comment ("// corpus: kineto"
      # for tests/fixtures/kineto, "repo:examples/configs" for a folder of this repository),
      # copied so libFuzzer may add to it without touching them.
      file(STRINGS ${f} corpus_line LIMIT_COUNT 1 REGEX "^// corpus: ")
      string(REPLACE "// corpus: " "" corpus_dirs "${corpus_line}")
      string(REPLACE " " ";" corpus_dirs "${corpus_dirs}")
      set(seed_args "")
      foreach(d ${corpus_dirs})
        if(d MATCHES "^repo:")  # a folder of this repository, e.g. repo:examples/configs
          string(REGEX REPLACE "^repo:" "" d "${d}")
          list(APPEND seed_args "${CMAKE_SOURCE_DIR}/${d}")
        else()                  # a folder under tests/fixtures
          list(APPEND seed_args "${GOBLIN_FIXTURES}/${d}")
        endif()
      endforeach()
      set(work "${CMAKE_BINARY_DIR}/fuzz_corpus/${fname}")
      add_test(NAME ${fname}_run
        COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=1
                ${CMAKE_SOURCE_DIR}/scripts/run_fuzzer $<TARGET_FILE:${fname}> ${work} ${seed_args})
      set_tests_properties(${fname}_run PROPERTIES TIMEOUT 300 LABELS fuzz)
    endforeach()
  endif()
endfunction()
