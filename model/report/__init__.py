"""For people: the HTML report, text and JSON tables, plots."""
