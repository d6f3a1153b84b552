"""PyTorch peers of bench/device-whole.sh's whole-model training step.

BertForMaskedLM from the config tfuse's bundle was imported from (its LM
head untied, random init, no pooler), trained as usual in mixed precision:
f32 master weights, bf16 autocast, SDPA attention, dropout as in the config
(training mode), torch.optim.AdamW(fused=True) (lr 1e-4, weight decay 0.01,
as the bundle's update). The word and token-type tables are trained, as
the bundle trains them (tfuse.gather_grad); WHOLE_TORCH_FREEZE=1 freezes
them, as bundles compiled before the tables had a gradient did. Losses: `ce` (the model's own MLM cross-entropy, 15 % of the
positions labelled: the bundle's loss is tfuse.cross_entropy) and `mse` (the
mean of (logits - target)^2, the bundles' loss before the cross-entropy). Plans: eager and torch.compile(model + loss).

One step is zero_grad, forward, loss, backward, optimizer.step; its time is
the median over WHOLE_REPS steps (CUDA events) after WHOLE_WARMUP. Each peer
runs in its own try/except and prints why it failed. Every result is
appended to <out>/peers.json as it comes (a list of records).

Usage: whole_peers.py CONFIG.json OUT_DIR
Environment: WHOLE_BATCHES (default "32", comma-separated), WHOLE_SEQ (512),
WHOLE_REPS (10), WHOLE_WARMUP (3), WHOLE_PEERS (default
"eager:ce,compile:ce,eager:mse,compile:mse"), WHOLE_TORCH_FREEZE (0).
"""

import gc
import json
import os
import sys
import time
import traceback


def env_int(name, default):
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        sys.exit(f"whole_peers.py: {name} must be an integer")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: whole_peers.py CONFIG.json OUT_DIR")
    config_path, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    batches = [int(b) for b in os.environ.get("WHOLE_BATCHES", "32").split(",") if b]
    seq = env_int("WHOLE_SEQ", 512)
    reps = env_int("WHOLE_REPS", 10)
    warmup = env_int("WHOLE_WARMUP", 3)
    freeze = os.environ.get("WHOLE_TORCH_FREEZE", "0") != "0"
    peers = [(p.split(":") + [""])[:2] for p in
             os.environ.get("WHOLE_PEERS", "eager:ce,compile:ce,eager:mse,compile:mse").split(",") if p]
    results_path = os.path.join(out, "peers.json")
    results = []

    def record(entry):
        results.append(entry)
        with open(results_path, "w") as f:
            json.dump(results, f, indent=1)
        print("peer:", json.dumps(entry), flush=True)

    try:
        import torch
        import torch.nn.functional as F
        import transformers
        from transformers import AutoConfig, AutoModelForMaskedLM
    except Exception as exc:  # no torch on this machine: say so, fail nothing
        record({"plan": "torch", "error": f"import failed: {exc!r}"})
        return
    if not torch.cuda.is_available():
        record({"plan": "torch", "error": "no CUDA device"})
        return
    print(f"torch {torch.__version__}, transformers {transformers.__version__}, "
          f"{torch.cuda.get_device_name()}", flush=True)
    cfg = json.load(open(config_path))
    cfg["tie_word_embeddings"] = False
    for key in ("_name_or_path", "architectures", "transformers_version", "torch_dtype"):
        cfg.pop(key, None)

    class Step(torch.nn.Module):
        """The model and its loss, so torch.compile sees both."""

        def __init__(self, model, loss):
            super().__init__()
            self.model, self.loss = model, loss

        def forward(self, ids, types, mask, target, labels):
            if self.loss == "ce":
                return self.model(input_ids=ids, token_type_ids=types,
                                  attention_mask=mask, labels=labels).loss
            logits = self.model(input_ids=ids, token_type_ids=types,
                                attention_mask=mask).logits
            return F.mse_loss(logits.float(), target.float())

    def run_peer(entry, plan, loss, batch):
        """Times one peer into `entry`; everything it allocates dies with it."""
        if plan not in ("eager", "compile") or loss not in ("mse", "ce"):
            raise ValueError(f"unknown peer {plan}:{loss} (eager|compile : mse|ce)")
        torch.manual_seed(0)
        config = AutoConfig.for_model(**cfg)
        config._attn_implementation = "sdpa"
        model = AutoModelForMaskedLM.from_config(
            config, attn_implementation="sdpa").cuda().float().train()
        decoder = model.cls.predictions.decoder.weight
        words = model.bert.embeddings.word_embeddings.weight
        entry["attn"] = getattr(model.config, "_attn_implementation", "?")
        entry["tied"] = decoder.data_ptr() == words.data_ptr()
        if freeze:
            words.requires_grad_(False)
            model.bert.embeddings.token_type_embeddings.weight.requires_grad_(False)
        params = [p for p in model.parameters() if p.requires_grad]
        entry["trained_params"] = sum(p.numel() for p in params)
        opt = torch.optim.AdamW(params, lr=1e-4, weight_decay=0.01, fused=True)
        step = Step(model, loss)
        run = torch.compile(step) if plan == "compile" else step
        vocab = config.vocab_size
        ids = torch.randint(0, vocab, (batch, seq), device="cuda")
        types = torch.randint(0, config.type_vocab_size, (batch, seq), device="cuda")
        mask = torch.ones(batch, seq, dtype=torch.long, device="cuda")
        target = (torch.randn(batch, seq, vocab, device="cuda", dtype=torch.bfloat16)
                  if loss == "mse" else None)
        labels = torch.where(torch.rand(batch, seq, device="cuda") < 0.15,
                             torch.randint(0, vocab, (batch, seq), device="cuda"),
                             torch.full((batch, seq), -100, device="cuda"))

        def train_step():
            opt.zero_grad(set_to_none=True)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                value = run(ids, types, mask, target, labels)
            value.backward()
            opt.step()
            return value

        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        begin = time.time()
        value = train_step()
        torch.cuda.synchronize()
        entry["first_step_s"] = round(time.time() - begin, 2)
        for _ in range(max(warmup - 1, 0)):
            train_step()
        times = []
        for _ in range(reps):
            start, end = torch.cuda.Event(True), torch.cuda.Event(True)
            start.record()
            value = train_step()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end))
        times.sort()
        ms = times[len(times) // 2]
        entry.update(ms=round(ms, 3), min_ms=round(times[0], 3),
                     steps_per_s=round(1000.0 / ms, 3), reps=reps,
                     loss_value=float(value.detach()),
                     peak_gib=round(torch.cuda.max_memory_allocated() / 2**30, 2))

    for batch in batches:
        for plan, loss in peers:
            entry = {"plan": f"torch {plan}", "loss": loss, "batch": batch, "seq": seq}
            try:
                run_peer(entry, plan, loss, batch)
            except Exception as exc:
                entry["error"] = f"{type(exc).__name__}: {exc}"[:500]
                traceback.print_exc(limit=4)
            record(entry)
            gc.collect()
            try:
                torch._dynamo.reset()
                torch.cuda.empty_cache()
            except Exception:
                pass


if __name__ == "__main__":
    main()
