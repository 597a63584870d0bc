"""Importers: other tools' files (kerncraft machine files, likwid-bench, fio, iperf3 ...) turned
into pinchpoint profiles, signatures and diagnose inputs.  Edge layer: parsing and validation
only, every error an :class:`~pinchpoint.errors.InputError` naming the file and key."""
