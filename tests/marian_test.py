"""Marian models in and out (models/recipe/marian.py): the round trip
heed -> Marian -> heed, Marian's conventions, and hostile Marian files."""
import json
import os
import struct
import subprocess
import sys
import tempfile
import unittest

import numpy as np
import torch

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "models", "recipe"))
import heedfile  # noqa: E402
import marian  # noqa: E402
import marian_int8  # noqa: E402
import transformer  # noqa: E402

FIXTURES = os.path.join(ROOT, "tests", "fixtures")
TINY = os.path.join(FIXTURES, "tiny_marian.heed")
HEED = os.path.join(ROOT, "build", "release", "heed")
SENTENCES = "A dog runs in the park.\nTwo men play football.\n"


def export(model, folder):
    marian.export(model, folder)
    return (os.path.join(folder, "model.bin"),
            [os.path.join(folder, "vocab.src.spm"),
             os.path.join(folder, "vocab.trg.spm")])


def translate(model):
    return subprocess.run(
        [HEED, "translate", "--model", model, "--to", "de", "--beam", "4"],
        input=SENTENCES, capture_output=True, text=True, check=True).stdout


class RoundTrip(unittest.TestCase):
    def test_heed_marian_heed_is_the_same_model(self):
        with tempfile.TemporaryDirectory() as work:
            binary, vocabs = export(TINY, work)
            out = os.path.join(work, "back.heed")
            marian.import_model(binary, vocabs, out)
            _, c0, t0 = heedfile.read(TINY)
            _, c1, t1 = heedfile.read(out)
            self.assertEqual(transformer.full_config(c0),
                             transformer.full_config(c1))
            self.assertEqual(sorted(t0), sorted(t1))
            for name in t0:
                np.testing.assert_array_equal(t0[name], t1[name], name)
            self.assertEqual(translate(TINY), translate(out))

    def test_npz_as_opus_mt_ships_it(self):
        with tempfile.TemporaryDirectory() as work:
            binary, vocabs = export(TINY, work)
            items = marian.read_bin(binary)
            arrays = {name: np.frombuffer(blob, "<f4").reshape(shape)
                      if kind == marian.FLOAT32 else
                      np.frombuffer(blob, np.int8)
                      for name, (kind, shape, blob) in items.items()}
            npz = os.path.join(work, "model.npz")
            np.savez(npz, **arrays)
            out = os.path.join(work, "back.heed")
            marian.import_model(npz, vocabs, out)
            self.assertEqual(translate(TINY), translate(out))


def opus_mt_like(work, extra=(), drop=()):
    """TINY as OPUS-MT ships a model: an .npz whose rows follow a vocab.yml
    (</s> 0, <unk> 1, the rest shuffled, no <pad>; `extra` entries only the
    vocabulary has, `drop`ped pieces it lacks), beside the unchanged
    SentencePiece model. Returns the npz, the spm and the yml paths."""
    binary, vocabs = export(TINY, work)
    items = marian.read_bin(binary)
    arrays = {name: np.frombuffer(blob, "<f4").reshape(shape)
              if kind == marian.FLOAT32 else np.frombuffer(blob, np.int8)
              for name, (kind, shape, blob) in items.items()}
    with open(vocabs[1], "rb") as f:
        spm_model = f.read()
    import sentencepiece as spm
    sp = spm.SentencePieceProcessor(model_proto=spm_model)
    old = {sp.id_to_piece(i): i for i in range(sp.get_piece_size())}
    rest = [p for p in old if p not in ("</s>", "<unk>", "<pad>") + tuple(drop)]
    np.random.default_rng(7).shuffle(rest)
    order = ["</s>", "<unk>"] + rest + list(extra)
    rows = [old.get(p, old["<unk>"]) for p in order]
    arrays["Wemb"] = arrays["Wemb"][rows]
    bias = arrays["decoder_ff_logit_out_b"][:, rows].copy()
    bias[0, len(order) - len(extra):] = -1e4  # never written
    arrays["decoder_ff_logit_out_b"] = bias
    yml = bytes(arrays["special:model.yml"]).decode()
    yml = yml.replace(f"  - {len(old)}", f"  - {len(order)}")
    arrays["special:model.yml"] = np.frombuffer(yml.encode(), np.int8)
    npz = os.path.join(work, "opus.npz")
    np.savez(npz, **arrays)
    path = os.path.join(work, "opus.vocab.yml")
    with open(path, "w", encoding="utf-8") as f:
        for i, p in enumerate(order):  # quoted where YAML needs it
            plain = p.replace("▁", "").isalnum()
            f.write(f"{p}: {i}\n" if plain else
                    f"{json.dumps(p, ensure_ascii=False)}: {i}\n")
    src = os.path.join(work, "source.spm")
    with open(src, "wb") as f:
        f.write(spm_model)
    return npz, src, path


