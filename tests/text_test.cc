// Tokenisation against the SentencePiece command-line tools, UTF-8
// validation and sentence splitting.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
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
    // spm_encode prints an unknown piece's surface text instead of <unk>.
    if (std::find(got.begin(), got.end(), 3) == got.end()) {
      CHECK(joined == piece_line);
    }
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

TEST_CASE("invalid UTF-8 is found, valid UTF-8 accepted") {
  size_t at = 99;
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
