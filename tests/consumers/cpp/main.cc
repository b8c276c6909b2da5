// A program that uses heed as an installed package: translates each line of
// stdin with the model given, and prints the translation and the size of
// its cross-attention.
#include <core/translator.h>

#include <iostream>
#include <string>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: consumer MODEL LANG < text\n";
    return 2;
  }
  try {
    const heed::Translator t = heed::Translator::FromFile(argv[1]);
    heed::TranslateOptions o;
    o.to = argv[2];
    o.attention = true;
    std::string line;
    while (std::getline(std::cin, line)) {
      const heed::Result r = t.Translate(line, o);
      std::cout << r.text << '\n';
      std::cerr << "cross-attention floats: "
                << r.sentences.at(0).attention.cross.size() << '\n';
    }
  } catch (const heed::Error& e) {
    std::cerr << "consumer: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
