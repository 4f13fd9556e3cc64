"""Sensor forecasting with a stacked LSTM, as written for PyTorch 0.3 (late
2017): Variable everywhere, volatile evaluation, loss.data[0], a legacy
autograd Function, the old repackage_hidden. Run: python -m sensor_lstm_03.train"""
