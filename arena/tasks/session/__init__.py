"""Shopping sessions (issue 19): multi-turn problems with a deterministic scripted shopper. The family registers
itself here once its tools and checks are in place."""
