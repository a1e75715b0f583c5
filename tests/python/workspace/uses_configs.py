# Two files of the workspace define `write_config` (fairseq's
# speech-to-speech and speech-to-text `data_utils.py`): the one this file
# imports by name answers its calls, whatever else it imports from the
# other.
import torch
from speech_config import frames_of, write_config
from text_config import doubled_table

config = write_config("out", vocoder="hifigan")
table = doubled_table(torch.randn(2, 3))  #~ shape table: Tensor[4, 3]
frames = frames_of(torch.randn(16000))  #~ shape frames: Tensor[100, 160]
