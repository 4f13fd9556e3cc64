"""One module per rule: adNNN_<name>.py. The registry finds them."""
