#!/usr/bin/env python3
"""Training FLOPs per token as Megatron-LM reports them (--log-throughput), to turn a published
"TFLOP/s/GPU" into tokens/s/GPU.

Mirrors megatron/training/training.py num_floating_point_operations -> transformer_flops at
NVIDIA/Megatron-LM 20d66d5c7b^ (2026-01; the same closed form since mid-2025): 3 x 2 x 2 per
multiply-accumulate of every GEMM, swiglu x 3/2, causal core attention counted once (s / h / 2),
MLA with its low-rank projections, MTP layers, logits over the padded vocabulary. It is not
meshplan's own count (src/model/flops.cpp counts the full s x s scores, Narayanan et al. 2021).

  python3 tools/megatron_flops.py            # the models used by tests/fixtures/published_runs_megatron_moe_modelzoo.json
"""

from dataclasses import dataclass


@dataclass
class Shape:
    layers: int
    hidden: int
    heads: int
    vocab_padded: int
    swiglu: bool = True
    # GQA (multi_latent_attention False)
    query_groups: int = 0
    kv_channels: int = 0
    # MLA
    q_lora_rank: int = 0
    kv_lora_rank: int = 0
    qk_head_dim: int = 0
    qk_pos_emb_head_dim: int = 0
    v_head_dim: int = 0
    # MLPs
    ffn_hidden: int = 0
    moe_layers: int = 0
    moe_ffn_hidden: int = 0
    topk: int = 0
    shared_ffn_hidden: int = 0
    mtp_layers: int = 0


def flops_per_token(m: Shape, seq: int) -> float:
    layers = m.layers + m.mtp_layers
    moe_layers = m.moe_layers + m.mtp_layers  # the MTP layer repeats the last (MoE) layer
    dense_layers = layers - moe_layers
    gated = 1.5 if m.swiglu else 1.0
    expansion = 3 * 2 * 2
    if m.q_lora_rank:
        q_term = m.q_lora_rank * (m.hidden + m.heads * (m.qk_head_dim + m.qk_pos_emb_head_dim) + 1)
        attn = 3 * 2 * layers * (
            q_term
            + m.kv_lora_rank * (m.hidden + m.heads * (m.qk_head_dim + m.v_head_dim) + 1)
            + m.hidden * m.qk_pos_emb_head_dim
            + m.heads * m.v_head_dim * m.hidden
            + seq * m.heads * (m.qk_head_dim + m.qk_pos_emb_head_dim) / 2
            + seq * m.heads * m.v_head_dim / 2
        )
    else:
        ratio = m.kv_channels * m.heads / m.hidden
        attn = expansion * layers * m.hidden * m.hidden * (
            (1 + m.query_groups / m.heads + seq / m.hidden / 2) * ratio
        )
    mlp = expansion * layers * m.hidden * (
        m.ffn_hidden * gated * dense_layers / layers
        + m.moe_ffn_hidden * m.topk * gated * moe_layers / layers
        + m.shared_ffn_hidden * gated * moe_layers / layers
    )
    mtp = 3 * 2 * m.mtp_layers * (3 * m.hidden + 2 * m.hidden * m.hidden)
    logits = 3 * 2 * m.hidden * m.vocab_padded * (m.mtp_layers + 1)
    return mlp + attn + mtp + logits


# Megatron-MoE-ModelZoo model_configs/benchmarking/*.yaml (yanring/Megatron-MoE-ModelZoo e865051).
QWEN3_235B = Shape(layers=94, hidden=4096, heads=64, query_groups=4, kv_channels=128, vocab_padded=151936,
                   moe_layers=94, moe_ffn_hidden=1536, topk=8)
# Megatron-LM docs/discussions/deepseek-v3-gb200-optimization/deepseek-v3-gb200-reproduce-guide.md.
DEEPSEEK_V3 = Shape(layers=61, hidden=7168, heads=128, vocab_padded=129280, q_lora_rank=1536, kv_lora_rank=512,
                    qk_head_dim=128, qk_pos_emb_head_dim=64, v_head_dim=128, ffn_hidden=18432, moe_layers=58,
                    moe_ffn_hidden=2048, topk=8, shared_ffn_hidden=2048)

if __name__ == "__main__":
    for name, shape, seqs in (("Qwen3-235B-A22B", QWEN3_235B, (4096, 16384, 32768, 65536, 131072)),
                              ("DeepSeek-V3", DEEPSEEK_V3, (4096,))):
        for seq in seqs:
            print(f"{name} seq {seq}: {flops_per_token(shape, seq) / 1e9:.2f} GFLOP per token")
