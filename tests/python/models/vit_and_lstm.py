# A ViT patch embedding (Dosovitskiy et al. 2021) with its class token and
# position embedding, and an LSTM part-of-speech tagger as the PyTorch
# tutorial writes it.
import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Int
from torch import Tensor


class PatchEmbed(nn.Module):
    def __init__(self, img_size=224, patch_size=16, in_chans=3, embed_dim=768):
        super().__init__()
        self.num_patches = (img_size // patch_size) * (img_size // patch_size)
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, embed_dim))
        self.pos_embed = nn.Parameter(torch.zeros(1, self.num_patches + 1, embed_dim))

    def forward(self, x):
        B = x.shape[0]
        x = self.proj(x).flatten(2).transpose(1, 2)
        cls = self.cls_token.expand(B, -1, -1)
        x = torch.cat((cls, x), dim=1)
        return x + self.pos_embed


class LSTMTagger(nn.Module):
    def __init__(self, embedding_dim, hidden_dim, vocab_size, tagset_size):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab_size, embedding_dim)
        self.lstm = nn.LSTM(embedding_dim, hidden_dim, batch_first=True)
        self.hidden2tag = nn.Linear(hidden_dim, tagset_size)

    def forward(self, sentence: Int[Tensor, "batch words"]):
        embeds = self.word_embeddings(sentence)
        lstm_out, _ = self.lstm(embeds)
        tag_space = self.hidden2tag(lstm_out)
        return F.log_softmax(tag_space, dim=-1)


# Unannotated, with the states unpacked: the layer's result is followed
# per call, where the input's rank is known.
class GRUEncoder(nn.Module):
    def __init__(self, features, hidden):
        super().__init__()
        self.lstm = nn.LSTM(features, hidden, num_layers=2, bidirectional=True)
        self.gru = nn.GRU(2 * hidden, hidden, batch_first=True)

    def forward(self, x):
        out, (h, c) = self.lstm(x)
        summary = self.gru(out.transpose(0, 1))[1]
        return out, h, summary


embed = PatchEmbed()
tokens = embed(torch.randn(2, 3, 224, 224))  #~ shape tokens: Tensor[2, 197, 768]
small = PatchEmbed(img_size=32, patch_size=4, embed_dim=64)
few = small(torch.randn(8, 3, 32, 32))  #~ shape few: Tensor[8, 65, 64]
mismatch = small(torch.randn(8, 3, 64, 64))  #~ error

tagger = LSTMTagger(embedding_dim=6, hidden_dim=6, vocab_size=9, tagset_size=3)
sentence = torch.zeros(1, 5, dtype=torch.long)
scores = tagger(sentence)  #~ shape scores: Tensor[1, 5, 3]

encoder = GRUEncoder(features=4, hidden=5)
states, last, summary = encoder(torch.randn(7, 3, 4))  #~ shape states: Tensor[7, 3, 10] ; shape last: Tensor[4, 3, 5] ; shape summary: Tensor[1, 3, 5]
bad = encoder(torch.randn(7, 3, 5))  #~ error
