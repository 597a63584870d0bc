"""Published formulas and the kinds that use them: link kinds, bus protocols, framing, TCP, queueing, the USL, units."""
