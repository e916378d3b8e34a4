#!/usr/bin/env python3
"""Writes a tiny llama-architecture GGUF model with random weights, for the client check in
.ci/llama: 2 layers, grouped-query attention (4 query heads, 2 KV heads), weights in f16, Q8_0
and Q4_0 with --q4 (the formats ggml's CANN back-end handles differently), and a byte-level SPM vocabulary
(every byte a token, so any prompt tokenizes).

Usage: PYTHONPATH=<llama.cpp>/gguf-py llama_model.py OUT.gguf [SEED] [--q4] [--bench]
  --q4: layer 1 in Q4_0 (ggml passes those weights as ACL_INT4); by default both layers are Q8_0.
  --bench: a larger model for the speed figures (n_embd 1024, 4 layers, n_ff 2816, ~50M
           weights), where the matmuls, not the per-op overheads, take the time.
"""
import sys

import numpy as np
import gguf
from gguf import GGMLQuantizationType as Q

out = sys.argv[1]
args = [a for a in sys.argv[2:] if not a.startswith("--")]
seed = int(args[0]) if args else 1
q4 = "--q4" in sys.argv
rng = np.random.default_rng(seed)

if "--bench" in sys.argv:
    n_embd, n_head, n_head_kv, n_layer, n_ff, n_ctx = 1024, 16, 4, 4, 2816, 1024
else:
    n_embd, n_head, n_head_kv, n_layer, n_ff, n_ctx = 128, 4, 2, 2, 256, 256
head_dim = n_embd // n_head

tokens = [b"<unk>", b"<s>", b"</s>"] + [f"<0x{b:02X}>".encode() for b in range(256)]
n_vocab = len(tokens)
types = [gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL] + [gguf.TokenType.BYTE] * 256

w = gguf.GGUFWriter(out, "llama")
w.add_name("aclnn-cpu tiny llama")
w.add_context_length(n_ctx)
w.add_embedding_length(n_embd)
w.add_block_count(n_layer)
w.add_feed_forward_length(n_ff)
w.add_head_count(n_head)
w.add_head_count_kv(n_head_kv)
w.add_rope_dimension_count(head_dim)
w.add_layer_norm_rms_eps(1e-5)
w.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
w.add_tokenizer_model("llama")
w.add_token_list(tokens)
w.add_token_scores([0.0] * n_vocab)
w.add_token_types(types)
w.add_bos_token_id(1)
w.add_eos_token_id(2)
w.add_unk_token_id(0)
w.add_add_bos_token(True)


def weight(shape, scale):
    """Random weights in ggml's (rows, cols) numpy layout: shape is (out, in)."""
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def add(name, data, qtype):
    if qtype == Q.F32:
        w.add_tensor(name, data.astype(np.float32))
    elif qtype == Q.F16:
        w.add_tensor(name, data.astype(np.float16))
    else:
        q = gguf.quants.quantize(data, qtype)
        w.add_tensor(name, q, raw_shape=q.shape, raw_dtype=qtype)


s_in = 1.0 / np.sqrt(n_embd)
add("token_embd.weight", weight((n_vocab, n_embd), 1.0), Q.F16)
for i in range(n_layer):
    # layer 0 quantized to Q8_0, the odd layers to Q4_0 with --q4 (else Q8_0); ffn_down in f16
    qt = Q.Q4_0 if (q4 and i % 2 == 1) else Q.Q8_0
    add(f"blk.{i}.attn_norm.weight", 1.0 + 0.1 * weight((n_embd,), 1.0), Q.F32)
    add(f"blk.{i}.attn_q.weight", weight((n_embd, n_embd), s_in), qt)
    add(f"blk.{i}.attn_k.weight", weight((n_head_kv * head_dim, n_embd), s_in), qt)
    add(f"blk.{i}.attn_v.weight", weight((n_head_kv * head_dim, n_embd), s_in), qt)
    add(f"blk.{i}.attn_output.weight", weight((n_embd, n_embd), s_in), qt)
    add(f"blk.{i}.ffn_norm.weight", 1.0 + 0.1 * weight((n_embd,), 1.0), Q.F32)
    add(f"blk.{i}.ffn_gate.weight", weight((n_ff, n_embd), s_in), qt)
    add(f"blk.{i}.ffn_up.weight", weight((n_ff, n_embd), s_in), qt)
    add(f"blk.{i}.ffn_down.weight", weight((n_embd, n_ff), 1.0 / np.sqrt(n_ff)), Q.F16)
add("output_norm.weight", 1.0 + 0.1 * weight((n_embd,), 1.0), Q.F32)
add("output.weight", weight((n_vocab, n_embd), 4.0 * s_in), Q.Q8_0)

w.write_header_to_file()
w.write_kv_data_to_file()
w.write_tensors_to_file()
w.close()
print(f"wrote {out}: {n_layer} layers, n_embd {n_embd}, vocab {n_vocab}")