class OpusMt(unittest.TestCase):
    def test_a_vocab_yml_numbers_the_pieces(self):
        for drop in ((), ("<s>",)):  # OPUS-MT's vocabularies, with and without
            with self.subTest(drop=drop):
                self.numbered_like_opus_mt(drop)

    def numbered_like_opus_mt(self, drop):
        with tempfile.TemporaryDirectory() as work:
            npz, spm_path, yml = opus_mt_like(work, extra=[">>fra<<"],
                                              drop=drop)
            out = os.path.join(work, "opus.heed")
            marian.import_model(npz, [spm_path], out, ids=yml)
            _, c, t = heedfile.read(out)
            ids = marian.read_vocab_yml(yml)
            import sentencepiece as spm
            sp = spm.SentencePieceProcessor(
                model_proto=bytes(t["tokenizer.source"]))
            self.assertEqual(sp.get_piece_size(), len(ids) + 1)
            for piece, i in ids.items():
                self.assertEqual(sp.piece_to_id(piece), i, piece)
            self.assertEqual((c["eos_id"], c["unk_id"], c["pad_id"]),
                             (0, 1, len(ids)))
            self.assertEqual(c["bos_id"], ids.get("<s>", len(ids)))
            self.assertEqual(c["target_tags"],
                             {"de": "<2de>", "en": "<2en>", "fra": ">>fra<<"})
            # The same pieces, the same rows: the same translations.
            _, _, t0 = heedfile.read(TINY)
            sp0 = spm.SentencePieceProcessor(
                model_proto=bytes(t0["tokenizer.source"]))
            emb = t["encoder.embed_tokens.weight"]
            for piece in ("▁", "e", "<2de>"):
                np.testing.assert_array_equal(
                    emb[sp.piece_to_id(piece)],
                    t0["encoder.embed_tokens.weight"][sp0.piece_to_id(piece)])
            # What the vocabulary lacks, the model cannot write.
            reference = os.path.join(work, "reference.heed")
            _, c0, t0 = heedfile.read(TINY)
            t0 = dict(t0, **{"output_projection.bias": np.array(
                t0["output_projection.bias"], np.float32)})
            for piece in drop:
                t0["output_projection.bias"][sp0.piece_to_id(piece)] = -1e4
            heedfile.write(reference, c0, t0, np.float32)
            self.assertEqual(translate(reference), translate(out))

    def test_what_heed_cannot_read_is_refused(self):
        with tempfile.TemporaryDirectory() as work:
            npz, spm_path, yml = opus_mt_like(work, drop=["e"])
            with self.assertRaisesRegex(ValueError, "not in the vocabulary"):
                marian.import_model(npz, [spm_path],
                                    os.path.join(work, "x.heed"), ids=yml)
            with open(yml, "a", encoding="utf-8") as f:
                f.write("nonsense\n")
            with self.assertRaisesRegex(ValueError, "not a 'piece: id' line"):
                marian.read_vocab_yml(yml)
            with open(yml, "w", encoding="utf-8") as f:
                f.write('"<unk>": 0\n"</s>": 1\n')
            with self.assertRaisesRegex(ValueError, "</s> must be 0"):
                marian.read_vocab_yml(yml)


class Conventions(unittest.TestCase):
    def test_the_permutation_alone_is_the_same_function(self):
        _, config, tensors = heedfile.read(
            os.path.join(FIXTURES, "tiny_postnorm.heed"))
        c2, t2 = marian.to_marian_conventions(config, tensors)
        self.assertEqual((c2["positions"], c2["decoder_start"]),
                         ("halves", "zeros"))
        a = transformer.Transformer(config).eval()
        transformer.load_heed_tensors(a, tensors)
        # The permuted model with the old positions, permuted, and <s>.
        b = transformer.Transformer(dict(config)).eval()
        transformer.load_heed_tensors(b, t2)
        order = marian.halves_order(a.config["d_model"])
        original = transformer.positional_encoding
        src = torch.tensor([[5, 40, 41, 42, 2]])
        tgt = torch.tensor([[1, 50, 51, 52]])
        with torch.no_grad():
            want = a(src, tgt)
            transformer.positional_encoding = \
                lambda n, d, device=None, layout=None: \
                original(n, d, device)[:, order]
            try:
                got = b(src, tgt)
            finally:
                transformer.positional_encoding = original
        self.assertLess((want - got).abs().max().item(), 1e-4)

    def test_export_refuses_what_marian_would_run_differently(self):
        with tempfile.TemporaryDirectory() as work:
            for name, reason in (("tiny_postnorm", "positions or decoder "
                                  "start"), ("tiny_prenorm", "pre-norm")):
                with self.assertRaises(SystemExit) as e:
                    marian.export(os.path.join(FIXTURES, name + ".heed"),
                                  work)
                self.assertIn(reason, str(e.exception))


