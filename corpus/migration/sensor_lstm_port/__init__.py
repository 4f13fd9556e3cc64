"""sensor_lstm_03 ported to current PyTorch by hand: the reference that
`autodetach migrate` output must match. Run: python -m sensor_lstm_port.train"""
