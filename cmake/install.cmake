# The installation layout:
#   P/bin/attune                       the command-line program
#   P/libexec/attune/attune-worker     the process candidates are measured in
#   P/share/attune/targets/            the target files
# The binaries find the worker and the targets relative to themselves (src/ir/locations.cpp),
# so an installed tree works wherever it is put; the build tree keeps working from its own paths.
include(GNUInstallDirs)

set(ATTUNE_INSTALL_WORKER_DIR ${CMAKE_INSTALL_LIBEXECDIR}/attune)
set(ATTUNE_INSTALL_TARGETS_DIR ${CMAKE_INSTALL_DATADIR}/attune/targets)

# The layout, for the one file that looks things up in it (only that file, so that changing a
# path recompiles nothing else).
set_source_files_properties(${CMAKE_SOURCE_DIR}/src/ir/locations.cpp PROPERTIES COMPILE_DEFINITIONS
  "ATTUNE_WORKER_PATH=\"$<TARGET_FILE:attune-worker>\";ATTUNE_INSTALL_BINDIR=\"${CMAKE_INSTALL_BINDIR}\";ATTUNE_INSTALL_LIBDIR=\"${CMAKE_INSTALL_LIBDIR}\";ATTUNE_INSTALL_WORKER_DIR=\"${ATTUNE_INSTALL_WORKER_DIR}\";ATTUNE_INSTALL_TARGETS_DIR=\"${ATTUNE_INSTALL_TARGETS_DIR}\"")
