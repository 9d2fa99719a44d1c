"""`typofix plot-attention` and `typofix plot-embeddings`: the model's attention and its character map."""

from __future__ import annotations

import argparse

from typofix.apps.cli.options import add_model_options, check_image_name, load_corrector
from typofix.files.exits import OK, UsageError


def add_attention(subcommands) -> None:
    parser = subcommands.add_parser(
        "plot-attention", help="draw the attention alignment of words (PNG or SVG)",
        description="Draw, for each word, where the model looks while it writes its correction (Bahdanau et al. "
                    "2015, Fig. 3): input characters across, output characters down, darker = more attention (the "
                    "scale beside it). The characters the correction changes are outlined in red, a red line marks "
                    "missing ones. "
                    "With --pronounce, the letter-to-phone model's alignments instead: the word's letters across, "
                    "the phones it writes (ARPAbet) down, as `typofix pronounce --model-only` prints them.")
    parser.add_argument("words", nargs="+", metavar="WORD", help="words to correct (or pronounce) and draw")
    parser.add_argument("--out", required=True, metavar="FILE", help="image to write: .png or .svg")
    parser.add_argument("--pronounce", action="store_true", help="draw letters to phones (the letter-to-phone "
                        "model; --model then names one, default the bundled one) instead of the correction")
    add_model_options(parser)
    parser.set_defaults(handler=run_attention)


def run_attention(args: argparse.Namespace) -> int:
    from typofix.files.modelfile import ModelError
    from typofix.insight import plots

    check_image_name(args.out)
    if args.pronounce:
        return run_pronounce_attention(args)
    corrector = load_corrector(args)
    vocab = corrector.vocab
    words = [w.lower() for w in args.words]
    for word in words:
        if not word or not vocab.covers(word):
            raise UsageError(f"cannot draw {word!r}: the model reads only the characters {vocab.alphabet!r}")
    alignments = []
    for word in words:
        best = corrector.explain(word, k=1)[0]  # what the model writes, even for a known word
        if best.attn is None:
            raise ModelError("this model has no attention (attention=none): there is no alignment to draw")
        out_chars = [*best.word, vocab.symbols[vocab.eos_id]]  # the end-of-word step gets a row too
        alignments.append(plots.Alignment(word, out_chars, best.attn,
                                          marks=[c.span for c in best.changes], title=best.explanation))
    plots.save_figure(plots.plot_attention_grid(alignments), args.out)
    print(f"wrote {args.out}")
    return OK


def run_pronounce_attention(args: argparse.Namespace) -> int:
    """plot-attention --pronounce: each word's likeliest pronunciation by the model, rows named in ARPAbet; the
    title adds the dictionary's when CMUdict lists another."""
    from typofix.apps.cli.options import decoding_options_given
    from typofix.apps.cli.pronounce import words_read
    from typofix.engine.pronounce import Pronouncer
    from typofix.files.modelfile import ModelError
    from typofix.insight import plots
    from typofix.words.phones import Pronunciations, phone_labels, to_arpabet

    given = decoding_options_given(args)
    if given:
        raise UsageError(f"{', '.join(given)}: correction options, not for --pronounce")
    pronouncer = Pronouncer.load(args.model)
    vocab = pronouncer.vocab
    letters = words_read(pronouncer, args.words)
    listed = Pronunciations.bundled()
    alignments = []
    for word, found in zip(letters, pronouncer.pronounce_many(letters, k=1)):
        if not found:
            raise ModelError(f"the model writes no phone for {word!r}: there is no alignment to draw")
        best = found[0]
        if best.attn is None:
            raise ModelError("this model has no attention (attention=none): there is no alignment to draw")
        title = f"{word} -> {best.arpabet}"
        if listed.of(word) and best.phones not in listed.of(word):
            title += f"  (CMUdict: {to_arpabet(listed.of(word)[0])})"
        alignments.append(plots.Alignment(word, [*phone_labels(best.phones), vocab.symbols[vocab.eos_id]], best.attn,
                                          title=title, axis_titles=plots.PHONE_AXIS_TITLES))
    plots.save_figure(plots.plot_attention_grid(alignments), args.out)
    print(f"wrote {args.out}")
    return OK


def add_embeddings(subcommands) -> None:
    parser = subcommands.add_parser(
        "plot-embeddings", help="draw the model's character embeddings (PNG or SVG)",
        description="Project the model's character embeddings on their first two principal components and draw "
                    "every character where it lands: vowels, consonants and other symbols in three colours.")
    parser.add_argument("--out", required=True, metavar="FILE", help="image to write: .png or .svg")
    parser.add_argument("--model", metavar="PATH", help="model file: an ONNX export (.onnxz), a slim export (.pt) "
                        "or a training .ckpt (default: the bundled model, as `typofix correct` runs it)")
    parser.add_argument("--embedding", choices=("encoder", "decoder"), default="encoder",
                        help="the encoder's input embedding (reads the typo; default) or the decoder's (reads "
                             "the correction written so far; an ONNX export stores the encoder's only, so the "
                             "bundled torch model is drawn)")
    parser.set_defaults(handler=run_embeddings)


def run_embeddings(args: argparse.Namespace) -> int:
    import numpy as np

    from typofix.files.modelfile import ModelError, resolve_model
    from typofix.insight import plots
    from typofix.insight.embeddings import read_embeddings
    from typofix.words.vocab import Vocab

    check_image_name(args.out)
    # The decoder's table is in torch models only: for the bundled model, its torch export.
    path = resolve_model(args.model, onnx=args.embedding == "encoder")
    _, alphabet, matrix = read_embeddings(path, args.embedding)
    if matrix is None:
        raise ModelError(f"{path}: this file stores no embeddings (exported before they were stored)")
    vocab = Vocab(alphabet)
    # The alphabet only: the specials' rows are padding (zeros) or never trained, noise on the map.
    weights = np.asarray(matrix, dtype=np.float32)[vocab.encode(vocab.alphabet)]  # (A, E)
    title = f"{args.embedding} character embeddings, {path.name}"
    plots.save_figure(plots.plot_embeddings(weights, list(vocab.alphabet), title=title), args.out)
    print(f"wrote {args.out}")
    return OK
