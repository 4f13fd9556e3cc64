from models import Encoder, Head


def build(tasks):
    nets = {}
    nets["rep"] = Encoder()
    for t in tasks:
        nets[t] = Head()
    return nets
