# Installing goblin (issue #26): `cmake --install build --prefix P` gives
#   P/bin/goblin
#   P/lib/libgoblin_cupti.so            (when CUPTI was found and the tracer built)
#   P/share/goblin/tools/               measure_ceilings.py (specs --measure), device_props.py (specs --detect),
#                                       kernel_harness.py + kernel_timing.py + kernel_static.py (kernel)
#   P/share/goblin/workloads/           train.py, goblin_hook/ (profile, bench, live audit), configs/
#   P/share/goblin/web/                 goblin serve's pages (static/) and chart.umd.js (from npm)
# An installed goblin finds them relative to its own binary (src/core/locate.h); data/ is compiled
# in and needs no install. `cpack -G DEB` packages the same tree under /usr.

# A build tree's goblin finds its run-time files in the source tree through this file beside it,
# read at run time, so no build-tree path is compiled into the binary. Never installed.
file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/goblin-runtime-root CONTENT "${CMAKE_SOURCE_DIR}\n")

install(TARGETS goblin RUNTIME DESTINATION bin)
if(TARGET goblin_cupti)
  # lib/, not the multiarch libdir: goblin looks for it at BIN/../lib (run/tracer.cpp).
  install(TARGETS goblin_cupti LIBRARY DESTINATION lib)
endif()
install(FILES tools/measure_ceilings.py tools/device_props.py tools/kernel_harness.py tools/kernel_timing.py
              tools/kernel_static.py DESTINATION share/goblin/tools)
install(FILES workloads/train.py DESTINATION share/goblin/workloads)
# goblin_ops.cpp and its ABI header: the hook builds the operator observer from them on the
# machine that runs the job (torch.utils.cpp_extension), so they travel with the Python files.
install(DIRECTORY workloads/goblin_hook DESTINATION share/goblin/workloads FILES_MATCHING PATTERN "*.py"
        PATTERN "*.cpp" PATTERN "*.h")
install(DIRECTORY workloads/configs DESTINATION share/goblin/workloads FILES_MATCHING PATTERN "*.yaml")
# goblin serve's pages (src/serve/server.cpp looks them up under share/goblin/web) and the chart
# library npm ci put in web/node_modules (OPTIONAL: without it the pages load, with no charts).
install(DIRECTORY web/static DESTINATION share/goblin/web)
install(FILES web/node_modules/chart.js/dist/chart.umd.js DESTINATION share/goblin/web OPTIONAL)

set(CPACK_PACKAGE_NAME goblin)
set(CPACK_PACKAGE_VENDOR "goblin")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "GPU profiling CLI: finds wasted GPU compute in ML workloads and proves each fix")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # goblin_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "goblin maintainers <goblin@localhost>")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# The scripts goblin runs need python3; the CUPTI tracer loads the CUDA toolkit's libcupti, which
# is no Debian package, so it is suggested in words rather than depended on.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3")
find_program(GOBLIN_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(GOBLIN_DPKG_SHLIBDEPS)
  # Derived from the binaries (CPack passes --ignore-missing-info, so libcupti is skipped).
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS
      "libc6, libstdc++6, libgcc-s1, zlib1g, libsqlite3-0, libpq5, libyaml-cpp0.7, libfmt9, libisal2, libsimdjson14, libreadline8, libcpp-httplib0.11")
endif()
include(CPack)

# The installed layout end to end (tests/install/check_install.py): install into a temporary
# prefix, run triage, audit --replay, kernel init and mcp from elsewhere with no access to this
# tree, and check the .deb's file list.
if(GOBLIN_TESTS AND NOT GOBLIN_FUZZ)
  find_package(Python3 COMPONENTS Interpreter)
  if(Python3_Interpreter_FOUND)
    set(_args --build ${CMAKE_BINARY_DIR} --source ${CMAKE_SOURCE_DIR} --cmake ${CMAKE_COMMAND}
              --cpack ${CMAKE_CPACK_COMMAND})
    add_test(NAME install_layout COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/install/check_install.py ${_args})
    # Skipped (77) when dpkg-deb is missing.
    add_test(NAME install_deb
      COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/tests/install/check_install.py ${_args} --deb)
    set_tests_properties(install_layout install_deb PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77)
  endif()
endif()
