"""nn.MultiheadAttention on projected inputs (cross-modal: q = Linear(text), k = v = Linear(img), each from its
own width), on two shapes."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, d_text=24, d_img=40, num_heads=3):
        super().__init__()
        self.q_proj = nn.Linear(d_text, d_text)
        self.kv_proj = nn.Linear(d_img, d_text)
        self.mha = nn.MultiheadAttention(d_text, num_heads, batch_first=True)

    def forward(self, text, img):
        kv = self.kv_proj(img)
        out, _ = self.mha(self.q_proj(text), kv, kv)
        return out


def get_input_groups():
    return [[torch.rand(2, 9, 24), torch.rand(2, 20, 40)], [torch.rand(1, 17, 24), torch.rand(1, 5, 40)]]


def get_inputs():
    return get_input_groups()[0]


def get_init_inputs():
    return [24, 40, 3]
