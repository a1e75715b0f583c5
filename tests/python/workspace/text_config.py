# `write_config` for text data, which needs a vocabulary, and a table
# helper; see `uses_configs.py`.
import torch


def write_config(root, spm_filename=None, vocab_name=None):
    assert spm_filename is not None or vocab_name is not None
    return {"root": root, "vocab": vocab_name or spm_filename}


def doubled_table(rows):
    return torch.cat([rows, rows], dim=0)
