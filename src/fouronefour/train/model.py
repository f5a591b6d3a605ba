"""The Q network in torch, for the learner; it exports to the numpy arrays the ``learned``
bot runs (:class:`fouronefour.bots.learned.QNetwork`), layer for layer."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np
import numpy.typing as npt
import torch
from torch import nn

from fouronefour.bots.features import ACTION_SIZE, STATE_SIZE


class QModel(nn.Module):
    """An MLP over the concatenated (state, action) features, one value out."""

    def __init__(self, hidden: Sequence[int] = (256, 256, 128)) -> None:
        super().__init__()
        self.hidden = tuple(int(h) for h in hidden)
        sizes = [STATE_SIZE + ACTION_SIZE, *self.hidden, 1]
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in itertools.pairwise(sizes))

    def linears(self) -> list[nn.Linear]:
        return [cast(nn.Linear, layer) for layer in self.layers]

    def forward(self, states: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        hidden = torch.cat((states, actions), dim=1)
        *inner, last = self.linears()
        for layer in inner:
            hidden = torch.relu(layer(hidden))
        output: torch.Tensor = last(hidden).squeeze(1)
        return output

    def to_arrays(self) -> dict[str, npt.NDArray[np.float32]]:
        """``layer{i}_weight`` (inputs x outputs) and ``layer{i}_bias``, as the bot reads."""
        arrays: dict[str, npt.NDArray[np.float32]] = {}
        with torch.no_grad():
            for index, layer in enumerate(self.linears()):
                arrays[f"layer{index}_weight"] = layer.weight.detach().t().contiguous().numpy()
                arrays[f"layer{index}_bias"] = layer.bias.detach().numpy().copy()
        return arrays

    def load_arrays(self, arrays: Mapping[str, Any]) -> None:
        """Take the weights of an exported network of the same shape."""
        with torch.no_grad():
            for index, layer in enumerate(self.linears()):
                weight = torch.from_numpy(np.asarray(arrays[f"layer{index}_weight"]).T.copy())
                if weight.shape != layer.weight.shape:
                    raise ValueError(
                        f"layer {index}: weights of shape {tuple(weight.shape)}, "
                        f"the model has {tuple(layer.weight.shape)}"
                    )
                layer.weight.copy_(weight)
                layer.bias.copy_(torch.from_numpy(np.asarray(arrays[f"layer{index}_bias"])))


def hidden_of(arrays: Mapping[str, Any]) -> tuple[int, ...]:
    """The hidden layer sizes of exported weights."""
    sizes = []
    index = 0
    while f"layer{index + 1}_weight" in arrays:
        sizes.append(int(np.asarray(arrays[f"layer{index}_weight"]).shape[1]))
        index += 1
    return tuple(sizes)


__all__ = ["QModel", "hidden_of"]
