// Character references in HTML text: numeric ones (&#233; &#xE9;) and the
// named ones text uses most. One heed does not know is left in place as
// markup, so that nothing is lost either way.
#ifndef HEED_CORE_HTML_ENTITIES_H_
#define HEED_CORE_HTML_ENTITIES_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace heed {

// `text` starts with '&'. Returns the length of the reference (0 when there
// is none: a lone '&') and, when heed decodes it, appends its UTF-8 to *out
// and sets *decoded. A reference not decoded is one to keep verbatim.
size_t ReadEntity(std::string_view text, std::string* out, bool* decoded);

}  // namespace heed

#endif  // HEED_CORE_HTML_ENTITIES_H_
