// Tokenisation against the SentencePiece command-line tools, UTF-8
// validation and sentence splitting.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/text/sentences.h"
#include "core/text/tokenizer.h"
#include "core/text/utf8.h"
#include "tests/test_util.h"

namespace heed {
namespace {

// Runs a command with `input` on stdin and returns its stdout.
std::string Run(const std::string& command, const std::string& input) {
  const std::string in_path = "/tmp/heed_text_test_input.txt";
  {
    std::FILE* f = std::fopen(in_path.c_str(), "wb");
    REQUIRE(f != nullptr);
    std::fwrite(input.data(), 1, input.size(), f);
    std::fclose(f);
  }
  std::FILE* p = popen((command + " < " + in_path).c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  REQUIRE(pclose(p) == 0);
  return out;
}

TEST_CASE("tokenisation equals spm_encode and spm_decode") {
  const std::string model = test::Fixture("tiny_spm.model");
  const auto bytes = test::ReadBytes(model);
  const Tokenizer tok = Tokenizer::FromSerialized(
      std::string_view(reinterpret_cast<const char*>(bytes.data()),
                       bytes.size()),
      "fixture");
  const std::vector<std::string> lines = {
      "A dog runs in the park.", "Zwei Männer spielen Fußball auf einer Wiese.",
      "<2de> Hello, world!  Extra   spaces",
      "Emoji 😀 and symbols ©™ and Ελληνικά", "x"};
  std::string input;
  for (const auto& l : lines) input += l + "\n";
  std::istringstream ids(
      Run("spm_encode --model=" + model + " --output_format=id", input));
  std::istringstream pieces(
      Run("spm_encode --model=" + model + " --output_format=piece", input));
  for (const std::string& line : lines) {
    INFO(line);
    std::string id_line, piece_line;
    std::getline(ids, id_line);
    std::getline(pieces, piece_line);
    std::vector<int> want;
    std::istringstream split(id_line);
    for (int id; split >> id;) want.push_back(id);
    const std::vector<int> got = tok.Encode(line);
    CHECK(got == want);
    std::string joined;
    for (int id : got) joined += (joined.empty() ? "" : " ") + tok.Piece(id);
    // spm_encode prints an unknown piece's surface text instead of <unk>:
    // the text Encode gives for each.
    std::vector<std::string> unknowns, printed, want_unknowns;
    CHECK(tok.Encode(line, &unknowns) == want);
    std::istringstream words(piece_line);
    for (std::string w; words >> w;) printed.push_back(w);
    REQUIRE(printed.size() == got.size());
    for (size_t i = 0; i < got.size(); ++i) {
      if (got[i] == tok.unk_id()) want_unknowns.push_back(printed[i]);
    }
    CHECK(unknowns == want_unknowns);
    if (want_unknowns.empty()) CHECK(joined == piece_line);
    std::string decoded = Run(
        "spm_decode --model=" + model + " --input_format=id", id_line + "\n");
    decoded.pop_back();  // newline
    CHECK(tok.Decode(got) == decoded);
  }
  CHECK(tok.PieceId("<2de>") >= 0);
  CHECK(tok.PieceId("no such piece at all") == -1);
  CHECK(tok.Piece(-1).empty());
  CHECK(tok.Piece(100000).empty());
}

TEST_CASE("unknown pieces are decoded as the text given for them") {
  const auto bytes = test::ReadBytes(test::Fixture("tiny_spm.model"));
  const Tokenizer tok = Tokenizer::FromSerialized(
      std::string_view(reinterpret_cast<const char*>(bytes.data()),
                       bytes.size()),
      "fixture");
  std::vector<std::string> unknowns;
  const std::string text = "Emoji 😀 and ©™ in Tromsø.";
  const std::vector<int> ids = tok.Encode(text, &unknowns);
  REQUIRE(unknowns.size() >= 2);
  CHECK(std::count(ids.begin(), ids.end(), tok.unk_id()) ==
        static_cast<long>(unknowns.size()));
  // The library writes " ⁇ " for each; given their text back, the
  // round trip is exact.
  CHECK(tok.Decode(ids).find("\u2047") != std::string::npos);
  CHECK(tok.Decode(ids, unknowns) == text);
  // Given "" (or nothing), an unknown is dropped with one of its spaces.
  std::vector<std::string> none;
  const std::vector<int> spaced = tok.Encode("a 😀 b", &none);
  REQUIRE(none == std::vector<std::string>{"😀"});
  CHECK(tok.Decode(spaced, {""}) == "a b");
  CHECK(tok.Decode(spaced, {}) == "a b");
  CHECK(tok.Decode(spaced, {"<x>"}) == "a <x> b");
  // At either end of the text, too.
  CHECK(tok.Decode(tok.Encode("😀 b"), {}) == "b");
  CHECK(tok.Decode(tok.Encode("a 😀"), {}) == "a");
  CHECK(tok.Decode(tok.Encode("😀😀 b 😀"), {"x", ""}) == "x b");
  // A text without unknown pieces decodes as before.
  CHECK(tok.Decode(tok.Encode("A dog runs."), {"unused"}) == "A dog runs.");
}

// The shipped model's tokenizer (it has a normaliser charsmap; the fixture
// tokenizers have none).
std::string ShippedTokenizer() {
  const test::SplitFile f = test::Split(test::ReadBytes(
      std::string(HEED_SOURCE_DIR) + "/models/heed-en-de.heed"));
  const auto& range = f.header["tokenizer.source"]["data_offsets"];
  return std::string(f.data.begin() + range[0].get<size_t>(),
                     f.data.begin() + range[1].get<size_t>());
}

// Offset of the charsmap's first byte (its trie size) in a model whose
// normaliser is named nmt_nfkc: NormalizerSpec's field 1 is the name, field
// 2 the charsmap, whose length is a varint.
size_t CharsMapOffset(const std::string& spm) {
  const std::string name("\x0a\x08nmt_nfkc\x12", 11);
  size_t at = spm.find(name);
  REQUIRE(at != std::string::npos);
  at += name.size();
  while (static_cast<uint8_t>(spm[at]) & 0x80) ++at;
  return at + 1;
}

Tokenizer Load(const std::string& bytes) {
  return Tokenizer::FromSerialized(bytes, "tokenizer");
}

// Text that walks many of the normaliser's rules (full-width forms,
// ligatures, circled digits, combining marks).
const char* const kNormalised = "A dog. ｆｕｌｌ ﬁsh ① Ü Å ㍻ x\u0301 ...";

TEST_CASE("a crafted normaliser charsmap is refused before it is walked") {
  const std::string good = ShippedTokenizer();
  const size_t at = CharsMapOffset(good);
  const std::vector<int> ids = Load(good).Encode(kNormalised);
  CHECK(ids.size() > 10);
  auto refused = [&](const std::string& bytes, const std::string& why) {
    try {
      Load(bytes);
      FAIL("loaded: " << why);
    } catch (const Error& e) {
      INFO(e.what());
      CHECK(std::string(e.what()).find(why) != std::string::npos);
    }
  };
  std::string bad = good;  // an empty trie: the bytes of the crash report
  bad.replace(at + 1, 8, std::string("\0\0\0\0\xff\xff\xff\xff", 8));
  refused(bad, "the trie points outside itself");
  bad = good;  // a trie larger than the charsmap
  bad.replace(at, 4, std::string("\xff\xff\xff\x00", 4));
  refused(bad, "does not fit");
  bad = good;  // the root's children moved past the end
  bad[at + 4 + 3] = '\x7f';
  refused(bad, "the trie points outside itself");
  bad = good;  // the protobuf framing cut short
  bad.resize(at + 100);
  refused(bad, "malformed");
  // One more piece, empty (pieces: field 1; its text: field 1): the
  // library's trie builder would abort the process on it (fuzz_tokenizer).
  refused(good + std::string("\x0a\x02\x0a\x00", 4), "is empty");
  refused(good + std::string("\x0a\x00", 2), "is empty");
  refused(good + std::string("\x0a\x04\x0a\x02\x00x", 6), "NUL byte");
}

TEST_CASE("mutated charsmaps are refused or tokenise within bounds") {
  // Each mutant either fails to load with heed::Error or tokenises;
  // under ASan any read outside the charsmap fails the suite.
  const std::string good = ShippedTokenizer();
  const size_t at = CharsMapOffset(good);
  uint32_t trie_bytes = 0;
  std::memcpy(&trie_bytes, good.data() + at, 4);
  uint64_t state = 12345;
  int loaded = 0;
  for (int i = 0; i < 300; ++i) {
    std::string bad = good;
    for (int k = 0; k < 4; ++k) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      const size_t pos = at + (state >> 33) % (trie_bytes + 4 + 64);
      bad[pos] = static_cast<char>(state >> 24);
    }
    try {
      const Tokenizer t = Load(bad);
      t.Encode(kNormalised);
      ++loaded;
    } catch (const Error&) {
    }
  }
  CHECK(loaded > 0);  // a mutant in an unused unit or a rule still loads
}

TEST_CASE("invalid UTF-8 is found, valid UTF-8 accepted") {
  size_t at = 99;
  CHECK(IsInvisibleText(""));
  CHECK(IsInvisibleText(std::string(" \0\t\x7F", 4)));
  CHECK(IsInvisibleText("\u200B\u00AD\uFEFF\u2060\u3000\u00A0 \U000E0041"));
  CHECK_FALSE(IsInvisibleText("\u200Ba"));
  CHECK_FALSE(IsInvisibleText("\u00E9"));
  CHECK_FALSE(IsInvisibleText("\U0001F600"));
  CHECK(IsValidUtf8("", &at));
  CHECK(IsValidUtf8("plain ascii", &at));
  CHECK(IsValidUtf8("Größe 😀 \xF4\x8F\xBF\xBF", &at));  // U+10FFFF
  const struct {
    std::string text;
    size_t offset;
  } bad[] = {
      {"ab\xFF", 2},            // never valid
      {"\xC0\xAF", 0},          // overlong '/'
      {"\xE0\x80\xAF", 0},      // overlong
      {"ok\xED\xA0\x80", 2},    // UTF-16 surrogate
      {"\xF4\x90\x80\x80", 0},  // > U+10FFFF
      {"abc\xE2\x82", 3},       // truncated
      {"\xE2\x28\xA1", 0},      // bad continuation
  };
  for (const auto& b : bad) {
    INFO(b.text);
    CHECK_FALSE(IsValidUtf8(b.text, &at));
    CHECK(at == b.offset);
  }
}

std::vector<std::string> Sentences(const std::string& text) {
  std::vector<std::string> out;
  std::string joined;
  for (const Segment& s : SplitSentences(text)) {
    joined += s.text;
    if (s.is_sentence) out.push_back(s.text);
  }
  CHECK(joined == text);  // nothing lost
  return out;
}

TEST_CASE("sentence splitting keeps layout and respects abbreviations") {
  using V = std::vector<std::string>;
  CHECK(Sentences("").empty());
  CHECK(Sentences("  \n ").empty());
  CHECK(Sentences("One sentence") == V{"One sentence"});
  CHECK(Sentences("A dog runs. A cat sleeps!  Why? Yes.") ==
        V{"A dog runs.", "A cat sleeps!", "Why?", "Yes."});
  CHECK(Sentences("Line one\nLine two\n\nLine three") ==
        V{"Line one", "Line two", "Line three"});
  CHECK(Sentences("Dr. Smith met Mr. J. Jones at 5 p.m. today.") ==
        V{"Dr. Smith met Mr. J. Jones at 5 p.m. today."});
  CHECK(Sentences("A sign says E.S.E. Electronics here. Next.") ==
        V{"A sign says E.S.E. Electronics here.", "Next."});
  CHECK(Sentences("Er kam z.B. gestern. Sie nicht.") ==
        V{"Er kam z.B. gestern.", "Sie nicht."});
  CHECK(Sentences("He said \"Stop.\" Then he left... Fine") ==
        V{"He said \"Stop.\"", "Then he left...", "Fine"});
  CHECK(Sentences("Version 1.5 is out. it is lowercase next") ==
        V{"Version 1.5 is out. it is lowercase next"});
  CHECK(Sentences("Wait\xE2\x80\xA6 Then go.") ==
        V{"Wait\xE2\x80\xA6", "Then go."});
  CHECK(Sentences("Windows\r\nline") == V{"Windows", "line"});
}

}  // namespace
}  // namespace heed
