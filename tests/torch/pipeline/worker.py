"""One rank of the pipeline tests, under torchrun:
worker.py FACTORY BATCH,SHAPE... MICRO_BATCHES[,...] SPLIT.json[@PLACEMENT] ...

Runs each split with fxsplit_torch.distributed for each micro-batch count,
placed by PLACEMENT ("0,1,1,0" by stage index) or else by its labels or
stage i on rank i mod K, and on the driver compares the output with the unsplit model's on
the same micro-batches (torch.allclose) and with the whole batch; then
one batch more through serve() on the other ranks and close()."""
import sys

import torch

import helpers
from fxsplit_torch import distributed


def flat(v):
    return [v] if isinstance(v, torch.Tensor) else [t for x in v for t in flat(x)]


def main(factory, shape, counts, *jobs):
    torch.set_num_threads(1)
    rank, _ = distributed.init_from_env("gloo", timeout=60)
    torch.manual_seed(0)
    model = getattr(helpers.models, factory)().eval()
    shape = tuple(int(d) for d in shape.split(","))
    torch.manual_seed(1)
    x = torch.rand(shape)
    for job in jobs:
        split, _, placement = job.partition("@")
        where = [int(r) for r in placement.split(",")] if placement else None
        pipe = distributed.Pipeline(split, model, placement=where)
        for m in (int(c) for c in counts.split(",")):
            out = pipe.run(x, micro_batches=m)
            if rank != 0:
                continue
            with torch.no_grad():
                ref = distributed.join_micro_batches([model(c) for c in torch.tensor_split(x, m)])
                whole = model(x)
            same = all(torch.allclose(a, b) for a, b in zip(flat(out), flat(ref)))
            close = all(torch.allclose(a, b, rtol=1e-4, atol=1e-5) for a, b in zip(flat(out), flat(whole)))
            print(f"{factory} {split.rsplit('/', 1)[-1]} "
                  f"{pipe.placement} micro_batches={m}: allclose={same} "
                  f"whole_batch_close={close}", flush=True)
            if not (same and close):
                sys.exit(1)
    # batches only the driver knows of: serve() until close()
    if rank == 0:
        out = pipe.run(x, micro_batches=2)
        pipe.close()
        with torch.no_grad():
            ref = distributed.join_micro_batches([model(c) for c in torch.tensor_split(x, 2)])
        print(f"serve/close: allclose={all(torch.allclose(a, b) for a, b in zip(flat(out), flat(ref)))}",
              flush=True)
    else:
        pipe.serve()
    torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main(*sys.argv[1:])
