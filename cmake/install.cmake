# What `cmake --install` puts under the prefix: the public headers (under
# include/heed, with no Highway or SentencePiece header among them), the
# static and the shared library (libheed.a, libheed.so), the CLI, a CMake
# package (find_package(heed) gives heed::heed, the shared library) and
# heed.pc for pkg-config (--static for the static library).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

add_library(heed_shared SHARED $<TARGET_OBJECTS:heed_objects>)
set_target_properties(heed_shared PROPERTIES
  OUTPUT_NAME heed EXPORT_NAME heed
  VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})
target_link_libraries(heed_shared PRIVATE heed_hwy heed_spm Threads::Threads)
target_include_directories(heed_shared PUBLIC
  $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/heed>)
target_compile_features(heed_shared INTERFACE cxx_std_17)

# core/translator.h and what it includes.
foreach(header translator.h options.h result.h error.h decode/options.h model/config.h
               model/run_options.h model/step_capture.h text/sentences.h
               explain/head_roles.h)
  get_filename_component(dir ${header} DIRECTORY)
  install(FILES core/${header}
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/heed/core/${dir})
endforeach()

install(TARGETS heed_shared EXPORT heedTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS heed_core ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS heed RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT heedTargets NAMESPACE heed::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/heed)
configure_package_config_file(cmake/heedConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/heedConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/heed)
write_basic_package_version_file(
  ${CMAKE_CURRENT_BINARY_DIR}/heedConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/heedConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/heedConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/heed)
# heed.pc finds the prefix from where it lies (${pcfiledir}), so that an
# install under any --prefix works. @ONLY keeps pkg-config's ${...} as is.
file(RELATIVE_PATH HEED_PC_TO_PREFIX /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
string(REGEX REPLACE "/$" "" HEED_PC_TO_PREFIX "${HEED_PC_TO_PREFIX}")
configure_file(cmake/heed.pc.in ${CMAKE_CURRENT_BINARY_DIR}/heed.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/heed.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
