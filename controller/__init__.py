"""P4Runtime controller for the p4reduce switch program."""
