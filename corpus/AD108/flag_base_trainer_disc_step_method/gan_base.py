# The base class of flag_base_trainer_disc_step_method/train.py (not a case itself).


class GANBase(object):
    def __init__(self, nets, opts):
        self.netG, self.netD = nets
        self.optG = opts[0]
        self.optD = opts[1]
