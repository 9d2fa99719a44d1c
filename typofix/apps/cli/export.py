"""`typofix export`: a training checkpoint to the slim model file or the ONNX export the corrector ships with."""

from __future__ import annotations

import argparse

from typofix.files.exits import OK


def add(subcommands) -> None:
    parser = subcommands.add_parser(
        "export", help="write the slim model file (fp16) or the ONNX export (.onnxz) of a checkpoint",
        description="Write a training checkpoint's hyperparameters, alphabet and weights (float16) to a small "
                    "self-describing file that `correct --model` and the bundled model use. OUT ending in .onnxz "
                    "gets the ONNX export instead (encoder and decoder step for onnxruntime: correcting without "
                    "torch); the bundled one is made by `typofix export typofix/models/default.pt "
                    "typofix/models/default.onnxz` (`make onnx`).")
    parser.add_argument("checkpoint", help="training checkpoint (.ckpt) or an earlier slim export (.pt)")
    parser.add_argument("out", help="file to write, e.g. typofix/models/default.pt or typofix/models/default.onnxz")
    parser.add_argument("--average", nargs="+", metavar="CKPT", default=(),
                        help="more checkpoints of the same model whose weights are averaged with CHECKPOINT's "
                             "(checkpoint averaging: the last epochs of a run, smoothed)")
    parser.add_argument("--fp32", action="store_true", help="keep float32 weights (twice the size)")
    parser.add_argument("--int8", action="store_true", help="ONNX only: the decoder step in int8 over fixed "
                        "activation ranges, the encoder float (about half the time per step on an AVX2 CPU, and a "
                        "word's scores never depend on its batch; see typofix/training/quantize.py)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from typofix.files.modelfile import resolve_model
    from typofix.training.export import export

    size = export(resolve_model(args.checkpoint), args.out, half=not args.fp32, int8=args.int8,
                  average=[resolve_model(path) for path in args.average])
    print(f"wrote {args.out} ({size / 1e6:.2f} MB)")
    return OK
