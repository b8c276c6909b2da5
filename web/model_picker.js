// "Open a model…": any .heed file (one heed's recipe trained, or a Marian
// model converted by models/recipe/marian.py import), picked or dropped on
// the page, runs here with every view. The file is read in this browser;
// nothing is uploaded.

/**
 * Calls onOpen(file) for a file picked in `input` or dropped anywhere on
 * the page, and onReset() for the `reset` button.
 */
export function wireModelPicker({ input, reset, onOpen, onReset }) {
  input.addEventListener("change", () => {
    const file = input.files?.[0];
    input.value = "";  // the same file may be picked again
    if (file) onOpen(file);
  });
  const carriesFiles = (e) => [...(e.dataTransfer?.types ?? [])].includes("Files");
  document.addEventListener("dragover", (e) => {
    if (!carriesFiles(e)) return;  // text dragged into the box stays text
    e.preventDefault();
    document.body.classList.add("dropping");
  });
  document.addEventListener("dragleave", (e) => {
    if (e.relatedTarget === null) document.body.classList.remove("dropping");
  });
  document.addEventListener("drop", (e) => {
    document.body.classList.remove("dropping");
    const file = e.dataTransfer?.files?.[0];
    if (!file) return;
    e.preventDefault();
    onOpen(file);
  });
  reset.addEventListener("click", onReset);
}

/**
 * The direction menu for a model's target languages: English–German keeps
 * the page's menu (`standard`, with Detect); another model gets one "Into
 * X" entry per language, or one "Translate" for a single-target model.
 * Values are "from-to", with "any" as the unknown source language.
 */
export function directionOptions(languages, standard) {
  if (languages.length === 2 && languages.includes("en") && languages.includes("de")) {
    return standard.map((o) => o.cloneNode(true));
  }
  const names = new Intl.DisplayNames(["en"], { type: "language", fallback: "code" });
  const entries = languages.length ? languages : [""];
  return entries.map((lang) => Object.assign(document.createElement("option"), {
    value: `any-${lang}`,
    textContent: lang ? `Into ${names.of(lang)} (${lang})` : "Translate",
  }));
}
