// Sentences built from word lists, for JavaScript tests that need everyday
// input without ../shared/data (which a clean clone does not have): 200
// per language, subject × verb × place.
export function wordListSentences(lang, n = 200) {
  const words = lang === "en"
    ? [["A dog", "Two men", "The girl", "A woman", "Children"],
       ["runs", "plays", "sits", "waits", "walks"],
       ["in the park.", "on the street.", "near the water.", "at home.",
        "with a ball.", "under a tree.", "in the snow.", "by the car."]]
    : [["Ein Hund", "Zwei Männer", "Das Mädchen", "Eine Frau", "Kinder"],
       ["läuft", "spielt", "sitzt", "wartet", "geht"],
       ["im Park.", "auf der Straße.", "am Wasser.", "zu Hause.",
        "mit einem Ball.", "unter einem Baum.", "im Schnee.", "beim Auto."]];
  const out = [];
  for (const a of words[0]) for (const b of words[1]) for (const c of words[2]) {
    out.push(`${a} ${b} ${c}`);
  }
  return out.slice(0, n);
}
