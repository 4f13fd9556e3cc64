# expect-before: runs
# `async` as a real keyword, in strings and in comments: nothing to change.
# (old code said x.cuda(async=True); see the notes)
import asyncio

import torch

NOTE = "use x.cuda(non_blocking=True), not x.cuda(async=True)"


async def produce(queue):
    async with asyncio.Lock():
        await queue.put(torch.ones(2) * 3)


async def main():
    q = asyncio.Queue()
    await produce(q)
    t = await q.get()
    print(t.sum().item(), "async=True" in NOTE)


asyncio.run(main())
