# Highway, SentencePiece and nlohmann-json for the WebAssembly build, from
# the sources wasm/fetch_sources.sh puts in build/wasm-src.
set(HEED_WASM_SRC "${CMAKE_CURRENT_SOURCE_DIR}/build/wasm-src" CACHE PATH
    "Folder holding the highway/ and sentencepiece/ source trees")

# The threaded engine: every object, the dependencies' too, must be built
# with atomics and shared memory, or the link refuses it.
option(HEED_WASM_THREADS "Build heed_engine_threads (pthreads)" OFF)
if(HEED_WASM_THREADS)
  add_compile_options(-pthread)
  add_link_options(-pthread)
endif()

# C++ errors are caught at the binding boundary, so exceptions stay on: as
# WebAssembly exceptions in the single-thread engine (Emscripten's default
# JavaScript exceptions route every call that may throw through a JavaScript
# trampoline, invoke_*; native ones made the module 19% smaller and decoding
# 2-9% faster), as JavaScript exceptions in the threaded one, where
# Emscripten 3.1.6 with -pthread catches nothing under WebAssembly
# exceptions, not even throw 5 in catch (...) (docs/toolchain-quirks.md).
if(HEED_WASM_THREADS)
  add_compile_options(-fexceptions)
  add_link_options(-fexceptions)
else()
  add_compile_options(-fwasm-exceptions)
  add_link_options(-fwasm-exceptions)
endif()

# Highway: one static target, SIMD128; no runtime dispatch in WebAssembly.
add_library(heed_hwy STATIC ${HEED_WASM_SRC}/highway/hwy/aligned_allocator.cc
                            ${HEED_WASM_SRC}/highway/hwy/targets.cc)
target_include_directories(heed_hwy SYSTEM PUBLIC ${HEED_WASM_SRC}/highway)
target_compile_definitions(heed_hwy PUBLIC HWY_COMPILE_ONLY_STATIC=1)
target_compile_options(heed_hwy PUBLIC -msimd128)

# SentencePiece: its own CMake, static library only (it bundles
# protobuf-lite).
set(SPM_ENABLE_SHARED OFF CACHE BOOL "" FORCE)
set(SPM_ENABLE_TCMALLOC OFF CACHE BOOL "" FORCE)
add_subdirectory(${HEED_WASM_SRC}/sentencepiece
                 ${CMAKE_BINARY_DIR}/sentencepiece EXCLUDE_FROM_ALL)
add_library(heed_spm INTERFACE)
target_link_libraries(heed_spm INTERFACE sentencepiece-static)
target_include_directories(heed_spm SYSTEM INTERFACE
                           ${HEED_WASM_SRC}/sentencepiece/src)

# nlohmann-json is header-only; -I/usr/include would pull in glibc's
# headers, so point at a folder that holds only nlohmann's.
set(HEED_JSON_INCLUDE ${CMAKE_BINARY_DIR}/json-include)
file(MAKE_DIRECTORY ${HEED_JSON_INCLUDE})
if(NOT EXISTS ${HEED_JSON_INCLUDE}/nlohmann)
  file(CREATE_LINK /usr/include/nlohmann ${HEED_JSON_INCLUDE}/nlohmann
       SYMBOLIC)
endif()
add_library(heed_json INTERFACE)
target_include_directories(heed_json SYSTEM INTERFACE ${HEED_JSON_INCLUDE})
