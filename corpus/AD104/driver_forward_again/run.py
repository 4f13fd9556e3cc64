def train(iters):
    from __main__ import SeriesGAN  # the script that runs: train.py, or its fixed copy

    gan = SeriesGAN()
    for step in range(iters):
        gan.next_batch()
        gan.forward_all()
        gan.train_embedder()
    for step in range(iters):
        gan.next_batch()
        gan.forward_all()
        gan.train_generator(joint=True)
        gan.forward_all()
        gan.train_embedder(joint=True)
        print(step, f"{gan.e_loss.item():.6f} {gan.g_loss.item():.6f}")
    return gan
