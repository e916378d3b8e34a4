/* A probe of llama.cpp through its public API (llama.h), for .ci/llama: the same model on
 * the CANN back-end (over aclnn-cpu) and on ggml's CPU back-end.
 *
 *   llama_probe MODEL NGL logits N PROMPT OUT  greedy-decodes N tokens after PROMPT and writes,
 *                                             per step, the token chosen and the logits it
 *                                             was chosen from (int32 n_vocab, then per step
 *                                             int32 token + n_vocab float32) to OUT
 *   llama_probe MODEL NGL speed NPROMPT NGEN   prefills NPROMPT tokens in one batch, then
 *                                             decodes NGEN tokens one by one; prints tokens/s
 *
 * NGL is the number of layers on the accelerator (99: all, on CANN0; 0: the CPU back-end).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "llama.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int argmax(const float *v, int n)
{
    int best = 0;
    for (int i = 1; i < n; i++)
        if (v[i] > v[best]) best = i;
    return best;
}

static int g_ngl;

static struct llama_context *context(struct llama_model *model, int n_ctx, int n_batch)
{
    struct llama_context_params cp = llama_context_default_params();
    /* With no layers on the accelerator, nothing goes there: the CPU back-end alone. */
    cp.op_offload = g_ngl > 0;
    cp.n_ctx = (uint32_t)n_ctx;
    cp.n_batch = (uint32_t)n_batch;
    cp.n_ubatch = (uint32_t)n_batch;
    cp.n_threads = 2;
    cp.n_threads_batch = 2;
    cp.no_perf = 1;
    return llama_init_from_model(model, cp);
}

static int decode_one(struct llama_context *ctx, llama_token t)
{
    return llama_decode(ctx, llama_batch_get_one(&t, 1));
}

static int logits(struct llama_model *model, int n, const char *prompt, const char *out_path)
{
    const struct llama_vocab *vocab = llama_model_get_vocab(model);
    int n_vocab = llama_vocab_n_tokens(vocab);
    llama_token toks[512];
    int n_prompt = llama_tokenize(vocab, prompt, (int32_t)strlen(prompt), toks, 512, 1, 1);
    if (n_prompt <= 0) return fprintf(stderr, "cannot tokenize the prompt\n"), 1;
    struct llama_context *ctx = context(model, n_prompt + n + 8, 512);
    if (!ctx) return fprintf(stderr, "cannot create the context\n"), 1;
    FILE *f = fopen(out_path, "wb");
    if (!f) return perror(out_path), 1;
    fwrite(&n_vocab, sizeof n_vocab, 1, f);
    if (llama_decode(ctx, llama_batch_get_one(toks, n_prompt)) != 0) return fprintf(stderr, "decode failed\n"), 1;
    for (int i = 0; i < n; i++) {
        const float *l = llama_get_logits_ith(ctx, -1);
        llama_token t = argmax(l, n_vocab);
        fwrite(&t, sizeof t, 1, f);
        fwrite(l, sizeof(float), (size_t)n_vocab, f);
        if (decode_one(ctx, t) != 0) return fprintf(stderr, "decode failed\n"), 1;
    }
    fclose(f);
    llama_free(ctx);
    return 0;
}

static int speed(struct llama_model *model, int n_prompt, int n_gen)
{
    const struct llama_vocab *vocab = llama_model_get_vocab(model);
    int n_vocab = llama_vocab_n_tokens(vocab);
    struct llama_context *ctx = context(model, n_prompt + n_gen + 8, n_prompt);
    if (!ctx) return fprintf(stderr, "cannot create the context\n"), 1;
    llama_token *toks = malloc(sizeof(llama_token) * (size_t)n_prompt);
    for (int i = 0; i < n_prompt; i++) toks[i] = 3 + (i * 7919) % (n_vocab - 3); /* any tokens */
    /* One warm-up prefill (buffers, graph capture), then the timed one on a fresh sequence. */
    if (llama_decode(ctx, llama_batch_get_one(toks, n_prompt)) != 0) return fprintf(stderr, "decode failed\n"), 1;
    llama_memory_clear(llama_get_memory(ctx), 1);
    double t0 = now();
    if (llama_decode(ctx, llama_batch_get_one(toks, n_prompt)) != 0) return fprintf(stderr, "decode failed\n"), 1;
    llama_synchronize(ctx);
    double t1 = now();
    llama_token t = argmax(llama_get_logits_ith(ctx, -1), n_vocab);
    for (int i = 0; i < n_gen; i++) {
        if (decode_one(ctx, t) != 0) return fprintf(stderr, "decode failed\n"), 1;
        t = argmax(llama_get_logits_ith(ctx, -1), n_vocab);
    }
    double t2 = now();
    printf("prefill %d tokens: %.1f tokens/s; decode %d tokens: %.1f tokens/s\n", n_prompt,
           n_prompt / (t1 - t0), n_gen, n_gen / (t2 - t1));
    free(toks);
    llama_free(ctx);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s MODEL NGL logits N PROMPT OUT | speed NPROMPT NGEN\n", argv[0]);
        return 2;
    }
    llama_backend_init();
    struct llama_model_params mp = llama_model_default_params();
    g_ngl = atoi(argv[2]);
    mp.n_gpu_layers = g_ngl;
    struct llama_model *model = llama_model_load_from_file(argv[1], mp);
    if (!model) return fprintf(stderr, "cannot load %s\n", argv[1]), 1;
    int rc = 2;
    if (strcmp(argv[3], "logits") == 0 && argc == 7)
        rc = logits(model, atoi(argv[4]), argv[5], argv[6]);
    else if (strcmp(argv[3], "speed") == 0 && argc == 6)
        rc = speed(model, atoi(argv[4]), atoi(argv[5]));
    else
        fprintf(stderr, "bad arguments\n");
    llama_model_free(model);
    llama_backend_free();
    return rc;
}
