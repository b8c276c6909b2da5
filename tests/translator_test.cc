// The public API on awkward input: empty, huge, invalid or hostile text,
// bad options, concurrent use.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/translator.h"
#include "tests/test_util.h"

namespace heed {
namespace {

const Translator& Tiny() {
  static const Translator t =
      Translator::FromFile(test::Fixture("tiny_prenorm.heed"));
  return t;
}

TranslateOptions To(const char* lang) {
  TranslateOptions o;
  o.to = lang;
  return o;
}

TEST_CASE("empty and blank text translate to themselves") {
  CHECK(Tiny().Translate("", To("de")).text.empty());
  CHECK(Tiny().Translate("", To("de")).sentences.empty());
  const Result r = Tiny().Translate(" \n\t\n", To("de"));
  CHECK(r.text == " \n\t\n");
  CHECK(r.target_tokens == 0);
}

TEST_CASE("paragraphs are translated sentence by sentence, layout kept") {
  const std::string a = "A dog runs.", b = "Ein Hund.", c = "Two men.";
  const Result whole =
      Tiny().Translate(a + " " + b + "\n\n" + c + "\n", To("en"));
  REQUIRE(whole.sentences.size() == 3);
  std::vector<std::string> parts;
  for (const std::string& s : {a, b, c}) {
    parts.push_back(Tiny().Translate(s, To("en")).text);
  }
  CHECK(whole.text == parts[0] + " " + parts[1] + "\n\n" + parts[2] + "\n");
  CHECK(whole.sentences[1].source == b);
}

TEST_CASE("a batch of texts equals the texts one by one") {
  const std::vector<std::string> texts = {
      "A dog runs in the park.", "", "Ein Hund.", "A little girl climbing."};
  TranslateOptions o = To("de");
  o.max_batch = 3;
  const auto batch = Tiny().Translate(texts, o);
  REQUIRE(batch.size() == texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    CHECK(batch[i].text == Tiny().Translate(texts[i], o).text);
  }
}

TEST_CASE("each sentence is handed over as soon as its batch is done") {
  const std::vector<std::string> texts = {"A dog runs. Two men.\nA girl.", "",
                                          "Ein Hund. Eine Katze."};
  TranslateOptions o = To("de");
  o.max_batch = 2;
  o.attention = true;
  std::vector<std::pair<size_t, SentenceResult>> seen;
  const auto results =
      Tiny().Translate(texts, o, [&](size_t text, const SentenceResult& s) {
        seen.emplace_back(text, s);
      });
  const auto plain = Tiny().Translate(texts, o);
  REQUIRE(seen.size() == 5);
  size_t k = 0;
  for (size_t i = 0; i < texts.size(); ++i) {
    CHECK(results[i].text == plain[i].text);
    const auto segments = Tiny().Split(texts[i]);
    for (const SentenceResult& s : results[i].sentences) {
      CHECK(seen[k].first == i);
      CHECK(seen[k].second.best.text == s.best.text);
      CHECK(seen[k].second.attention.cross == s.attention.cross);
      CHECK(segments.at(s.segment).text == s.source);
      ++k;
    }
  }
  // An exception from the callback ends the call; the translator goes on.
  CHECK_THROWS_WITH(Tiny().Translate(texts, o,
                                     [](size_t, const SentenceResult&) {
                                       throw Error("stop here");
                                     }),
                    "stop here");
  CHECK(Tiny().Translate(texts, o)[0].text == plain[0].text);
}

TEST_CASE("a request is cancelled between decoding steps") {
  const std::string text(2000, 'a');  // long: many steps, several pieces
  for (size_t threads : {1, 2}) {
    INFO("threads ", threads);
    TranslateOptions o = To("de");
    o.threads = threads;
    o.max_batch = 1;
    std::atomic<int> polls{0};
    o.cancelled = [&polls] { return ++polls >= 5; };
    CHECK_THROWS_AS(Tiny().Translate(text, o), Cancelled);
    CHECK(polls.load() <= 5 + static_cast<int>(threads));  // stops at once
    o.cancelled = [] { return false; };
    const Result r = Tiny().Translate("A dog runs.", o);
    CHECK(r.text == Tiny().Translate("A dog runs.", To("de")).text);
  }
}

TEST_CASE("a text over max_input_bytes is refused, naming the limit") {
  TranslateOptions o = To("de");
  o.max_input_bytes = 10;
  CHECK(Tiny().Translate("A dog run.", o).sentences.size() == 1);
  try {
    Tiny().Translate(std::vector<std::string>{"A dog.", "A dog runs."}, o);
    FAIL("no error");
  } catch (const TextError& e) {
    CHECK(e.text() == 1);
    CHECK(std::string(e.what()) ==
          "text 1 is 11 bytes, over the limit of 10 (max_input_bytes): split "
          "it or raise the limit");
  }
  o.max_input_bytes = 0;
  CHECK_THROWS_WITH(Tiny().Translate("", o),
                    "max input bytes must be in [1, 2^30], not 0 "
                    "(max_input_bytes)");
}

TEST_CASE("batches on several threads give the one-thread result") {
  std::vector<std::string> texts;
  for (int i = 0; i < 9; ++i) {
    texts.push_back("A dog runs. Two men play " + std::to_string(i) + ".");
  }
  TranslateOptions o = To("de");
  o.max_batch = 2;
  o.attention = true;
  const auto one = Tiny().Translate(texts, o);
  // (threads, max_batch): a wave of 18 units shared 9 + 9, full waves of
  // 2-unit batches, and waves whose last batches are short.
  for (const auto& [threads, batch] :
       {std::pair<size_t, size_t>{2, 32}, {2, 2}, {3, 2}, {8, 2}, {4, 3}}) {
    o.threads = threads;
    o.max_batch = batch;
    INFO("threads ", o.threads, ", max_batch ", o.max_batch);
    const auto many = Tiny().Translate(texts, o);
    REQUIRE(many.size() == one.size());
    for (size_t i = 0; i < texts.size(); ++i) {
      CHECK(many[i].text == one[i].text);
      REQUIRE(many[i].sentences.size() == one[i].sentences.size());
      for (size_t s = 0; s < one[i].sentences.size(); ++s) {
        CHECK(many[i].sentences[s].best.score ==
              one[i].sentences[s].best.score);
        CHECK(many[i].sentences[s].attention.cross ==
              one[i].sentences[s].attention.cross);
      }
    }
  }
  o.threads = 0;
  CHECK_THROWS_WITH_AS(Tiny().Translate("x", o), doctest::Contains("threads"),
                       Error);
  // Bad options are refused before any thread starts.
  o.threads = 2;
  o.masked_heads = {HeadRef{AttentionKind::kCross, 9, 0}};
  CHECK_THROWS_AS(Tiny().Translate(texts, o), Error);
}

TEST_CASE("invalid UTF-8 is an error that names the text and byte") {
  CHECK_THROWS_WITH_AS(
      Tiny().Translate(std::vector<std::string>{"ok", "bad \xFF"}, To("de")),
      doctest::Contains("text 1 is not valid UTF-8 (byte 4)"), Error);
  // Lone surrogates (as a broken UTF-16 conversion leaves them).
  CHECK_THROWS_AS(Tiny().Translate("x \xED\xB0\x80", To("de")), Error);
  CHECK(!Tiny().Translate("still works.", To("de")).text.empty());
}

TEST_CASE("emoji, control characters and markup are just text") {
  for (const char* text :
       {"😀😀😀", "\x01\x02\x7f tab\there", "<img src=x onerror=alert(1)>",
        "\xEF\xBB\xBF"
        "BOM first"}) {
    INFO(text);
    const Result r = Tiny().Translate(text, To("de"));
    CHECK(r.sentences.size() >= 1);
  }
}

TEST_CASE("a 10,000-word line is translated in pieces") {
  std::string line;
  for (int i = 0; i < 10000; ++i) line += i % 2 ? "dog " : "park ";
  TranslateOptions o = To("de");
  o.beam_size = 1;
  o.max_length_ratio = 0.05f;  // keeps the random model's output short
  o.max_length_extra = 1;
  o.max_sentence_tokens = 512;
  const Result r = Tiny().Translate(line, o);
  CHECK(r.sentences.size() > 10);
  for (const SentenceResult& s : r.sentences) CHECK(s.source_ids.size() <= 512);
}

TEST_CASE("options are checked with clear messages") {
  CHECK_THROWS_WITH_AS(
      Tiny().Translate("x", To("fr")),
      doctest::Contains("'fr' is not one of this model's: de, en"), Error);
  CHECK_THROWS_WITH_AS(Tiny().Translate("x", TranslateOptions{}),
                       doctest::Contains("target language"), Error);
  TranslateOptions o = To("de");
  o.beam_size = 0;
  CHECK_THROWS_WITH_AS(Tiny().Translate("x", o), doctest::Contains("beam size"),
                       Error);
  o = To("de");
  o.nbest = 9;
  CHECK_THROWS_WITH_AS(Tiny().Translate("x", o), doctest::Contains("n-best"),
                       Error);
  o = To("de");
  o.masked_heads = {HeadRef{AttentionKind::kCross, 2, 0}};
  CHECK_THROWS_WITH_AS(Tiny().Translate("x", o),
                       doctest::Contains("does not exist"), Error);
  o = To("de");
  o.max_sentence_tokens = 1;
  CHECK_THROWS_AS(Tiny().Translate("x", o), Error);
}

TEST_CASE("attention, n-best and alternatives are returned when asked") {
  TranslateOptions o = To("de");
  o.nbest = 3;
  const Result plain = Tiny().Translate("A dog runs.", o);
  CHECK(plain.sentences[0].attention.encoder.empty());
  CHECK(plain.sentences[0].nbest.size() == 3);
  o.attention = true;
  const Result r = Tiny().Translate("A dog runs.", o);
  const SentenceResult& s = r.sentences[0];
  const Attention& a = s.attention;
  const ModelConfig& c = Tiny().config();
  CHECK(a.source == s.source_pieces.size());
  CHECK(a.target == s.best.pieces.size());
  CHECK(a.encoder.size() == c.encoder_layers * c.heads * a.source * a.source);
  CHECK(a.decoder.size() == c.decoder_layers * c.heads * a.target * a.target);
  CHECK(a.cross.size() == c.decoder_layers * c.heads * a.target * a.source);
  CHECK(s.alternatives.size() == a.target);
  CHECK(s.best.text == plain.sentences[0].best.text);  // capture is passive
  CHECK(s.source_pieces.front() == "<2de>");
  CHECK(s.source_pieces.back() == "</s>");
}

TEST_CASE("masking every head of a layer changes the translation's scores") {
  TranslateOptions o = To("de");
  const Result base = Tiny().Translate("A dog runs in the park.", o);
  for (size_t h = 0; h < Tiny().config().heads; ++h) {
    o.masked_heads.push_back(HeadRef{AttentionKind::kCross, 1, h});
  }
  const Result ablated = Tiny().Translate("A dog runs in the park.", o);
  CHECK((ablated.text != base.text ||
         ablated.sentences[0].best.score != base.sentences[0].best.score));
  o.masked_heads.clear();
  CHECK(
      Tiny().Translate("A dog runs in the park.", o).sentences[0].best.score ==
      base.sentences[0].best.score);
}

TEST_CASE("options are checked before any work, for empty input too") {
  TranslateOptions o = To("de");
  o.beam_size = 0;
  CHECK_THROWS_WITH_AS(Tiny().Translate("", o), doctest::Contains("beam size"),
                       Error);
  o = To("de");
  o.repetition_penalty = -1.0f;
  CHECK_THROWS_WITH_AS(Tiny().Translate(std::vector<std::string>{}, o),
                       doctest::Contains("repetition penalty"), Error);
}

TEST_CASE("attention for a huge text is refused up front, with the limit") {
  std::string text;
  for (int i = 0; i < 3000; ++i) text += "dog ";
  TranslateOptions o = To("de");
  o.attention = true;
  o.max_attention_bytes = 16 << 20;
  CHECK_THROWS_WITH_AS(Tiny().Translate(text, o),
                       doctest::Contains("max_attention_bytes"), Error);
  o.attention = false;  // the limit applies only to attention
  CHECK_FALSE(Tiny().Translate("A dog runs.", o).text.empty());
  o.attention = true;
  CHECK(Tiny().Translate("A dog runs.", o).sentences.at(0).attention.heads > 0);
  // Contributions keep (2 + 1/heads) times the maps: the smallest power of
  // two that the attention alone fits in refuses them.
  TranslateOptions small = To("de");
  small.attention = true;
  size_t limit = 1024;
  for (bool fits = false; !fits; limit *= 2) {
    REQUIRE(limit < (size_t{1} << 30));
    small.max_attention_bytes = limit;
    try {
      Tiny().Translate("A dog runs.", small);
      fits = true;
    } catch (const Error&) {
    }
  }
  small.max_attention_bytes = limit / 2;
  CHECK_NOTHROW(Tiny().Translate("A dog runs.", small));
  small.contributions = true;
  CHECK_THROWS_WITH_AS(Tiny().Translate("A dog runs.", small),
                       doctest::Contains("max_attention_bytes"), Error);
}

TEST_CASE("a target prefix, as text or pieces, starts the translation") {
  TranslateOptions o = To("de");
  const Result free = Tiny().Translate("A dog runs.", o);
  o.target_prefix_pieces = {free.sentences[0].nbest[0].pieces.at(1)};
  const Result forced = Tiny().Translate("A dog runs.", o);
  CHECK(forced.sentences[0].best.pieces.at(0) == o.target_prefix_pieces[0]);
  o.target_prefix_pieces.clear();
  for (const char* prefix : {"Ein", "Zwei große Hunde"}) {
    o.target_prefix = prefix;
    const std::string text = Tiny().Translate("A dog runs.", o).text;
    CHECK_MESSAGE(text.rfind(prefix, 0) == 0, text);
  }
  // Bad prefixes: clear errors, and the translator keeps working.
  o.target_prefix = "x \xFF";
  CHECK_THROWS_WITH_AS(Tiny().Translate("A dog.", o),
                       doctest::Contains("not valid UTF-8"), Error);
  o.target_prefix = "";
  o.target_prefix_pieces = {"<no such piece>"};
  CHECK_THROWS_WITH_AS(Tiny().Translate("A dog.", o),
                       doctest::Contains("not a piece"), Error);
  o.target_prefix_pieces = {"</s>"};
  CHECK_THROWS_AS(Tiny().Translate("A dog.", o), Error);
  o.target_prefix_pieces.clear();
  o.target_prefix = "Ein";
  CHECK_THROWS_WITH_AS(Tiny().Translate("A dog. A cat.", o),
                       doctest::Contains("exactly one sentence"), Error);
  CHECK(Tiny().Translate("A dog.", To("de")).text ==
        Tiny().Translate("A dog.", To("de")).text);
}

TEST_CASE(
    "a prefix the model cannot write exactly, or that a text cannot take, is "
    "refused") {
  TranslateOptions o = To("de");
  o.target_prefix =
      "\xE6\x97\xA5\xE6\x9C\xAC";  // no such characters in its pieces
  CHECK_THROWS_WITH_AS(Tiny().Translate("A dog.", o),
                       doctest::Contains("cannot write"), Error);
  o.target_prefix.clear();
  for (const auto& entry : Tiny().config().target_tags) {
    o.target_prefix_pieces = {entry.second};  // a language tag
    CHECK_THROWS_WITH_AS(Tiny().Translate("A dog.", o),
                         doctest::Contains("not a piece"), Error);
  }
  o.target_prefix_pieces.clear();
  // Thirty tokens: more than a one-word text may produce, less than a long
  // one may; the short text alone is refused, by its index.
  o.target_prefix.clear();
  for (int i = 0; i < 30; ++i) o.target_prefix += "Hund ";
  try {
    Tiny().Translate(
        std::vector<std::string>{
            "A dog runs in the park near the old river bank today.", "Hi."},
        o);
    FAIL("no error");
  } catch (const TextError& e) {
    CHECK(e.text() == 1);
    CHECK(std::string(e.reason()).find("too short for the target prefix") !=
          std::string::npos);
  }
  // A blank text with a prefix translates to nothing.
  o.target_prefix = "Ein";
  const auto blank =
      Tiny().Translate(std::vector<std::string>{"A dog.", "", "Two men."}, o);
  CHECK(blank[1].text.empty());
  CHECK(blank[1].sentences.empty());
  CHECK(blank[2].text.rfind("Ein", 0) == 0);
}

TEST_CASE("the attention limit holds per text, naming the text") {
  // The smallest power of two that one text's maps fit in...
  TranslateOptions o = To("de");
  o.attention = true;
  const std::string text = "A dog runs in the park.";
  size_t limit = 1024;
  for (bool fits = false; !fits; limit *= 2) {
    REQUIRE(limit < (size_t{1} << 30));
    o.max_attention_bytes = limit;
    try {
      Tiny().Translate(text, o);
      fits = true;
    } catch (const Error&) {
    }
  }
  // ...holds for each of three such texts in one call (not their sum)...
  o.max_attention_bytes = limit / 2;
  CHECK(
      Tiny().Translate(std::vector<std::string>{text, text, text}, o).size() ==
      3);
  // ...and a larger text is refused by its index.
  try {
    Tiny().Translate(std::vector<std::string>{text, text + " " + text, text},
                     o);
    FAIL("no error");
  } catch (const TextError& e) {
    CHECK(e.text() == 1);
    CHECK(std::string(e.reason()).find("max_attention_bytes") !=
          std::string::npos);
  }
}

TEST_CASE("a translation copies the source characters its vocabulary lacks") {
  static const Translator shipped = Translator::FromFile(
      std::string(HEED_SOURCE_DIR) + "/models/heed-en-de-int8.heed");
  const int unk = shipped.config().unk_id;
  const std::string text = "Ålesund und Tromsø sind Städte in Norwegen.";
  TranslateOptions o = To("en");
  o.attention = true;
  const SentenceResult s = shipped.Translate(text, o).sentences.at(0);
  std::vector<size_t> sources, targets;  // positions of unknown pieces
  for (size_t i = 0; i < s.source_ids.size(); ++i) {
    if (s.source_ids[i] == unk) sources.push_back(i);
  }
  for (size_t t = 0; t < s.best.ids.size(); ++t) {
    if (s.best.ids[t] == unk) targets.push_back(t);
  }
  const std::vector<std::string> surfaces = {"Å", "ø"};
  REQUIRE(sources.size() == surfaces.size());
  REQUIRE_MESSAGE(!targets.empty(), "the model wrote no unknown piece here");
  CHECK(s.best.text.find("\u2047") == std::string::npos);
  // Each is the source unknown the last decoder layer weighs most, summed
  // over its heads, found in the text in order.
  const Attention& a = s.attention;
  const size_t last = a.decoder_layers - 1;
  size_t at = 0;
  for (size_t t : targets) {
    size_t best = 0;
    float best_weight = -1.0f;
    for (size_t k = 0; k < sources.size(); ++k) {
      float w = 0.0f;
      for (size_t h = 0; h < a.heads; ++h) {
        w += a.cross[((last * a.heads + h) * a.target + t) * a.source +
                     sources[k]];
      }
      if (w > best_weight) {
        best_weight = w;
        best = k;
      }
    }
    INFO(s.best.text);
    at = s.best.text.find(surfaces[best], at);
    REQUIRE(at != std::string::npos);
    at += surfaces[best].size();
  }
  // Every hypothesis of an n-best list copies; so does a sentence cut into
  // pieces, each piece from its own source text.
  TranslateOptions many = To("en");
  many.nbest = 3;
  const Result listed = shipped.Translate(text, many);
  for (const Translation& t : listed.sentences.at(0).nbest) {
    CHECK(t.text.find("\u2047") == std::string::npos);
  }
  TranslateOptions cut = To("en");
  cut.max_sentence_tokens = 8;
  const Result pieces = shipped.Translate(text, cut);
  REQUIRE(pieces.sentences.size() >= 2);
  CHECK(pieces.text.find("\u2047") == std::string::npos);
  std::string cut_sources;
  for (const SentenceResult& p : pieces.sentences) cut_sources += p.source;
  CHECK(cut_sources.find("Å") != std::string::npos);
  CHECK(cut_sources.find("ø") != std::string::npos);
  // Switched off, the library's " ⁇ " stays, one per unknown piece.
  o.copy_unknown = false;
  const std::string kept = shipped.Translate(text, o).text;
  size_t marks = 0;
  for (size_t p = kept.find("\u2047"); p != std::string::npos;
       p = kept.find("\u2047", p + 1)) {
    ++marks;
  }
  CHECK(marks == targets.size());
}

TEST_CASE("split and positional encoding through the public API") {
  const std::string text = "A dog runs.  Two men play.\n";
  std::string joined;
  size_t sentences = 0;
  for (const Segment& s : Tiny().Split(text)) {
    joined += s.text;
    sentences += s.is_sentence;
  }
  CHECK(joined == text);
  CHECK(sentences == 2);
  const size_t d = Tiny().config().d_model;
  const std::vector<float> pe = Tiny().PositionalEncoding(3);
  REQUIRE(pe.size() == 3 * d);
  CHECK(pe[0] == 0.0f);  // sin(0)
  CHECK(pe[1] == 1.0f);  // cos(0)
  CHECK(pe[d] == doctest::Approx(std::sin(1.0)));
  CHECK(pe[d + 1] == doctest::Approx(std::cos(1.0)));
  CHECK_THROWS_AS(Tiny().PositionalEncoding(4097), Error);
}

TEST_CASE("HTML mode says where each inline element went") {
  static const Translator shipped = Translator::FromFile(
      std::string(HEED_SOURCE_DIR) + "/models/heed-en-de-int8.heed");
  TranslateOptions o = To("de");
  o.html = true;
  const Result r = shipped.Translate(
      "<p>Click <a href=\"/x\">here</a> to <b>book</b> a table.</p>", o);
  REQUIRE(r.tags.size() == 2);
  CHECK(r.tags[0].tag == "<a href=\"/x\">");
  CHECK(r.tags[0].source == "here");
  CHECK(r.tags[1].source == "book");
  for (const HtmlTag& t : r.tags) {
    CHECK(!t.target.empty());
    CHECK(r.text.find(t.tag + t.target) != std::string::npos);
  }
  CHECK(r.sentences.size() == 1);
  CHECK(r.sentences[0].attention.cross.empty());  // not asked for
  // Many elements around long text: each described in at most 1,000 bytes.
  std::string many;
  for (int i = 0; i < 20000; ++i) many += "<b>";
  for (int i = 0; i < 150; ++i) many += "A dog runs. ";
  const Result big = shipped.Translate(many, o);
  REQUIRE(big.tags.size() == 20000);
  CHECK(big.tags[0].source.size() <= 1003);
  CHECK(big.tags[0].source.compare(big.tags[0].source.size() - 3, 3,
                                   "\u2026") == 0);
  CHECK(big.tags[19999].tag == "<b>");
  // The input limit counts the markup too.
  o.max_input_bytes = 1000;
  CHECK_THROWS_WITH_AS(shipped.Translate(std::string(2000, '<') + "b>x", o),
                       doctest::Contains("bytes of HTML, over the limit"),
                       TextError);
  o.html = false;
  CHECK(shipped.Translate("A dog.", o).tags.empty());
}

TEST_CASE("split reports a sentence exactly when translate translates one") {
  // Text of white space, control and format characters only (NUL too,
  // which the shipped model's normaliser would read as an unknown piece)
  // is copied as it is, and split does not call it a sentence either,
  // whatever the tokenizer's normaliser does.
  static const Translator shipped = Translator::FromFile(
      std::string(HEED_SOURCE_DIR) + "/models/heed-en-de-int8.heed");
  const TranslateOptions o = To("de");
  for (const Translator* t : {&shipped, &Tiny()}) {
    for (const std::string text :
         {"\u200b", "\x1f", "\u200b\u200b.", "A dog.\n\u200b\nA cat.",
          "\xef\xbb\xbf", " \x1f "}) {
      size_t sentences = 0;
      std::string joined;
      for (const Segment& s : t->Split(text)) {
        sentences += s.is_sentence;
        joined += s.text;
      }
      CHECK(joined == text);
      const Result r = t->Translate(text, o);
      CHECK(r.sentences.size() == sentences);
      if (sentences == 0) CHECK(r.text == text);
    }
  }
  for (const Translator* t : {&shipped, &Tiny()}) {
    const std::string nul("\0 \x1f", 3);
    CHECK(t->Translate(nul, o).text == nul);
    CHECK(t->Translate(nul, o).sentences.empty());
    CHECK(t->Split("\u200b\u00ad")[0].is_sentence == false);
  }
  CHECK(shipped.Split("\u200b").empty() == false);
  CHECK(shipped.Split("\u200b")[0].is_sentence == false);
  CHECK(shipped.Translate("\u200b \x1f", o).text == "\u200b \x1f");
  CHECK(shipped.Split("A dog.\n\u200b\nA cat.").size() == 5);
  CHECK(shipped.Translate("A dog.\n\u200b\nA cat.", o).sentences.size() == 2);
}

TEST_CASE("concurrent translations give the sequential results") {
  const std::vector<std::string> texts = {"A dog runs.", "Two men play.",
                                          "Ein Hund.", "Zwei Männer."};
  std::vector<std::string> want;
  for (const auto& t : texts)
    want.push_back(Tiny().Translate(t, To("en")).text);
  std::vector<std::string> got(texts.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < texts.size(); ++i) {
    threads.emplace_back(
        [&, i] { got[i] = Tiny().Translate(texts[i], To("en")).text; });
  }
  for (auto& t : threads) t.join();
  CHECK(got == want);
}

}  // namespace
}  // namespace heed
