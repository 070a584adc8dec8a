# The installed library: `cmake --install <build> --prefix P` puts
#   P/include/seglog/*.h               the public API (include/seglog/, nothing from src/)
#   P/lib/libseglog.a                  one archive of every component (base ... manager, with
#                                      protocol's generated records and the metadata log)
#   P/lib/cmake/seglog/                seglogConfig.cmake, its version file, seglogTargets.cmake:
#                                      find_package(seglog) + target_link_libraries(app seglog::seglog)
#   P/lib/pkgconfig/seglog.pc          for builds without CMake
#   P/bin/seglog                       the CLI
# The archive is made of the component libraries' own objects (nothing compiles twice). Its
# dependencies are the system packages the components link (ISA-L, zstd, lz4, zlib, xxHash,
# snappy, fmt, threads); seglogConfig.cmake finds them again on the embedder's machine, the same
# way this file's parent does.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(SEGLOG_COMPONENTS seglog_base seglog_io seglog_record seglog_index seglog_log seglog_cleaner
    seglog_protocol seglog_metadata seglog_security seglog_manager)
set(SEGLOG_OBJECTS "")
foreach(component IN LISTS SEGLOG_COMPONENTS)
  list(APPEND SEGLOG_OBJECTS $<TARGET_OBJECTS:${component}>)
endforeach()

# Target seglog_library, file libseglog.a, exported as seglog::seglog (the CLI owns the name
# `seglog` in this tree).
add_library(seglog_library STATIC ${SEGLOG_OBJECTS})
set_target_properties(seglog_library PROPERTIES OUTPUT_NAME seglog EXPORT_NAME seglog
  LINKER_LANGUAGE CXX)
target_compile_features(seglog_library INTERFACE cxx_std_20)
target_include_directories(seglog_library INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
# In the build tree the dependencies are this project's imported targets; installed, they are
# the ones seglogConfig.cmake creates (seglog::deps, fmt::fmt, Snappy::snappy, Threads::Threads).
target_link_libraries(seglog_library INTERFACE
  $<BUILD_INTERFACE:PkgConfig::ISAL> $<BUILD_INTERFACE:PkgConfig::ZSTD>
  $<BUILD_INTERFACE:PkgConfig::LZ4> $<BUILD_INTERFACE:PkgConfig::ZLIB>
  $<BUILD_INTERFACE:PkgConfig::XXHASH> $<INSTALL_INTERFACE:seglog::deps>
  Snappy::snappy fmt::fmt Threads::Threads)
add_library(seglog::seglog ALIAS seglog_library)

install(TARGETS seglog_library EXPORT seglogTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/seglog DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h")
install(TARGETS seglog RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

set(SEGLOG_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/seglog)
install(EXPORT seglogTargets NAMESPACE seglog:: DESTINATION ${SEGLOG_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/seglogConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/seglogConfig.cmake INSTALL_DESTINATION ${SEGLOG_CMAKE_DIR})
# 0.x: a minor version may break the API, so only the same minor version is compatible.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/seglogConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/seglogConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/seglogConfigVersion.cmake DESTINATION ${SEGLOG_CMAKE_DIR})

configure_file(${CMAKE_CURRENT_LIST_DIR}/seglog.pc.in ${CMAKE_CURRENT_BINARY_DIR}/seglog.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/seglog.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
