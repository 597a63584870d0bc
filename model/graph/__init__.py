"""The dataflow graph of a profile: one arc structure, max-flow, resource ids."""
