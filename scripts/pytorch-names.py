#!/usr/bin/env python3
"""Writes the names PyTorch gives its operations (crates/tensorfit_semantics/
src/pytorch_names.txt): the modules of torch.nn, the functions of
torch.nn.functional and torch, and the methods of torch.Tensor, one per
line, sorted. A name the Tensor language does not know but PyTorch does is
reported as "not modelled yet" rather than as a typo (docs/diagnostics.md).

Run with the PyTorch the project tests against (Debian's python3-torch):
    /usr/bin/python3 scripts/pytorch-names.py
"""
import inspect
import pathlib

import torch
import torch.nn as nn
import torch.nn.functional as F


def public(name):
    return not name.startswith("_")


names = set()
for name in filter(public, dir(nn)):
    value = getattr(nn, name)
    if inspect.isclass(value) and issubclass(value, nn.Module):
        names.add(name)
for name in filter(public, dir(F)):
    value = getattr(F, name)
    if inspect.isfunction(value) or inspect.isbuiltin(value):
        names.add(name)
for name in filter(public, dir(torch)):
    value = getattr(torch, name)
    if (inspect.isfunction(value) or inspect.isbuiltin(value)) and name[0].islower():
        names.add(name)
for name in filter(public, dir(torch.Tensor)):
    if callable(getattr(torch.Tensor, name)) and name[0].islower():
        names.add(name)

target = pathlib.Path(__file__).resolve().parent.parent / "crates/tensorfit_semantics/src/pytorch_names.txt"
target.write_text("".join(f"{name}\n" for name in sorted(names)))
print(f"{len(names)} names written to {target}")
