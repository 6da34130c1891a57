# goblin_embed_data(TARGET FILES...): compiles each data file into the target as a string so
# the binary works anywhere; src/core/data.h looks them up by their path under data/, and a
# user's GOBLIN_DATA_DIR (or --data-dir) overrides any of them at run time.
function(goblin_embed_data TARGET)
  set(out "${CMAKE_CURRENT_BINARY_DIR}/embedded_data.cpp")
  set(script "${CMAKE_SOURCE_DIR}/cmake/embed_data_gen.cmake")
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DROOT=${CMAKE_SOURCE_DIR}/data "-DFILES=${ARGN}" -P ${script}
    DEPENDS ${ARGN} ${script}
    COMMENT "Embedding data files"
    VERBATIM)
  target_sources(${TARGET} PRIVATE ${out})
endfunction()
