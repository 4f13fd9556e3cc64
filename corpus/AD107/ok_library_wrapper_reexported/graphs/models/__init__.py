from .autoencoder import AutoEncoder, AdversarialAutoEncoder  # noqa: F401
