"""The cell reader: a CRNN with CTC output.

Input `image` [N, 1, H, W] float32 (normalised as in `common.normalise`);
output `logp` [N, T, C] log-softmax over the alphabet, T = W / 4.
"""
from __future__ import annotations

import torch
from torch import nn

from .common import ALPHABET, H


def _block(cin: int, cout: int, pool: tuple[int, int]) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU(inplace=True), nn.MaxPool2d(pool))


class CRNN(nn.Module):
    def __init__(self, classes: int = len(ALPHABET), height: int = H, hidden: int = 128):
        super().__init__()
        self.conv = nn.Sequential(
            _block(1, 32, (2, 2)),
            _block(32, 64, (2, 2)),
            _block(64, 128, (2, 1)),
            _block(128, 128, (2, 1)),
        )
        feat = 128 * (height // 16)
        self.drop = nn.Dropout(0.15)
        self.rnn = nn.LSTM(feat, hidden, batch_first=True, bidirectional=True)
        self.head = nn.Linear(2 * hidden, classes)

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        f = self.conv(image)                      # [N, 128, H/16, W/4]
        n, c, h, t = f.shape
        f = f.permute(0, 3, 1, 2).reshape(n, t, c * h)
        f, _ = self.rnn(self.drop(f))
        return torch.log_softmax(self.head(self.drop(f)), dim=-1)  # [N, T, C]
