# Installation: `cmake --install build --prefix P` gives
#   P/lib/libattune.so                 the C++ API (include/attune/attune.hpp) and everything under it
#   P/include/attune/attune.hpp        its header, and attune_error.hpp (standard headers only)
#   P/bin/attune                       the command-line program
#   P/libexec/attune/attune-worker     the process candidates are measured in
#   P/share/attune/targets/            the target files
#   P/lib/cmake/attune/                attuneConfig.cmake: find_package(attune) -> attune::attune
# The binaries find the worker and the targets relative to themselves (src/ir/locations.cpp),
# so an installed tree works wherever it is put; the build tree keeps working from its own paths.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(ATTUNE_INSTALL_WORKER_DIR ${CMAKE_INSTALL_LIBEXECDIR}/attune)
set(ATTUNE_INSTALL_TARGETS_DIR ${CMAKE_INSTALL_DATADIR}/attune/targets)
set(ATTUNE_INSTALL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/attune)

# The layout, for the one file that looks things up in it (only that file, so that changing a
# path recompiles nothing else).
set_source_files_properties(${CMAKE_SOURCE_DIR}/src/ir/locations.cpp PROPERTIES COMPILE_DEFINITIONS
  "ATTUNE_WORKER_PATH=\"$<TARGET_FILE:attune-worker>\";ATTUNE_INSTALL_BINDIR=\"${CMAKE_INSTALL_BINDIR}\";ATTUNE_INSTALL_LIBDIR=\"${CMAKE_INSTALL_LIBDIR}\";ATTUNE_INSTALL_WORKER_DIR=\"${ATTUNE_INSTALL_WORKER_DIR}\";ATTUNE_INSTALL_TARGETS_DIR=\"${ATTUNE_INSTALL_TARGETS_DIR}\"")

# libattune.so: the API stage with the stages it uses linked in. Only the API's own symbols are
# exported (src/api/exports.map), so attune's internals (and the copies of nlohmann_json and fmt
# inlined into them) cannot clash with a program's own.
add_library(attune_shared SHARED $<TARGET_OBJECTS:attune_api>)
target_link_libraries(attune_shared PRIVATE attune_api)  # the stages below it, as they are needed
target_link_options(attune_shared PRIVATE "LINKER:--version-script=${CMAKE_SOURCE_DIR}/src/api/exports.map")
set_property(TARGET attune_shared APPEND PROPERTY LINK_DEPENDS ${CMAKE_SOURCE_DIR}/src/api/exports.map)
target_include_directories(attune_shared INTERFACE $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include>
                                                  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(attune_shared INTERFACE cxx_std_17)
set_target_properties(attune_shared PROPERTIES OUTPUT_NAME attune EXPORT_NAME attune
                                               VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})

install(TARGETS attune_shared EXPORT attuneTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${CMAKE_SOURCE_DIR}/include/attune/attune.hpp ${CMAKE_SOURCE_DIR}/include/attune/attune_error.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/attune)
install(TARGETS attune RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS attune-worker RUNTIME DESTINATION ${ATTUNE_INSTALL_WORKER_DIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/targets/ DESTINATION ${ATTUNE_INSTALL_TARGETS_DIR})

install(EXPORT attuneTargets NAMESPACE attune:: DESTINATION ${ATTUNE_INSTALL_CMAKE_DIR})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/attuneConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/attuneConfig.cmake
                              INSTALL_DESTINATION ${ATTUNE_INSTALL_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/attuneConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/attuneConfig.cmake ${CMAKE_BINARY_DIR}/attuneConfigVersion.cmake
        DESTINATION ${ATTUNE_INSTALL_CMAKE_DIR})