class MarianInt8(unittest.TestCase):
    """heed's int8 in Marian's scheme (marian_int8.py) and its export as
    intgemm8 matrices with input ranges."""

    @classmethod
    def setUpClass(cls):
        import sentencepiece as spm
        _, config, cls.tensors = heedfile.read(TINY)
        cls.config = transformer.full_config(config)
        cls.model = transformer.Transformer(cls.config).eval()
        transformer.load_heed_tensors(cls.model, cls.tensors)
        sp = spm.SentencePieceProcessor(
            model_proto=bytes(cls.tensors["tokenizer.source"]))
        cls.tag = sp.piece_to_id(cls.config["target_tags"]["de"])
        cls.sentences = [(sp.encode(s), cls.tag)
                         for s in SENTENCES.splitlines()]

    def test_one_sentence_ranges_are_the_inputs_largest_values(self):
        # With one sentence the spread is 0: each range is the largest
        # |input|, here recomputed without the recording multiply.
        ids = self.sentences[:1]
        alphas = marian_int8.calibrate(self.model, ids)
        src = torch.tensor([[self.tag] + ids[0][0] +
                            [self.config["eos_id"]]])
        with torch.no_grad():
            embedded = self.model._embed(self.model.embed, src)
            memory, _, _ = self.model.encode(src)
        for proj in ("q", "k", "v"):
            self.assertAlmostEqual(
                alphas[f"encoder.layers.0.self_attn.{proj}_proj.weight"],
                embedded.abs().max().item(), places=5)
        for i in range(self.config["decoder_layers"]):
            for proj in ("k", "v"):
                self.assertAlmostEqual(
                    alphas[f"decoder.layers.{i}.encoder_attn.{proj}_proj."
                           "weight"], memory.abs().max().item(), places=5)
        matrices = [n for n, a in self.tensors.items()
                    if marian_int8.is_matrix(n, a)]
        self.assertEqual(sorted(alphas), sorted(matrices))
        self.assertTrue(all(a > 0 for a in alphas.values()))

    def test_matrices_on_one_scale_and_the_export_carries_them(self):
        alphas = marian_int8.calibrate(self.model, self.sentences)
        tensors = marian_int8.quantize(self.tensors, alphas)
        w = np.asarray(self.tensors["decoder.layers.0.fc1.weight"],
                       np.float32)
        q = tensors["decoder.layers.0.fc1.weight"]
        scale = tensors["decoder.layers.0.fc1.weight_scale"]
        self.assertEqual(q.dtype, np.int8)
        self.assertTrue(np.all(scale == scale[0]))
        self.assertEqual(int(np.abs(q).max()), 127)
        # Every weight within half a step of its int8 value.
        self.assertLessEqual(np.abs(q * scale[0] - w).max(),
                             scale[0] / 2 * 1.0001)
        with tempfile.TemporaryDirectory() as work:
            path = os.path.join(work, "int8.heed")
            heedfile.write(path, heedfile.read(TINY)[1], tensors)
            binary, _ = export(path, work)
            items = marian.read_bin(binary)
            with open(os.path.join(work, "config.yml")) as f:
                self.assertIn("int8shiftAlphaAll", f.read())
            kind, shape, blob = items["decoder_l1_ffn_W1"]
            self.assertEqual(kind, marian.INTGEMM8)
            self.assertEqual(list(shape), [w.shape[1], w.shape[0]])
            n = w.size
            self.assertEqual(len(blob), (n + 4 + 255) // 256 * 256)
            np.testing.assert_array_equal(
                np.frombuffer(blob[:n], np.int8).reshape(w.shape), q)
            mult = np.frombuffer(blob[n:n + 4], "<f4")[0]
            self.assertEqual(np.float32(1) / mult, scale[0])
            _, _, a = items["decoder_l1_ffn_W1_QuantMultA"]
            self.assertEqual(np.frombuffer(a, "<f4")[0],
                             np.float32(127) / np.float32(
                                 alphas["decoder.layers.0.fc1.weight"]))
            self.assertIn("Wemb_QuantMultA", items)
            self.assertEqual(items["Wemb"][0], marian.INTGEMM8)
            # heed runs the same file (the ranges are read, not refused).
            out = subprocess.run(
                [HEED, "translate", "--model", path, "--to", "de"],
                input=SENTENCES, capture_output=True, text=True)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertEqual(len(out.stdout.splitlines()), 2)

    def test_heeds_own_int8_is_not_exported_as_marians(self):
        with tempfile.TemporaryDirectory() as work:
            path = os.path.join(work, "int8.heed")
            subprocess.run([HEED, "quantize", "--model", TINY, "--out", path],
                           check=True, capture_output=True)
            with self.assertRaises(SystemExit) as e:
                marian.export(path, work)
            self.assertIn("heed's own scheme", str(e.exception))


class Hostile(unittest.TestCase):
    """Every broken file is a ValueError naming the problem: no other
    exception, no huge allocation."""

    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.TemporaryDirectory()
        cls.binary, cls.vocabs = export(TINY, cls.work.name)

    @classmethod
    def tearDownClass(cls):
        cls.work.cleanup()

    def edited(self, edit):
        """A copy of the exported model with edit(items) applied to its
        {name: (type, shape, bytes)}."""
        items = marian.read_bin(self.binary)
        edit(items)
        path = os.path.join(self.work.name, "edited.bin")
        marian.write_bin(path, [(n, k, list(sh), b)
                                for n, (k, sh, b) in items.items()])
        return path

    def with_yml(self, old, new):
        """A copy with `old` replaced by `new` in its special:model.yml."""
        def edit(items):
            kind, _, blob = items["special:model.yml"]
            self.assertIn(old, blob)
            text = blob.replace(old, new)
            items["special:model.yml"] = (kind, (len(text),), text)
        return self.edited(edit)

    def refused(self, path, message):
        with self.assertRaises(ValueError) as e:
            marian.import_model(path, self.vocabs,
                                os.path.join(self.work.name, "x.heed"))
        self.assertIn(message, str(e.exception))

    def test_truncated_anywhere(self):
        with open(self.binary, "rb") as f:
            blob = f.read()
        path = os.path.join(self.work.name, "cut.bin")
        for size in list(range(0, 64, 7)) + [len(blob) // 3,
                                              len(blob) - 1]:
            with open(path, "wb") as f:
                f.write(blob[:size])
            self.refused(path, "truncated")

    def test_absurd_header_counts(self):
        with open(self.binary, "rb") as f:
            blob = bytearray(f.read())
        path = os.path.join(self.work.name, "count.bin")
        blob[8:16] = struct.pack("<Q", 1 << 60)  # tensors
        with open(path, "wb") as f:
            f.write(blob)
        self.refused(path, "truncated")

    def test_wrong_shape(self):
        def edit(items):
            kind, shape, blob = items["encoder_l1_self_Wq"]
            items["encoder_l1_self_Wq"] = (kind, (shape[1] * 2, shape[0] // 2),
                                           blob)
        self.refused(self.edited(edit), "encoder_l1_self_Wq: shape")

    def test_shape_that_lies_about_its_bytes(self):
        def edit(items):
            kind, _, blob = items["Wemb"]
            items["Wemb"] = (kind, (1 << 20, 1 << 20), blob)
        self.refused(self.edited(edit), "does not match its")

    def test_unknown_tensors(self):
        for name, message in (("decoder_l1_extra_W", "unknown Marian param"),
                              ("decoder_l1_rnn_W", "RNN")):
            self.refused(self.edited(lambda items, n=name: items.update(
                {n: (marian.FLOAT32, (2,), bytes(8))})), message)

    def test_broken_npz_and_yaml(self):
        path = os.path.join(self.work.name, "broken.npz")
        with open(path, "wb") as f:
            f.write(b"PK\x03\x04 not a zip at all")
        self.refused(path, "not a Marian model heed can read")
        self.refused(self.with_yml(b"dim-emb: 32", b"dim-emb: [1, 2"),
                     "not a Marian model heed can read")

    def test_huge_dims_in_the_config(self):
        self.refused(self.with_yml(b"dim-emb: 32", b"dim-emb: 1000000000"),
                     "shape")

    def test_unsupported_features_are_named(self):
        for old, new, message in (
                (b"transformer-preprocess: \"\"", b"transformer-preprocess: n",
                 "transformer-preprocess"),
                (b"transformer-train-positions: false",
                 b"transformer-train-positions: true",
                 "transformer-train-positions"),
                (b"transformer-train-position-embeddings: false",
                 b"transformer-train-position-embeddings: true",
                 "transformer-train-position-embeddings"),
                (b"type: transformer", b"type: s2s", "type")):
            self.refused(self.with_yml(old, new), message)

    def test_quantised_models_are_refused(self):
        def edit(items):
            _, shape, blob = items["encoder_l1_self_Wq"]
            items["encoder_l1_self_Wq"] = (0x4101, shape, blob)
        self.refused(self.edited(edit), "float32")

    def test_not_a_marian_model(self):
        path = os.path.join(self.work.name, "heed.bin")
        with open(TINY, "rb") as f, open(path, "wb") as g:
            g.write(f.read())
        self.refused(path, "Marian")


if __name__ == "__main__":
    unittest.main()
