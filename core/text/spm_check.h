// Structural checks of a serialized SentencePiece model that the library
// itself leaves out: its normaliser walks the precompiled charsmap (a
// darts-clone double array and a string table) without bounds checks, so a
// crafted model file could make tokenisation read outside its memory.
#ifndef HEED_CORE_TEXT_SPM_CHECK_H_
#define HEED_CORE_TEXT_SPM_CHECK_H_

#include <string>
#include <string_view>

namespace heed {

// Throws heed::Error naming `what` and the broken part if the protobuf
// framing of the model is malformed, a piece is empty or holds a NUL byte
// (the library's trie builder would abort), or a charsmap (normaliser or
// denormaliser) could lead a lookup outside the charsmap.
void CheckSentencePieceModel(std::string_view model_proto,
                             const std::string& what);

}  // namespace heed

#endif  // HEED_CORE_TEXT_SPM_CHECK_H_
