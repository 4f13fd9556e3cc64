def fit(batches):
    from __main__ import PairTrainer  # the script that runs: train.py, or its fixed copy

    trainer = PairTrainer()
    for step, batch in enumerate(batches):
        trainer.set_input(batch)
        trainer.forward()
        trainer.update_d()
        trainer.forward()  # a fresh fake for the generator step
        trainer.update_g()
        print(step, f"{trainer.loss_d.item():.6f} {trainer.loss_g.item():.6f}")
    return trainer
